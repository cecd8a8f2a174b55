@testable import BridgetWeb
import BridgetTestSupport
import Foundation
import Synchronization
import Testing

/// The server's deadlines (`DeadlineWatch`), proved under contention: its state is behind a `Mutex`, whose contended
/// path on Linux (a priority-inheritance futex in the uninstrumented Synchronization library) ThreadSanitizer cannot
/// see, so `Scripts/test --tsan` names the watch in its suppressions (Scripts/test.d/tsan.supp). These tests are the
/// evidence the lock holds: what the sanitizer would catch, a lost or doubled update, fails them.
@Suite("deadlines under contention")
struct DeadlineTests {
    @Test("a Mutex shared by threads that all contend for it loses no update")
    func mutexExcludes() async {
        final class Counter: Sendable { let value = Mutex(0) }
        let counter = Counter()
        let threads = 8, rounds = 20_000
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<threads {
                group.addTask {
                    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                        Thread.detachNewThread {
                            for _ in 0..<rounds { counter.value.withLock { $0 += 1 } }
                            done.resume()
                        }
                    }
                }
            }
        }
        #expect(counter.value.withLock { $0 } == threads * rounds)
    }

    @Test("many deadlines watched and forgotten at once: each one not forgotten expires exactly once, none forgotten does")
    func watchUnderContention() async throws {
        let watch = DeadlineWatch(tick: .milliseconds(1))
        final class Fired: Sendable { let counts = Mutex([Int: Int]()) }
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
