import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Work of seconds done on a thread of its own: a model's rebuild and a backtest are long runs of arithmetic that,
/// on Swift's cooperative pool (one thread a core), would hold a thread a server's requests and timers need.
enum OwnThread {
    /// The result of `work`, run on a new thread of lower priority while the calling task waits without holding a
    /// pool thread: on a busy machine, requests and polls come before the analysis, which only takes longer.
    static func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                lowerPriority()
                continuation.resume(with: Result { try work() })
            }
            thread.qualityOfService = .utility
            thread.start()
        }
    }

    /// The calling thread's scheduling priority lowered (Linux: a nice of 10 for this thread only).
    static func lowerPriority() {
        #if canImport(Glibc)
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10)
        #endif
    }
}
