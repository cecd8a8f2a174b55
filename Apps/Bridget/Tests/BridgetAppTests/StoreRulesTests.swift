import BridgetAnswers
import BridgetDTOs
import BridgetPersistence
import BridgetSQLite
import Foundation
import Testing

/// Deviations kept in the store: a change holds the store's sync lock, so another host's change (or a sync) in
/// progress refuses it instead of one change overwriting the other's.
@Suite("Rules kept in the store")
struct StoreRulesTests {
    static func deviation(_ id: String) -> RuleDeviationDTO {
        RuleDeviationDTO(id: id, bridgeIDs: ["3"], from: "2027-05-16T08:00:00", until: "2027-05-16T10:30:00",
                         reason: "a run")
    }

    @Test("while another holder has the sync lock a change is refused and nothing is written; after it, both changes are kept")
    func changeUnderTheLock() async throws {
        let folder = NSTemporaryDirectory() + "bridget-rules-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/store.sqlite"
        let hostA = try SQLiteBridgeStore(path: path)
        try await hostA.upsertBridges(BridgeCatalog.seattle.bridges)
        let hostB = try SQLiteBridgeStore(path: path)
        let rulesA = StoreRules(store: hostA, location: "the store", catalog: .seattle)
        let rulesB = StoreRules(store: hostB, location: "the store", catalog: .seattle)
        #expect(try await rulesA.add([Self.deviation("first")]) == 1)

        // Host B holds the lock (a sync, or its own change) until the test lets it go.
        let (held, holding) = AsyncStream.makeStream(of: Void.self)
        let (release, releasing) = AsyncStream.makeStream(of: Void.self)
        let holder = Task {
            try await hostB.withSyncLock(holder: "host-b sync") {
                holding.yield()
                for await _ in release { break }
            }
        }
        for await _ in held { break }
        await #expect(throws: SyncInProgress.self) { _ = try await rulesA.add([Self.deviation("second")]) }
        #expect(try await rulesB.deviations().map(\.id) == ["first"], "the refused change wrote nothing")
        releasing.yield()
        releasing.finish()
        try await holder.value

        #expect(try await rulesB.add([Self.deviation("second")]) == 1)
        #expect(try await rulesA.deviations().map(\.id).sorted() == ["first", "second"])
        #expect(try await rulesA.remove(id: "first"))
        #expect(try await rulesB.deviations().map(\.id) == ["second"])
    }
}
