import BridgetAnalysis
import BridgetDTOs
import BridgetNetworking
import Foundation

/// Socrata rows judged as a sync or an import judges them (the Socrata reader, then the shared validator with
/// Seattle's clock): what a store should hold after taking them in.
func judgeSocrataRows(_ rows: [SocrataRow], now: Date) -> ObservationValidator.Outcome {
    var reader = SocrataObservationReader()
    return ObservationValidator(catalog: .seattle, clock: .seattle, now: now).validate(reader.observations(rows))
}
