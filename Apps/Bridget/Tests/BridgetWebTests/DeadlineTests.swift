import BridgetCore
import BridgetTestSupport
@testable import BridgetWeb
import Foundation
import Testing

/// The server's deadlines (`DeadlineWatch`), proved under contention: the watcher thread and the request tasks take
/// its lock at once, so a lost or doubled expiry fails the test, and under `Scripts/test --tsan` the sanitizer sees
/// every hand-over of the lock (`Locked`), so an access outside it is reported.
@Suite("deadlines under contention")
struct DeadlineTests {
    @Test("many deadlines watched and forgotten at once: each one not forgotten expires exactly once, none forgotten does")
    func watchUnderContention() async throws {
        let watch = DeadlineWatch(tick: .milliseconds(1))
        final class Fired: Sendable { let counts = Locked([Int: Int]()) }
        let fired = Fired()
        let count = 2_000
        var forgotten = Set<Int>()
        var ids: [Int: Int] = [:]
        for index in 0..<count {
            // Short deadlines, so the watcher expires some while others are still being added and forgotten.
            let id = watch.watch(.milliseconds(index % 7), progress: nil) {
                fired.counts.withLock { $0[index, default: 0] += 1 }
            }
            ids[index] = id
            if index.isMultiple(of: 3) {
                watch.forget(id)
                forgotten.insert(index)
            }
        }
        // Every deadline not forgotten expires, however slow the machine: wait for them (a hang detector, not a bound).
        let expected = count - forgotten.count
        let began = ContinuousClock.now
        while fired.counts.withLock({ $0.count }) < expected, ContinuousClock.now - began < TestTime.duration(.seconds(120)) {
            try await Task.sleep(for: .milliseconds(5))
        }
        let counts = fired.counts.withLock { $0 }
        #expect(counts.values.allSatisfy { $0 == 1 }, "a deadline expired twice")
        // A deadline forgotten after it expired may have fired; one forgotten first never does.
        let lateForgets = forgotten.filter { counts[$0] != nil }
        #expect(counts.count - lateForgets.count == expected)
        #expect(Set(counts.keys).union(forgotten).count == count, "a deadline not forgotten never expired")
    }
}
