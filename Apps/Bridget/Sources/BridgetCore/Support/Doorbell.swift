/// A wait that ends at a ring or after a while, whichever comes first: how a reader of the change log polls, woken
/// early when the store says a commit came (`ChangeLogStore.changeWakeups()`). A ring while nobody waits is kept (one),
/// so the next wait returns at once and no commit is slept through. One waiter at a time: its owner's loop (the
/// stream's hub, a follower, the alert deliverer, which a new change nudges).
package final class Doorbell: Sendable {
    private struct State {
        var rung = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Locked(State())

    package init() {}

    /// Ends the wait under way, or the next one.
    package func ring() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard let waiter = state.waiter else {
                state.rung = true
                return nil
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume()
    }

    /// Returns at a ring (at once when one came since the last wait), after `timeout`, or when the task is cancelled.
    package func wait(upTo timeout: Duration) async {
        let timer = Task { [weak self] in
            try? await Task.sleep(for: timeout)
            if !Task.isCancelled { self?.ring() }
        }
        defer { timer.cancel() }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let now = state.withLock { state -> Bool in
                    if state.rung {
                        state.rung = false
                        return true
                    }
                    state.waiter = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            ring()
        }
    }

    /// Rings at each of `wakeups` until they end or the returned task is cancelled.
    package func listen(to wakeups: AsyncStream<Void>) -> Task<Void, Never> {
        Task { [weak self] in
            for await _ in wakeups { self?.ring() }
        }
    }
}
