import BridgetContext
import BridgetCore
import BridgetPersistence
import Foundation

/// What the refresher waits with: the time now, and a sleep until an instant. The system's in use; a test gives a
/// clock of its own that jumps to each instant asked for, so a schedule across a DST change runs in no time.
package protocol RefreshTimer: Sendable {
    func now() -> Date
    /// Returns at `instant` (at once when it has passed); throws `CancellationError` when the task is cancelled.
    func sleep(until instant: Date) async throws
}

/// The wall clock. Sleeps a minute at a time at most and looks at the clock again, so a clock that is set (or a
/// machine that was suspended) moves the wake-up with it.
package struct SystemRefreshTimer: RefreshTimer {
    package let clock: @Sendable () -> Date

    package init(clock: @escaping @Sendable () -> Date) { self.clock = clock }

    package func now() -> Date { clock() }

    package func sleep(until instant: Date) async throws {
        while true {
            let left = instant.timeIntervalSince(clock())
            guard left > 0 else { return }
            try await Task.sleep(for: .milliseconds(Int64(min(left, 60) * 1000)))
        }
    }
}

/// What happened, for the log, the metrics and `/v1/status`.
package enum RefreshEvent: Sendable {
    /// The next sync is planned for this instant.
    case scheduled(Date)
    case started
    case succeeded(SyncReport)
    /// A failed sync and when it is tried again.
    case failed(message: String, retryAt: Date)
    /// Another host holds the shared store's sync lock (`holder`): nothing is wrong, and this host looks again at
    /// `retryAt` (the backoff's first delay, or the next scheduled time if sooner), so it takes over should that
    /// host die mid-sync.
    case deferred(holder: String, retryAt: Date)
    /// The run was cancelled (shutdown) while a sync ran: its committed batches are kept, the run is recorded
    /// `cancelled`.
    case interrupted(SyncReport)
}

/// Runs `sync` on a schedule, one at a time, with a random jitter after each scheduled time and a capped exponential
/// backoff after a failure. Cancelling the task that runs it stops it: a wait ends at once, and a running sync sees
/// the cancellation, commits the batch in flight, records its run `cancelled` and returns.
package struct Refresher: Sendable {
    package let schedule: RefreshSchedule
    /// The longest random delay added to a scheduled time, in seconds.
    package let jitter: TimeInterval
    package let backoff: RefreshBackoff
    package let timer: any RefreshTimer
    /// A number in 0..<1 for the jitter.
    package let random: @Sendable () -> Double
    /// One sync; its report says whether it completed.
    package let sync: @Sendable () async throws -> SyncReport
    package let state: RefreshState
    package let report: @Sendable (RefreshEvent) -> Void

    package init(schedule: RefreshSchedule, jitter: TimeInterval, backoff: RefreshBackoff, timer: any RefreshTimer,
         random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }, state: RefreshState = RefreshState(),
         sync: @escaping @Sendable () async throws -> SyncReport, report: @escaping @Sendable (RefreshEvent) -> Void = { _ in })
    {
        self.schedule = schedule
        self.jitter = jitter
        self.backoff = backoff
        self.timer = timer
        self.random = random
        self.state = state
        self.sync = sync
        self.report = report
    }

    /// Syncs at once when `lastSuccess` is overdue (see `RefreshSchedule.isOverdue`), then at every scheduled time,
    /// until the task is cancelled. A failure is retried after the backoff's delay, or at the next scheduled time
    /// when that comes first.
    package func run(lastSuccess: Date?) async {
        var failures = 0
        var due = schedule.isOverdue(lastSuccess: lastSuccess, now: timer.now()) ? timer.now() : planned(after: timer.now())
        while !Task.isCancelled {
            state.update { $0.next = due }
            report(.scheduled(due))
            do {
                try await timer.sleep(until: due)
            } catch {
                return
            }
            guard !Task.isCancelled else { return }
            state.update { $0.running = true }
            report(.started)
            do {
                let outcome = try await sync()
                state.update { $0.running = false }
                guard outcome.completed else {
                    report(.interrupted(outcome))
                    return
                }
                failures = 0
                report(.succeeded(outcome))
                due = planned(after: timer.now())
            } catch {
                state.update { $0.running = false }
                if error is CancellationError || Task.isCancelled { return }
                if let busy = error as? SyncInProgress {
                    let now = timer.now()
                    due = min(now.addingTimeInterval(backoff.delay(afterFailures: 1)), planned(after: now))
                    report(.deferred(holder: busy.holder, retryAt: due))
                    continue
                }
                failures += 1
                let now = timer.now()
                let retry = now.addingTimeInterval(backoff.delay(afterFailures: failures))
                due = min(retry, planned(after: now))
                report(.failed(message: ErrorPresentation(error)?.message ?? "\(error)", retryAt: due))
            }
        }
    }

    /// The next scheduled time after `instant`, plus a random part of the jitter.
    package func planned(after instant: Date) -> Date {
        schedule.next(after: instant).addingTimeInterval((jitter * random()).rounded())
    }
}
