import Foundation

/// Work of seconds done on a thread of its own: a model's rebuild and a backtest are long runs of arithmetic that,
/// on Swift's cooperative pool (one thread a core), would hold a thread a server's requests and timers need.
enum OwnThread {
    /// The result of `work`, run on a new thread while the calling task waits without holding a pool thread.
    static func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { continuation.resume(with: Result { try work() }) }
        }
    }
}
