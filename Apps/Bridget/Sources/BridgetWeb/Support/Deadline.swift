import BridgetCore

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
        let watched = DeadlineWatch.shared.watch(deadline, progress: progress) {
            if outcome.finish(with: .failure(timeout())) { worker.cancel() }
        }
        defer { DeadlineWatch.shared.forget(watched) }
        return try await withTaskCancellationHandler {
            try await outcome.value()
        } onCancel: {
            worker.cancel()
        }
    }
}

/// Every deadline of the process under one watcher that looks a tick apart, rather than a timer and a task a call:
/// a store call of a busy server costs no more than the call. A deadline is kept to within a tick.
final class DeadlineWatch: Sendable {
    static let shared = DeadlineWatch(tick: .milliseconds(100))

    private struct Watched {
        var until: ContinuousClock.Instant
        let deadline: Duration
        let progress: ProgressMark?
        var last: Int
        let expire: @Sendable () -> Void
    }

    private let tick: Duration
    private let state = Locked<(watched: [Int: Watched], next: Int, looking: Bool)>(([:], 0, false))

    init(tick: Duration) { self.tick = tick }

    /// Calls `expire` once `deadline` passes (with `progress`, once it passes with no progress), unless forgotten
    /// first; the watcher runs while anything is watched.
    func watch(_ deadline: Duration, progress: ProgressMark?, expire: @escaping @Sendable () -> Void) -> Int {
        let entry = Watched(until: .now + deadline, deadline: deadline, progress: progress, last: progress?.count ?? 0,
                            expire: expire)
        let (id, start) = state.withLock { state in
            let id = state.next
            state.next += 1
            state.watched[id] = entry
            defer { state.looking = true }
            return (id, !state.looking)
        }
        if start { Task.detached { await self.look() } }
        return id
    }

    func forget(_ id: Int) { state.withLock { _ = $0.watched.removeValue(forKey: id) } }

    private func look() async {
        while true {
            try? await Task.sleep(for: tick)
            let now = ContinuousClock.now
            let (due, more): ([@Sendable () -> Void], Bool) = state.withLock { state in
                var due: [@Sendable () -> Void] = []
                for (id, var entry) in state.watched where now >= entry.until {
                    if let progress = entry.progress, progress.count != entry.last { // it moved: another deadline
                        entry.last = progress.count
                        entry.until = now + entry.deadline
                        state.watched[id] = entry
                    } else {
                        due.append(entry.expire)
                        state.watched[id] = nil
                    }
                }
                if state.watched.isEmpty { state.looking = false }
                return (due, state.looking)
            }
            for expire in due { expire() }
            if !more { return }
        }
    }
}

/// A count a long call advances as it makes progress (a fold's pages), for a deadline between steps.
package final class ProgressMark: Sendable {
    private let value = Locked(0)

    package init() {}

    package var count: Int { value.withLock { $0 } }

    package func advance() { value.withLock { $0 += 1 } }
}

/// The first of a work's result and its timeout, handed to one waiter.
private final class Outcome<T: Sendable>: Sendable {
    private let state = Locked<(result: Result<T, any Error>?, waiter: CheckedContinuation<T, any Error>?)>((nil, nil))

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
