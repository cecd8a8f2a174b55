import BridgetAnalysis
import BridgetDTOs
@testable import BridgetNetworking
import Foundation

/// Socrata rows judged the way a sync or an import judges them: read as observations by the Socrata reader, then
/// validated by the shared rule book with Seattle's clock. The tests of the dataset's own rules go through this.
struct SocrataRowValidator {
    let validator: ObservationValidator

    init(catalog: BridgeCatalog, now: Date) {
        validator = ObservationValidator(catalog: catalog, clock: .seattle, now: now)
    }

    /// A batch of rows, as one page or import batch.
    func validate(_ rows: [SocrataRow]) -> ObservationValidator.Outcome {
        var reader = SocrataObservationReader()
        return validator.validate(reader.observations(rows))
    }

    /// One row on its own.
    func validate(_ row: SocrataRow) -> Result<BridgeEventDTO, RejectionReason> {
        var reader = SocrataObservationReader()
        return validator.validate(reader.observation(row))
    }

    /// The concurrent first pass over a chunk of rows.
    func firstPass(_ rows: ArraySlice<SocrataRow>) -> [Result<BridgeEventDTO, RejectionReason>] {
        var reader = SocrataObservationReader()
        return validator.firstPass(ArraySlice(reader.observations(rows)))
    }
}
