import BridgetCore
import Foundation
import Testing

/// The app's one lock type, under the contention that makes a Synchronization `Mutex` wait in the kernel: threads of
/// their own (not the cooperative pool's two), all taking the same lock. A lost or doubled update fails the count;
/// under `Scripts/test --tsan`, a hand-over the sanitizer did not see would be reported as a race and fail the run
/// (a plain `Mutex` in this loop is reported; `Locked` is not).
@Suite("the app's lock")
struct LockedTests {
    @Test("threads that all contend for one lock lose no update, and each sees the one before")
    func excludes() async {
        final class Shared: Sendable { let state = Locked((count: 0, misordered: 0, last: [Int: Int]())) }
        let shared = Shared()
        let threads = 8, rounds = 20_000
        await withTaskGroup(of: Void.self) { group in
            for thread in 0..<threads {
                group.addTask {
                    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                        Thread.detachNewThread {
                            for round in 0..<rounds {
                                shared.state.withLock { state in
                                    // Each thread's own entries rise one at a time: a holder that saw a stale
                                    // dictionary would write a round out of order.
                                    if state.last[thread, default: -1] != round - 1 { state.misordered += 1 }
                                    state.last[thread] = round
                                    state.count += 1
                                }
                            }
                            done.resume()
                        }
                    }
                }
            }
        }
        let (count, misordered, last) = shared.state.withLock { ($0.count, $0.misordered, $0.last) }
        #expect(count == threads * rounds)
        #expect(misordered == 0)
        #expect(last == Dictionary(uniqueKeysWithValues: (0..<threads).map { ($0, rounds - 1) }))
    }
}
