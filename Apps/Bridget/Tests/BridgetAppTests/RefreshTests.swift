import BridgetContext
import BridgetCore
import BridgetDTOs
import BridgetPersistence
import BridgetRuntime
import Foundation
import Testing

/// The refresher's schedule and loop on a clock of the test's own: each sleep jumps to the instant asked for, so a
/// schedule across Seattle's daylight-saving changes runs in no time, and every sync's instant is known exactly.
@Suite("refresh schedule and refresher")
struct RefreshTests {
    static let seattle = LocalClock.seattle

    static func instant(_ text: String) -> Date {
        ISO8601DateFormatter().date(from: text)!
    }

    static func schedule(_ times: [String]) -> RefreshSchedule {
        RefreshSchedule(rule: .times(times.map { text in
            let (hour, minute) = TimeGrammar.timeOfDay(text)!
            return hour * 60 + minute
        }.sorted()), clock: seattle)
    }

    /// A clock that jumps: `sleep(until:)` records the instant and moves `now` there; after `limit` sleeps it throws
    /// `CancellationError`, which ends the refresher's loop.
    final class JumpingTimer: RefreshTimer {
        let state: Locked<(now: Date, sleeps: [Date])>
        let limit: Int

        init(start: Date, limit: Int) {
            state = Locked((start, []))
            self.limit = limit
        }

        func now() -> Date { state.withLock { $0.now } }

        func sleep(until instant: Date) async throws {
            try state.withLock { state in
                guard state.sleeps.count < limit else { throw CancellationError() }
                state.sleeps.append(instant)
                state.now = max(state.now, instant)
            }
        }

        /// Moves the clock on, as a sync takes time.
        func advance(_ seconds: TimeInterval) { state.withLock { $0.now = $0.now.addingTimeInterval(seconds) } }
    }

    static func report(at instant: Date, completed: Bool = true) -> SyncReport {
        SyncReport(runID: 1, provider: "test", full: false, startedAt: instant, finishedAt: instant, since: nil,
                   watermarkBefore: nil, watermarkAfter: nil, pages: 1, fetched: 10, inserted: 10, updated: 0,
                   unchanged: 0, rejected: 0, rejectedByReason: [:], sourceUnchanged: false, completed: completed)
    }

    @Test("05:30 and 17:30 in Seattle are 13:30/01:30 UTC in winter and 12:30/00:30 in summer, across both changes")
    func timesAcrossDaylightSaving() {
        let schedule = Self.schedule(["17:30", "05:30"])
        // Spring forward, Sunday 2026-03-08 02:00 PST → 03:00 PDT.
        var at = Self.instant("2026-03-07T10:00:00Z") // 02:00 PST, Saturday
        var spring: [Date] = []
        for _ in 0..<4 {
            at = schedule.next(after: at)
            spring.append(at)
        }
        #expect(spring == ["2026-03-07T13:30:00Z", "2026-03-08T01:30:00Z", "2026-03-08T12:30:00Z", "2026-03-09T00:30:00Z"]
            .map(Self.instant))
        // Fall back, Sunday 2026-11-01 02:00 PDT → 01:00 PST.
        at = Self.instant("2026-10-31T10:00:00Z")
        var fall: [Date] = []
        for _ in 0..<4 {
            at = schedule.next(after: at)
            fall.append(at)
        }
        #expect(fall == ["2026-10-31T12:30:00Z", "2026-11-01T00:30:00Z", "2026-11-01T13:30:00Z", "2026-11-02T01:30:00Z"]
            .map(Self.instant))
        #expect(schedule.description == "at 05:30 and 17:30 (America/Los_Angeles)")
    }

    @Test("a time the clocks skip runs at the instant after the gap; a time they repeat runs once, at its first")
    func skippedAndRepeatedTimes() {
        let skipped = Self.schedule(["02:30"])
        #expect(skipped.next(after: Self.instant("2026-03-07T12:00:00Z")) == Self.instant("2026-03-08T10:30:00Z")) // 03:30 PDT
        #expect(skipped.next(after: Self.instant("2026-03-08T10:30:00Z")) == Self.instant("2026-03-09T09:30:00Z"))
        let repeated = Self.schedule(["01:30"])
        let first = repeated.next(after: Self.instant("2026-10-31T12:00:00Z"))
        #expect(first == Self.instant("2026-11-01T08:30:00Z")) // 01:30 PDT; 01:30 PST (09:30Z) does not run again
        #expect(repeated.next(after: first) == Self.instant("2026-11-02T09:30:00Z"))
    }

    @Test("a store that never synced, or missed a scheduled time, is due at once")
    func overdue() {
        let schedule = Self.schedule(["05:30", "17:30"])
        let now = Self.instant("2026-06-30T20:00:00Z") // 13:00 PDT
        #expect(schedule.isOverdue(lastSuccess: nil, now: now))
        #expect(!schedule.isOverdue(lastSuccess: Self.instant("2026-06-30T12:31:00Z"), now: now)) // after 05:30 today
        #expect(schedule.isOverdue(lastSuccess: Self.instant("2026-06-29T23:00:00Z"), now: now)) // before 05:30 today
        let every = RefreshSchedule(rule: .every(1_800), clock: Self.seattle)
        #expect(every.next(after: now) == now.addingTimeInterval(1_800))
        #expect(every.isOverdue(lastSuccess: now.addingTimeInterval(-1_800), now: now))
        #expect(!every.isOverdue(lastSuccess: now.addingTimeInterval(-1_799), now: now))
        #expect(every.description == "every 30 min")
    }

    @Test("the refresher syncs at each scheduled Seattle instant across the spring change, one at a time")
    func refresherFollowsTheSchedule() async {
        let timer = JumpingTimer(start: Self.instant("2026-03-07T10:00:00Z"), limit: 4)
        let syncs = Locked<[Date]>([])
        let running = Locked(0)
        let refresher = Refresher(
            schedule: Self.schedule(["05:30", "17:30"]), jitter: 600, backoff: RefreshBackoff(initial: 60, maximum: 3_600),
            timer: timer, random: { 0.5 },
            sync: {
                running.withLock { $0 += 1 }
                defer { running.withLock { $0 -= 1 } }
                #expect(running.withLock { $0 } == 1, "two syncs at once")
                let now = timer.now()
                syncs.withLock { $0.append(now) }
                timer.advance(90)
                return Self.report(at: timer.now())
            })
        await refresher.run(lastSuccess: Self.instant("2026-03-07T09:00:00Z"))
        // Half the 10-minute jitter (random() = 0.5) after each time.
        #expect(syncs.withLock { $0 } == ["2026-03-07T13:35:00Z", "2026-03-08T01:35:00Z", "2026-03-08T12:35:00Z",
                                          "2026-03-09T00:35:00Z"].map(Self.instant))
        #expect(refresher.state.next == Self.instant("2026-03-09T12:35:00Z") && refresher.state.isRunning == false)
    }

    @Test("after failures the refresher waits 60, 120, 240 s (capped), then keeps the schedule again")
    func backoff() async {
        struct Down: Error {}
        let timer = JumpingTimer(start: Self.instant("2026-06-30T12:00:00Z"), limit: 7)
        let attempts = Locked<[Date]>([])
        let events = Locked<[String]>([])
        let refresher = Refresher(
            schedule: Self.schedule(["05:30", "17:30"]), jitter: 0, backoff: RefreshBackoff(initial: 60, maximum: 200),
            timer: timer,
            sync: {
                let count = attempts.withLock { $0.append(timer.now()); return $0.count }
                if count <= 4 { throw Down() }
                return Self.report(at: timer.now())
            },
            report: { event in
                if case .failed(_, let retryAt) = event { events.withLock { $0.append("failed, retry \(retryAt)") } }
                if case .succeeded = event { events.withLock { $0.append("succeeded") } }
            })
        // Never synced: at once; four failures; then the schedule (17:30 PDT = 00:30Z).
        await refresher.run(lastSuccess: nil)
        let start = Self.instant("2026-06-30T12:00:00Z")
        #expect(Array(attempts.withLock { $0 }.prefix(5)) == [0, 60, 180, 380, 580].map { start.addingTimeInterval($0) })
        // Then 05:30 PDT (12:30Z) and 17:30 PDT (00:30Z) as scheduled.
        #expect(timer.state.withLock { $0.sleeps }.suffix(2) == [Self.instant("2026-06-30T12:30:00Z"),
                                                                Self.instant("2026-07-01T00:30:00Z")])
        #expect(events.withLock { $0 }.filter { $0 == "succeeded" }.count == 3)
        #expect(events.withLock { $0 }.first == "failed, retry \(start.addingTimeInterval(60))")
        #expect(RefreshBackoff(initial: 60, maximum: 3_600).delay(afterFailures: 1) == 60)
        #expect(RefreshBackoff(initial: 60, maximum: 3_600).delay(afterFailures: 7) == 3_600)
        #expect(RefreshBackoff(initial: 60, maximum: 3_600).delay(afterFailures: 1_000) == 3_600)
    }

    @Test("another host's sync defers this one by the first backoff delay each time, never growing, never a failure")
    func deferredToAnotherHost() async {
        let timer = JumpingTimer(start: Self.instant("2026-06-30T12:00:00Z"), limit: 5)
        let attempts = Locked<[Date]>([])
        let events = Locked<[String]>([])
        let refresher = Refresher(
            schedule: Self.schedule(["05:30", "17:30"]), jitter: 0, backoff: RefreshBackoff(initial: 2, maximum: 600),
            timer: timer,
            sync: {
                let count = attempts.withLock { $0.append(timer.now()); return $0.count }
                if count <= 3 { throw SyncInProgress(holder: "api-2 pid 7") }
                return Self.report(at: timer.now())
            },
            report: { event in
                switch event {
                case .deferred(let holder, let retryAt): events.withLock { $0.append("deferred to \(holder) until \(retryAt)") }
                case .failed: events.withLock { $0.append("failed") }
                case .succeeded: events.withLock { $0.append("succeeded") }
                default: break
                }
            })
        await refresher.run(lastSuccess: nil)
        let start = Self.instant("2026-06-30T12:00:00Z")
        // Looks again every 2 s while the other host holds the lock (the host may die: this one then takes over).
        #expect(Array(attempts.withLock { $0 }.prefix(4)) == [0, 2, 4, 6].map { start.addingTimeInterval($0) })
        #expect(Array(events.withLock { $0 }.prefix(4)) == [
            "deferred to api-2 pid 7 until \(start.addingTimeInterval(2))",
            "deferred to api-2 pid 7 until \(start.addingTimeInterval(4))",
            "deferred to api-2 pid 7 until \(start.addingTimeInterval(6))", "succeeded",
        ])
        #expect(!events.withLock { $0 }.contains("failed"))
    }

    @Test("a failure retries at the next scheduled time when that comes before the backoff's wait")
    func retryNoLaterThanTheSchedule() async {
        struct Down: Error {}
        let timer = JumpingTimer(start: Self.instant("2026-06-30T12:29:00Z"), limit: 2) // 05:29 PDT
        let attempts = Locked<[Date]>([])
        let refresher = Refresher(
            schedule: Self.schedule(["05:30"]), jitter: 0, backoff: RefreshBackoff(initial: 100_000, maximum: 100_000),
            timer: timer,
            sync: {
                attempts.withLock { $0.append(timer.now()) }
                throw Down()
            })
        await refresher.run(lastSuccess: Self.instant("2026-06-29T12:30:00Z"))
        // The backoff says 27 hours; the next 05:30 comes first.
        #expect(attempts.withLock { $0 } == [Self.instant("2026-06-30T12:30:00Z"), Self.instant("2026-07-01T12:30:00Z")])
    }

    @Test("a sync stopped by shutdown ends the refresher; cancellation during a wait ends it at once")
    func interruptedSync() async {
        let timer = JumpingTimer(start: Self.instant("2026-06-30T12:00:00Z"), limit: 10)
        let calls = Locked(0)
        let refresher = Refresher(
            schedule: RefreshSchedule(rule: .every(60), clock: Self.seattle), jitter: 0,
            backoff: RefreshBackoff(initial: 1, maximum: 1), timer: timer,
            sync: {
                calls.withLock { $0 += 1 }
                return Self.report(at: timer.now(), completed: false)
            })
        await refresher.run(lastSuccess: nil)
        #expect(calls.withLock { $0 } == 1)

        let sleeping = Refresher(
            schedule: RefreshSchedule(rule: .every(3_600), clock: Self.seattle), jitter: 0,
            backoff: RefreshBackoff(initial: 1, maximum: 1), timer: SystemRefreshTimer(clock: { Date() }),
            sync: { Self.report(at: Date()) })
        let task = Task { await sleeping.run(lastSuccess: Date()) }
        try? await Task.sleep(for: .milliseconds(50))
        task.cancel()
        let started = ContinuousClock.now
        await task.value
        // A hang detector: a wait that ignored the cancellation would take the hour.
        #expect(ContinuousClock.now - started < .seconds(120), "a cancelled wait of an hour should end at once")
    }
}
