import BridgetCore
import Testing

/// The change log readers' wait: a ring ends it, a ring while nobody waits is kept for the next wait, cancelling
/// ends it, and with no ring it lasts its timeout. Waits that a ring must end are a minute long, so only the ring can
/// end them within the half-minute hang detectors.
@Suite("Doorbell")
struct DoorbellTests {
    @Test("a ring from another task ends a minute's wait")
    func ringEndsTheWait() async {
        let doorbell = Doorbell()
        let start = ContinuousClock.now
        let ringer = Task {
            try? await Task.sleep(for: .milliseconds(50))
            doorbell.ring()
        }
        await doorbell.wait(upTo: .seconds(60))
        #expect(ContinuousClock.now - start < .seconds(30))
        await ringer.value
    }

    @Test("a ring while nobody waits is kept: the next wait returns at once, the one after lasts its timeout")
    func ringIsKept() async {
        let doorbell = Doorbell()
        doorbell.ring()
        doorbell.ring()
        let start = ContinuousClock.now
        await doorbell.wait(upTo: .seconds(60))
        #expect(ContinuousClock.now - start < .seconds(30))
        let next = ContinuousClock.now
        await doorbell.wait(upTo: .milliseconds(200))
        #expect(ContinuousClock.now - next >= .milliseconds(200), "two rings are one: the second wait has none")
    }

    @Test("cancelling the waiting task ends a minute's wait")
    func cancellationEndsTheWait() async {
        let doorbell = Doorbell()
        let start = ContinuousClock.now
        let waiter = Task { await doorbell.wait(upTo: .seconds(60)) }
        try? await Task.sleep(for: .milliseconds(50))
        waiter.cancel()
        await waiter.value
        #expect(ContinuousClock.now - start < .seconds(30))
    }

    @Test("a store's wake-ups ring it")
    func listensToWakeups() async {
        let doorbell = Doorbell()
        let (wakeups, continuation) = AsyncStream<Void>.makeStream()
        let listening = doorbell.listen(to: wakeups)
        defer { listening.cancel() }
        let start = ContinuousClock.now
        continuation.yield()
        await doorbell.wait(upTo: .seconds(60))
        #expect(ContinuousClock.now - start < .seconds(30))
    }
}
