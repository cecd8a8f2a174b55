import BridgetPersistence
import Foundation
import Logging
import ServiceLifecycle
import Synchronization

/// The refresher as `serve` and `watch` run it: syncs of the configured provider into `store` on the configured
/// schedule, each run logged (one line when it starts, one when it ends). As a service of a `ServiceGroup`, a
/// graceful shutdown cancels it: a wait ends, a running sync commits its batch in flight and records itself
/// `cancelled`. Another process (or host) syncing the same store defers this one (the store's sync lock).
///
/// After a sync that changed the history, the pages' figures are kept in the background (`KeptFigures`), so pages
/// on every host that shares the store render from them.
package struct RefreshService: Service {
    package let refresher: Refresher
    package let store: any BridgeStore
    package let provider: String
    package var state: RefreshState { refresher.state }

    /// `onBatch` runs after each batch the sync commits, and when it ends; `observe` sees every event after it is
    /// logged (the server counts them in its metrics).
    package init(context: AppContext, store: any BridgeStore, logger: Logger, onBatch: @escaping @Sendable () -> Void = {},
                 observe: @escaping @Sendable (RefreshEvent) -> Void = { _ in }) throws {
        let configuration = context.configuration
        let settings = configuration.refresh
        let pipeline = try context.assembly.makeSyncPipeline(store: store)
        let clock = context.clock
        self.store = store
        provider = pipeline.provider.name
        // One keeping at a time; one cut short (a shutdown, a failure) costs the next page the work, never a wrong page.
        let keeping = OneAtATime()
        let keepFigures: @Sendable () -> Void = {
            guard keeping.begin() else { return }
            Task {
                defer { keeping.end() }
                do {
                    try await KeptFigures(context: context, store: store).keepAll()
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
                    logger.info("""
                        refresh: synced \(report.fetched) rows (\(report.inserted) new, \(report.updated) updated, \
                        \(report.rejected) rejected) in run \(report.runID)
                        """)
                case .failed(let message, let retryAt):
                    logger.error("refresh: sync failed: \(message); trying again at \(clock.display(retryAt))")
                case .deferred(let holder, let retryAt):
                    logger.info("refresh: another sync is running on \(holder); looking again at \(clock.display(retryAt))")
                case .interrupted(let report):
                    logger.notice("""
                        refresh: stopped during a sync after \(report.fetched) rows; committed batches are kept, \
                        run \(report.runID) is recorded cancelled and the next sync resumes
                        """)
                }
                observe(event)
            })
    }

    /// When the last sync of this provider succeeded, for the first run's catch-up.
    package func lastSuccess() async throws -> Date? {
        try await store.lastSucceededRun(provider: provider)?.finishedAt
    }

    package func run() async throws {
        let last = try await lastSuccess()
        let refresher = self.refresher
        await cancelWhenGracefulShutdown { await refresher.run(lastSuccess: last) }
    }
}

/// A flag for work that runs once at a time: `begin()` is true only when none is under way.
package final class OneAtATime: Sendable {
    private let busy = Mutex(false)

    package init() {}

    /// Marks the work under way; false when it already was.
    package func begin() -> Bool { busy.withLock { busy in defer { busy = true }; return !busy } }

    /// Marks the work done.
    package func end() { busy.withLock { $0 = false } }
}
