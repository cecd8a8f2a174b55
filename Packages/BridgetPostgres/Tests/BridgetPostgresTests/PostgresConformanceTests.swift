import BridgetPersistence
import BridgetPersistenceTesting
import BridgetPostgres
import Testing

/// The store conformance suite BridgetPersistence ships, unchanged, against the PostgreSQL store: one empty schema
/// for each store the suite asks for.
@Suite("PostgreSQL store conformance")
struct PostgresConformanceTests {
    @Test("the PostgreSQL store keeps the promises of each part of the boundary", arguments: StoreConformance.Part.allCases)
    func conforms(_ part: StoreConformance.Part) async throws {
        try await part.check { try await TestServer.store() }
    }
}
