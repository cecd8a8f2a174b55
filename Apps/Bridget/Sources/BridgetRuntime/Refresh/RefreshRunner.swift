import BridgetAnswers
import BridgetContext
import BridgetCore
import BridgetPersistence
import Foundation

/// The refresher as `serve` and `watch` run it: syncs of the configured provider into `store` on the configured
/// schedule, each run logged (one line when it starts, one when it ends) through `log`. Cancelling `run()` ends a
/// wait, and a running sync commits its batch in flight and records itself `cancelled`. Another process (or host)
/// syncing the same store defers this one (the store's sync lock). Plain Swift: `serve` runs it as a service of its
/// `ServiceGroup` (BridgetWeb's `RefreshService`), `watch` under its own signal handling, so the plain build needs no
/// service framework.
///
/// After a sync that changed the history, the pages' figures are kept in the background (`KeptFigures`), so pages
/// on every host that shares the store render from them.
package struct RefreshRunner: Sendable {
    package let refresher: Refresher
    package let store: any BridgeStore
    package let provider: String
    package var state: RefreshState { refresher.state }

    /// `onBatch` runs after each batch the sync commits, and when it ends; `observe` sees every event after it is
    /// logged (the server counts them in its metrics).
    package init(context: AppContext, store: any BridgeStore, log: @escaping @Sendable (LogLine) -> Void,
                 onBatch: @escaping @Sendable () -> Void = {},
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
                    log(.init(level: .warning,
                              message: "refresh: the pages' figures were not kept (the next page computes them): \(error)"))
                }
            }
        }
        // The change log keeps changes.keep_days: pruned after each successful sync, beside the refresher (a prune
        // that fails is tried after the next sync).
        let pruning = OneAtATime()
        let pruneChanges: @Sendable () -> Void = {
            guard pruning.begin() else { return }
            Task {
                defer { pruning.end() }
                do {
                    _ = try await store.pruneChanges(
                        recordedBefore: context.assembly.now().addingTimeInterval(-configuration.changeRetention))
                } catch {
                    log(.init(level: .warning, message: "refresh: the change log was not pruned: \(error)"))
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
                    log(.init(level: .info, message: "refresh: next sync at \(clock.display(when))"))
                case .started:
                    log(.init(level: .info, message: "refresh: syncing"))
                case .succeeded(let report):
                    if report.inserted + report.updated > 0 { keepFigures() }
                    pruneChanges()
                    log(.init(level: .info, message: """
                        refresh: synced \(report.fetched) rows (\(report.inserted) new, \(report.updated) updated, \
                        \(report.rejected) rejected) in run \(report.runID)
                        """))
                case .failed(let message, let retryAt):
                    log(.init(level: .error,
                              message: "refresh: sync failed: \(message); trying again at \(clock.display(retryAt))"))
                case .deferred(let holder, let retryAt):
                    log(.init(level: .info, message: """
                        refresh: another sync is running on \(holder); looking again at \(clock.display(retryAt))
                        """))
                case .interrupted(let report):
                    log(.init(level: .notice, message: """
                        refresh: stopped during a sync after \(report.fetched) rows; committed batches are kept, \
                        run \(report.runID) is recorded cancelled and the next sync resumes
                        """))
                }
                observe(event)
            })
    }

    /// When the last sync of this provider succeeded, for the first run's catch-up.
    package func lastSuccess() async throws -> Date? {
        try await store.lastSucceededRun(provider: provider)?.finishedAt
    }

    /// Syncs on the schedule until cancelled.
    package func run() async throws {
        await refresher.run(lastSuccess: try await lastSuccess())
    }
}

/// A flag for work that runs once at a time: `begin()` is true only when none is under way.
package final class OneAtATime: Sendable {
    private let busy = Locked(false)

    package init() {}

    /// Marks the work under way; false when it already was.
    package func begin() -> Bool { busy.withLock { busy in defer { busy = true }; return !busy } }

    /// Marks the work done.
    package func end() { busy.withLock { $0 = false } }
}
