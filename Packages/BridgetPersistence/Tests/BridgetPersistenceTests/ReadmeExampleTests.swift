import BridgetDTOs
import BridgetPersistence
import BridgetReadmeCheck
import BridgetSQLite
import Foundation
import Testing

/// The example of the package's README, compiled and run: the function below is the README's first Swift block
/// (after its imports), and the test fails when the two differ.
@Suite("README")
struct ReadmeExampleTests {
    @Test("the README's example compiles, runs, and matches its copy in the README")
    func example() async throws {
        let (first, again, openings) = try await fremontOpenings(storeFolder: TemporaryFolder().path)
        #expect(first == UpsertCounts(inserted: 1))
        #expect(again == UpsertCounts(unchanged: 1))
        #expect(openings.map(\.bridgeName) == ["Fremont"])
        #expect(openings.first?.durationMinutes == 7)

        #expect(ReadmeCheck.mismatch(testFile: #filePath, function: "fremontOpenings") == nil)
    }
}

// README.md's example, as it is there.
func fremontOpenings(storeFolder: String) async throws -> (UpsertCounts, UpsertCounts, [BridgeEventDTO]) {
    // Creates the file and its folder and applies the migrations; a folder, another application's database or a
    // file that is not SQLite at that path is refused and left as it was.
    let store = try SQLiteBridgeStore(path: storeFolder + "/bridget.sqlite")
    try await store.upsertBridges(BridgeCatalog.seattle.bridges) // events name a bridge of the catalog

    let opened = Date(timeIntervalSince1970: 1_780_315_200) // 2026-06-01 12:00 UTC, 05:00 in Seattle
    let opening = BridgeEventDTO(
        bridgeID: "3", bridgeName: "Fremont", openedAt: opened, openLocal: "2026-06-01T05:00:00.000",
        closedAt: opened.addingTimeInterval(7 * 60), closeLocal: "2026-06-01T05:07:00.000", minutesOpen: 7,
        latitude: 47.6476, longitude: -122.3497)
    let first = try await store.upsertEvents([opening]) // inserted: 1
    let again = try await store.upsertEvents([opening]) // unchanged: 1 (idempotent on bridge id and opening)

    let day = EventQuery(bridgeID: "3", openedFrom: opened, openedBefore: opened.addingTimeInterval(86_400), limit: 100)
    return (first, again, try await store.events(matching: day))
}
