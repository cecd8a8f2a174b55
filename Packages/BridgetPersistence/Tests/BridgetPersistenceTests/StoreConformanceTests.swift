import BridgetPersistence
import BridgetPersistenceTesting
import Testing

/// The conformance suite that this package ships (BridgetPersistenceTesting), run against each of its stores: one test
/// body, every implementation, one case a part of the boundary.
@Suite("Store conformance")
struct StoreConformanceTests {
    @Test("a store keeps the promises of each part of the boundary",
          arguments: StoreKind.allCases, StoreConformance.Part.allCases)
    func conforms(_ kind: StoreKind, _ part: StoreConformance.Part) async throws {
        try await part.check { try kind.make() }
    }
}
