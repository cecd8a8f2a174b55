import BridgetDTOs
import BridgetPersistence
import BridgetPostgres
import BridgetReadmeCheck
import Foundation
import Testing

/// The example of the package's README, compiled and run against the test server: the function below is the
/// README's Swift block (after its imports), and the test fails when the two differ.
@Suite("README")
struct ReadmeExampleTests {
    @Test("the README's example compiles, runs, and matches its copy in the README")
    func example() async throws {
        let (first, again, count) = try await fremontOnPostgres(
            url: try TestServer.url, password: try TestServer.password, schema: TestServer.freshSchema())
        #expect(first == UpsertCounts(inserted: 1))
        #expect(again == UpsertCounts(unchanged: 1))
        #expect(count == 1)

        #expect(ReadmeCheck.mismatch(testFile: #filePath, function: "fremontOnPostgres") == nil)
    }
}

// README.md's example, as it is there.
func fremontOnPostgres(url: String, password: String, schema: String) async throws -> (UpsertCounts, UpsertCounts, Int) {
    // Connects, refuses a schema of another application or of a newer Bridget, and applies the migrations.
    let settings = try PostgresStoreSettings(url: url, password: password, sslMode: .disable, schema: schema)
    let store = try await PostgresBridgeStore(settings: settings)
    try await store.upsertBridges(BridgeCatalog.seattle.bridges)

    let opened = Date(timeIntervalSince1970: 1_780_315_200) // 2026-06-01 12:00 UTC, 05:00 in Seattle
    let opening = BridgeEventDTO(
        bridgeID: "3", bridgeName: "Fremont", openedAt: opened, openLocal: "2026-06-01T05:00:00.000",
        closedAt: opened.addingTimeInterval(7 * 60), closeLocal: "2026-06-01T05:07:00.000", minutesOpen: 7,
        latitude: 47.6476, longitude: -122.3497)
    // A sync writes while holding the lock every host shares; another holder makes this throw `SyncInProgress`.
    return try await store.withSyncLock(holder: "example pid 1") {
        let first = try await store.upsertEvents([opening]) // inserted: 1
        let again = try await store.upsertEvents([opening]) // unchanged: 1
        return (first, again, try await store.eventCount(bridgeID: "3"))
    }
}
