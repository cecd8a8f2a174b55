import BridgetDTOs
import BridgetPersistence
import Foundation
import Testing

extension StoreConformance {
    /// Checks `SyncRunStore`: a run is recorded as running, then as it ended; runs are listed newest first; the last
    /// succeeded run is a provider's newest success, not a later failure.
    public static func checkSyncRuns(makeStore: () async throws -> any SyncRunStore) async throws {
        let store = try await makeStore()
        let started = Date(timeIntervalSince1970: 1_790_000_000)
        let id = try await store.startSyncRun(provider: "sample", startedAt: started, watermarkBefore: nil)
        #expect(try await store.syncRuns(limit: 5).first?.status == .running)
        let finished = SyncRunRecord(
            id: id, provider: "sample", startedAt: started, finishedAt: started.addingTimeInterval(2),
            status: .succeeded, watermarkAfter: started, fetched: 12, counts: UpsertCounts(inserted: 10),
            rejections: RejectionCounts([.closeBeforeOpen: 2]), fingerprint: "n=12")
        #expect(try await store.lastSucceededRun(provider: "sample") == nil)
        try await store.finishSyncRun(finished)
        #expect(try await store.syncRuns(limit: 5) == [finished])
        #expect(try await store.lastSucceededRun(provider: "sample") == finished)
        #expect(try await store.lastSucceededRun(provider: "live") == nil)
        let failedID = try await store.startSyncRun(provider: "sample", startedAt: started, watermarkBefore: nil)
        var failed = finished
        (failed.id, failed.status, failed.fingerprint) = (failedID, .failed, "n=13")
        try await store.finishSyncRun(failed)
        #expect(try await store.lastSucceededRun(provider: "sample")?.fingerprint == "n=12")
    }
}
