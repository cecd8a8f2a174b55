import Synchronization

/// A deadline on work that may not heed it: the caller is answered in time whether or not the work ends.
package enum Deadline {
    /// `work`'s result, or `timeout()`'s error once `deadline` passes (with `progress`, once it passes with no
    /// progress reported); `work` is then cancelled and left to end on its own, so the caller is answered in time
    /// whether or not the work heeds cancellation.
    package static func within<T: Sendable>(
        _ deadline: Duration, progress: ProgressMark?, timeout: @escaping @Sendable () -> any Error,
        _ work: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        let outcome = Outcome<T>()
        let worker = Task {
            do {
                outcome.finish(with: .success(try await work()))
            } catch {
                outcome.finish(with: .failure(error))
            }
        }
        let watcher = Task {
            var last = progress?.count ?? 0
            var until = ContinuousClock.now + deadline
            while !Task.isCancelled {
                try? await Task.sleep(until: until, clock: .continuous)
                guard !Task.isCancelled else { return }
                if let progress, progress.count != last { // it moved: another `deadline` from now
                    last = progress.count
                    until = ContinuousClock.now + deadline
                    continue
                }
                if outcome.finish(with: .failure(timeout())) { worker.cancel() }
                return
            }
        }
        defer { watcher.cancel() }
        return try await withTaskCancellationHandler {
            try await outcome.value()
        } onCancel: {
            worker.cancel()
        }
    }
}

/// A count a long call advances as it makes progress (a fold's pages), for a deadline between steps.
package final class ProgressMark: Sendable {
    private let value = Mutex(0)

    package init() {}

    package var count: Int { value.withLock { $0 } }

    package func advance() { value.withLock { $0 += 1 } }
}

/// The first of a work's result and its timeout, handed to one waiter.
private final class Outcome<T: Sendable>: Sendable {
    private let state = Mutex<(result: Result<T, any Error>?, waiter: CheckedContinuation<T, any Error>?)>((nil, nil))

    /// Records `result` unless one was recorded; true when this one was.
    @discardableResult
    func finish(with result: Result<T, any Error>) -> Bool {
        let (first, waiter): (Bool, CheckedContinuation<T, any Error>?) = state.withLock { state in
            guard state.result == nil else { return (false, nil) }
            state.result = result
            let waiter = state.waiter
            state.waiter = nil
            return (true, waiter)
        }
        waiter?.resume(with: result)
        return first
    }

    func value() async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let ready: Result<T, any Error>? = state.withLock { state in
                if let result = state.result { return result }
                state.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(with: ready) }
        }
    }
}
