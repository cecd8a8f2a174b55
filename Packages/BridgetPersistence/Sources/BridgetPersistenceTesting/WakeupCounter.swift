import BridgetPersistence
import Foundation
import Synchronization

/// The wake-ups a store's stream has given (`ChangeLogStore.changeWakeups()`), counted by a task of its own: what a
/// test of wake-ups waits on. Its waits are hang detectors (a minute), never speed bounds.
public final class WakeupCounter: Sendable {
    private final class Heard: Sendable {
        let state = Mutex((count: 0, ended: false))
    }

    private let heard: Heard
    private let listener: Task<Void, Never>

    /// Starts counting `wakeups`.
    public init(_ wakeups: AsyncStream<Void>) {
        let heard = Heard()
        self.heard = heard
        listener = Task {
            for await _ in wakeups { heard.state.withLock { $0.count += 1 } }
            heard.state.withLock { $0.ended = true }
        }
    }

    deinit { listener.cancel() }

    /// Wake-ups so far.
    public var count: Int { heard.state.withLock { $0.count } }

    /// Whether the stream has ended.
    public var ended: Bool { heard.state.withLock { $0.ended } }

    /// Stops counting (ends the stream's consumer).
    public func stop() { listener.cancel() }

    /// Whether the first wake-up (the stream listens) comes within a minute; false at once for a stream that ends
    /// without one.
    public func listens() async -> Bool {
        await Self.eventually { self.count > 0 || self.ended }
        return count > 0
    }

    /// The count once it has not moved for half a second (after at most ten seconds): the wake-ups of earlier writes
    /// are behind it.
    public func quietCount() async -> Int {
        var last = count
        var still = ContinuousClock.now
        let deadline = still + .seconds(10)
        while ContinuousClock.now < deadline, ContinuousClock.now - still < .milliseconds(500) {
            try? await Task.sleep(for: .milliseconds(20))
            if count != last { (last, still) = (count, .now) }
        }
        return last
    }

    /// Whether the count passes `count` within a minute.
    public func grows(past count: Int) async -> Bool { await Self.eventually { self.count > count } }

    @discardableResult
    private static func eventually(_ condition: @Sendable () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return condition()
    }
}
