import BridgetDTOs
import BridgetPersistence
import Foundation
import Testing

extension StoreConformance {
    /// Checks `ImportCheckpointStore`: a checkpoint is saved with its batch (its counts increased by the batch's), read
    /// back and removed, and a batch that fails keeps neither its rows nor its checkpoint. Saves the Seattle catalog
    /// first; the failing batch names a bridge the catalog lacks.
    public static func checkImportCheckpoints(
        makeStore: () async throws -> any ImportCheckpointStore & BridgeCatalogStore
    ) async throws {
        let store = try await makeStore()
        try await store.upsertBridges(BridgeCatalog.seattle.bridges)
        #expect(try await store.importCheckpoint(source: "/data/a.ndjson") == nil)
        var checkpoint = ImportCheckpoint(source: "/data/a.ndjson", identity: "size=10", offset: 400, line: 2, rowsRead: 3,
                                          counts: UpsertCounts(unchanged: 1))
        checkpoint.rejections.record(.emptyName)
        #expect(try await store.upsertEvents([StoreFixture.event(minute: 1), StoreFixture.event(minute: 2)],
                                             checkpoint: checkpoint)
                == UpsertCounts(inserted: 2))
        checkpoint.counts = UpsertCounts(inserted: 2, unchanged: 1) // the batch's counts added in its transaction
        #expect(try await store.importCheckpoint(source: "/data/a.ndjson") == checkpoint)
        // A batch that fails keeps neither its rows nor its checkpoint.
        var later = checkpoint
        later.offset = 800
        let orphan = BridgeEventDTO(bridgeID: "99", bridgeName: "Nowhere", openedAt: Date(timeIntervalSince1970: 1_780_000_000),
                                    openLocal: "2026-05-28T13:26:40.000", closedAt: nil, closeLocal: nil, minutesOpen: nil,
                                    latitude: nil, longitude: nil)
        await #expect(throws: (any Error).self) {
            try await store.upsertEvents([StoreFixture.event(minute: 3), orphan], checkpoint: later)
        }
        #expect(try await store.importCheckpoint(source: "/data/a.ndjson") == checkpoint)
        #expect(try await store.eventCount(bridgeID: nil) == 2)
        try await store.removeImportCheckpoint(source: "/data/a.ndjson")
        #expect(try await store.importCheckpoint(source: "/data/a.ndjson") == nil)
    }
}
