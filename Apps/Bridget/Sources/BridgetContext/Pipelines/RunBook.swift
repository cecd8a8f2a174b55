import BridgetCore
import BridgetPersistence
import Foundation

/// How a sync or an import is recorded in `sync_runs`, the same way whatever moved the rows: started with the
/// watermark before it, filled as batches commit, and closed once with its outcome, its end and the watermark
/// after it.
package enum RunBook {
    /// Records a run of `provider` as started now; the record to fill as batches commit.
    package static func start(provider: String, store: any BridgeStore, at startedAt: Date) async throws -> SyncRunRecord {
        let watermark = try await store.latestOpening()
        let id = try await store.startSyncRun(provider: provider, startedAt: startedAt, watermarkBefore: watermark)
        return SyncRunRecord(id: id, provider: provider, startedAt: startedAt, watermarkBefore: watermark)
    }

    /// Closes a run that came to its end (succeeded, or stopped by the user between batches).
    package static func finish(_ record: SyncRunRecord, as status: SyncRunStatus, store: any BridgeStore,
                       at finishedAt: Date) async throws -> SyncRunRecord {
        var record = record
        record.status = status
        record.finishedAt = finishedAt
        record.watermarkAfter = try await store.latestOpening()
        try await store.finishSyncRun(record)
        return record
    }

    /// Closes a run that stopped with `error`. In a task of its own, which the run's cancellation does not reach,
    /// and after `pending` (the write in flight) lands or fails, its counts added, so the record matches the store.
    /// Recording is best effort: the error the user sees is the run's, not the record's.
    package static func close(_ record: SyncRunRecord, after error: any Error, interrupted: Bool,
                      pending: Task<UpsertCounts, any Error>? = nil, store: any BridgeStore,
                      now: @escaping @Sendable () -> Date) async -> SyncRunRecord {
        var unfinished = record
        unfinished.status = interrupted ? .cancelled : .failed
        unfinished.error = ErrorPresentation.recorded(error)
        let closing = unfinished
        return await Task {
            var closing = closing
            if let pending, let counts = try? await pending.value { closing.counts = closing.counts + counts }
            closing.finishedAt = now()
            closing.watermarkAfter = try? await store.latestOpening()
            try? await store.finishSyncRun(closing)
            return closing
        }.value
    }
}
