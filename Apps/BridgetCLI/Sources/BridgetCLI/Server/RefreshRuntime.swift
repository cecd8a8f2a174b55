#if Server
import BridgetPersistence
import Foundation
import Logging
import Metrics
import ServiceLifecycle
import Synchronization

/// The refresher as `serve` and `watch` run it: syncs of the configured provider into `store` on the configured
/// schedule, each run logged (one line when it starts, one when it ends) and counted in the metrics. As a service of
/// a `ServiceGroup`, a graceful shutdown cancels it: a wait ends, a running sync commits its batch in flight and
/// records itself `cancelled`.
struct RefreshRuntime: Service {
    let refresher: Refresher
    let store: any BridgeStore
    let provider: String
    var state: RefreshState { refresher.state }

    /// `onBatch` runs after each batch the sync commits, and when it ends.
    init(context: CommandContext, store: any BridgeStore, logger: Logger,
         onBatch: @escaping @Sendable () -> Void = {}) throws {
        let configuration = context.assembly.configuration
        let settings = configuration.refresh
        let pipeline = try context.assembly.makeSyncPipeline(store: store)
        let clock = context.assembly.clock
        let rows = Counter(label: "bridget_sync_rows_stored_total")
        let failures = Counter(label: "bridget_refresh_failures_total")
        let lastSuccess = Gauge(label: "bridget_last_refresh_success_timestamp_seconds")
        self.store = store
        provider = pipeline.provider.name
        // What the pages need of a changed history, kept before anyone asks so they render from it: in the
        // background after the sync is reported (the next one is scheduled meanwhile), one at a time. One cut short
        // (a shutdown, a failure) costs the next page the work, never a wrong page.
        let keeping = OneAtATime()
        let keepFigures: @Sendable () -> Void = {
            guard keeping.begin() else { return }
            Task {
                defer { keeping.end() }
                do {
                    try await Site(context: context, store: store, now: context.assembly.now()).keepFigures()
                } catch {
                    logger.warning("refresh: the pages' figures were not kept (the next page computes them): \(error)")
                }
            }
        }
        refresher = Refresher(
            schedule: RefreshSchedule(settings, clock: clock), jitter: TimeInterval(settings.jitterMinutes) * 60,
            backoff: RefreshBackoff(initial: settings.backoffInitial, maximum: settings.backoffMaximum),
            timer: SystemRefreshTimer(clock: context.assembly.now),
            sync: {
                defer { onBatch() }
                return try await pipeline.run(full: false) { _ in onBatch() }
            },
            report: { event in
                switch event {
                case .scheduled(let when):
                    logger.info("refresh: next sync at \(clock.display(when))")
                case .started:
                    logger.info("refresh: syncing")
                case .succeeded(let report):
                    if report.inserted + report.updated > 0 { keepFigures() }
                    rows.increment(by: report.inserted + report.updated)
                    lastSuccess.record(report.finishedAt.timeIntervalSince1970)
                    logger.info("""
                        refresh: synced \(report.fetched) rows (\(report.inserted) new, \(report.updated) updated, \
                        \(report.rejected) rejected) in run \(report.runID)
                        """)
                case .failed(let message, let retryAt):
                    failures.increment()
                    logger.error("refresh: sync failed: \(message); trying again at \(clock.display(retryAt))")
                case .deferred(let holder, let retryAt):
                    logger.info("refresh: another sync is running on \(holder); looking again at \(clock.display(retryAt))")
                case .interrupted(let report):
                    logger.notice("""
                        refresh: stopped during a sync after \(report.fetched) rows; committed batches are kept, \
                        run \(report.runID) is recorded cancelled and the next sync resumes
                        """)
                }
            })
    }

    /// When the last sync of this provider succeeded, for the first run's catch-up.
    func lastSuccess() async throws -> Date? {
        try await store.lastSucceededRun(provider: provider)?.finishedAt
    }

    func run() async throws {
        let last = try await lastSuccess()
        let refresher = self.refresher
        await cancelWhenGracefulShutdown { await refresher.run(lastSuccess: last) }
    }
}
/// A flag for work that runs once at a time: `begin()` is true only when none is under way.
final class OneAtATime: Sendable {
    private let busy = Mutex(false)

    /// Marks the work under way; false when it already was.
    func begin() -> Bool { busy.withLock { busy in defer { busy = true }; return !busy } }

    /// Marks the work done.
    func end() { busy.withLock { $0 = false } }
}
#endif
