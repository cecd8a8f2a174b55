import BridgetAnalysis
import BridgetCore
import BridgetDTOs
import BridgetNetworking
import BridgetPersistence
import Foundation

/// What a sync did, for the summary and `--format json`.
package struct SyncReport: Sendable, Codable, Equatable {
    package var runID: Int64
    package var provider: String
    package var full: Bool
    package var startedAt: Date
    package var finishedAt: Date
    package var since: Date?
    package var watermarkBefore: Date?
    package var watermarkAfter: Date?
    package var pages: Int
    package var fetched: Int
    package var inserted: Int
    package var updated: Int
    package var unchanged: Int
    package var rejected: Int
    package var rejectedByReason: [String: Int]
    /// Announced openings the source no longer lists, removed (a snapshot source's).
    package var withdrawn: Int = 0
    /// True when the source's change check matched the last successful sync, so no page was fetched.
    package var sourceUnchanged: Bool
    /// False when interrupted (Ctrl-C): the committed batches stay, and the next sync resumes from the watermark.
    package var completed: Bool = true
    /// What went wrong without failing the sync (a change check that failed, so every page was fetched instead).
    package var warnings: [String] = []

    package init(runID: Int64, provider: String, full: Bool, startedAt: Date, finishedAt: Date, since: Date?,
                 watermarkBefore: Date?, watermarkAfter: Date?, pages: Int, fetched: Int, inserted: Int, updated: Int,
                 unchanged: Int, rejected: Int, rejectedByReason: [String: Int], sourceUnchanged: Bool,
                 completed: Bool = true, warnings: [String] = []) {
        self.runID = runID
        self.provider = provider
        self.full = full
        self.startedAt = startedAt
        self.finishedAt = finishedAt
        self.since = since
        self.watermarkBefore = watermarkBefore
        self.watermarkAfter = watermarkAfter
        self.pages = pages
        self.fetched = fetched
        self.inserted = inserted
        self.updated = updated
        self.unchanged = unchanged
        self.rejected = rejected
        self.rejectedByReason = rejectedByReason
        self.sourceUnchanged = sourceUnchanged
        self.completed = completed
        self.warnings = warnings
    }
}

/// Progress of a running sync, reported after each committed batch.
package struct SyncProgress: Sendable {
    package var pages: Int
    package var fetched: Int
}

/// Moves rows from a provider through a processor into a store, one committed batch at a time, and records the
/// run. A batch that fails leaves the batches before it committed; the next sync resumes from the watermark.
package struct SyncPipeline: Sendable {
    package let provider: any NetworkProcessing
    package let processor: any BackgroundProcessing
    package let store: any BridgeStore
    /// The store's model rebuilds in this process, which the sync's own joins.
    package let rebuilds: OpeningModelRebuilds
    package let batchSize: Int
    package let overlap: TimeInterval
    package let now: @Sendable () -> Date
    /// Where rejected rows go (a file and `--verbose` examples), if anywhere.
    package var rejects: RejectedRowLog?
    /// Records the source in the store, or refuses a store that holds another's (`BridgetAssembly.claimSource`): run
    /// under the sync lock before anything is written.
    package var claimSource: @Sendable () async throws -> Void = {}

    package init(provider: any NetworkProcessing, processor: any BackgroundProcessing, store: any BridgeStore,
                 rebuilds: OpeningModelRebuilds = OpeningModelRebuilds(), batchSize: Int, overlap: TimeInterval, now: @escaping @Sendable () -> Date,
                 rejects: RejectedRowLog? = nil) {
        self.provider = provider
        self.processor = processor
        self.store = store
        self.rebuilds = rebuilds
        self.batchSize = batchSize
        self.overlap = overlap
        self.now = now
        self.rejects = rejects
    }

    /// Syncs while holding the store's sync lock, so that one sync writes at a time across every process (and host)
    /// that shares the store: when another holds it, throws `SyncInProgress` naming that holder.
    package func run(full: Bool, progress: @Sendable (SyncProgress) -> Void = { _ in }) async throws -> SyncReport {
        try await store.withSyncLock(holder: BridgetAssembly.processIdentity) {
            try await runHoldingStore(full: full, progress: progress)
        }
    }

    private func runHoldingStore(full: Bool, progress: @Sendable (SyncProgress) -> Void) async throws -> SyncReport {
        let startedAt = now()
        try await claimSource()
        let catalog = try await provider.fetchBridgeCatalog()
        try await store.upsertBridges(catalog)
        let judged = BridgeCatalog(bridges: catalog)
        var record = try await RunBook.start(provider: provider.name, store: store, at: startedAt)
        let (runID, watermarkBefore) = (record.id, record.watermarkBefore)
        let since = full ? nil : watermarkBefore.map { $0.addingTimeInterval(-overlap) }
        var pages = 0
        var sourceUnchanged = false
        var warnings: [String] = []
        // The write of one page runs while the next page is validated: at most one write is in flight. It is not a
        // child task, so an interruption lets it commit whole before the run stops.
        var inFlight: Task<UpsertCounts, any Error>?
        // Every record id the fetch listed, for a source that lists every announcement in a whole fetch.
        var listed = Set<String>()
        var withdrawn = 0
        do {
            sourceUnchanged = try await checkForChange(&record, full: full, warnings: &warnings)
            for try await page in sourceUnchanged ? .finished : provider.eventPages(since: since) {
                try Task.checkCancellation()
                pages += 1
                let processed = try await processor.validate(page.observations, catalog: judged, clock: provider.clock)
                if let previous = inFlight {
                    inFlight = nil
                    record.counts = record.counts + (try await previous.value)
                    progress(SyncProgress(pages: pages - 1, fetched: record.fetched))
                }
                try await store.upsertTrafficFlows(page.trafficFlows)
                record.fetched += page.observations.count
                if provider.listsEveryAnnouncement {
                    for observation in page.observations { if let id = observation.recordID { listed.insert(id) } }
                }
                record.rejections.merge(processed.rejectionCounts)
                try rejects?.record(processed.rejected, run: runID) { rejection in
                    RejectedRowOrigin(provider: provider.name, page: page.index, url: page.origin, index: rejection.index)
                }
                inFlight = write(processed.events)
            }
            if let last = inFlight {
                inFlight = nil
                record.counts = record.counts + (try await last.value)
                progress(SyncProgress(pages: pages, fetched: record.fetched))
            }
            // A cancelled stream may simply end; that is not a complete sync.
            try Task.checkCancellation()
            // Only a whole fetch says what is no longer announced (a record refused this time still counts as listed).
            if provider.listsEveryAnnouncement, !sourceUnchanged {
                withdrawn = try await store.withdrawAnnouncements(bridgeIDs: catalog.map(\.id), keeping: listed)
            }
            try await keepModelsInStep(stored: record.counts.inserted + record.counts.updated > 0)
        } catch {
            let interrupted = error is CancellationError || Task.isCancelled
            let closing = await RunBook.close(record, after: error, interrupted: interrupted, pending: inFlight,
                                              store: store, now: now)
            guard interrupted else { throw error }
            return report(closing, startedAt: startedAt, full: full, since: since, pages: pages, sourceUnchanged: false,
                          completed: false, warnings: warnings)
        }
        record = try await RunBook.finish(record, as: .succeeded, store: store, at: now())
        var finished = report(record, startedAt: startedAt, full: full, since: since, pages: pages,
                              sourceUnchanged: sourceUnchanged, completed: true, warnings: warnings)
        finished.withdrawn = withdrawn
        return finished
    }

    /// A cheap change check first: an unchanged source costs one small request and stores nothing. Records the
    /// source's fingerprint in `record`; whether the source is unchanged since the last sync that succeeded. A check
    /// that fails says nothing about the source, so every page is fetched instead (and no fingerprint is recorded).
    private func checkForChange(_ record: inout SyncRunRecord, full: Bool, warnings: inout [String]) async throws -> Bool {
        do {
            record.fingerprint = try await provider.changeFingerprint()
        } catch {
            guard !(error is CancellationError), let shown = ErrorPresentation(error) else { throw error }
            try Task.checkCancellation()
            warnings.append("the change check failed, so every page is fetched instead: \(shown.message)")
        }
        guard !full, record.watermarkBefore != nil, let fingerprint = record.fingerprint else { return false }
        return try await store.lastSucceededRun(provider: provider.name)?.fingerprint == fingerprint
    }

    /// Writes a page's events in batches of `batchSize`: a task, not a child task, so an interruption lets it commit
    /// whole before the run stops.
    private func write(_ events: [BridgeEventDTO]) -> Task<UpsertCounts, any Error> {
        let (store, size) = (self.store, max(batchSize, 1))
        return Task {
            var counts = UpsertCounts()
            for start in stride(from: 0, to: events.count, by: size) {
                counts = counts + (try await store.upsertEvents(Array(events[start..<min(start + size, events.count)])))
            }
            return counts
        }
    }

    /// Keeps the opening model in step with the history, so predictions read a small table: after rows `stored`, or
    /// when the models are behind anyway (a process killed between its rows and its rebuild). Inside the run: a
    /// rebuild that fails (a damaged store) is recorded as the run's failure, not left as a run that never finished;
    /// the stored rows stay, and the stale model is rebuilt when next asked for.
    private func keepModelsInStep(stored: Bool) async throws {
        let version = try await store.historyVersion()
        if try await stored ? true : OpeningModelRebuilds.behind(store: store, version: version) {
            _ = try await rebuilds.models(from: version, store: store, processor: processor)
        }
    }

    private func report(_ record: SyncRunRecord, startedAt: Date, full: Bool, since: Date?, pages: Int,
                        sourceUnchanged: Bool, completed: Bool, warnings: [String]) -> SyncReport {
        SyncReport(
            runID: record.id, provider: provider.name, full: full, startedAt: startedAt,
            finishedAt: record.finishedAt ?? startedAt, since: since, watermarkBefore: record.watermarkBefore,
            watermarkAfter: record.watermarkAfter, pages: pages, fetched: record.fetched,
            inserted: record.counts.inserted, updated: record.counts.updated, unchanged: record.counts.unchanged,
            rejected: record.rejections.total,
            rejectedByReason: Dictionary(uniqueKeysWithValues: record.rejections.byReason.map { ($0.key.rawValue, $0.value) }),
            sourceUnchanged: sourceUnchanged, completed: completed, warnings: warnings)
    }
}

extension AsyncThrowingStream where Failure == any Error {
    /// A stream with no elements.
    static var finished: AsyncThrowingStream<Element, any Error> { AsyncThrowingStream { $0.finish() } }
}
