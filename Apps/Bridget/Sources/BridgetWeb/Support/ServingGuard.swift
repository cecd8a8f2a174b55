import BridgetContext
import BridgetCore
import BridgetPersistence
import Foundation

/// How the server's handlers call the store (`ReopeningStore.guarded(by:)`):
///
/// - **a deadline on every call** (`deadline`): a store that does not answer in time is `StoreError.timedOut`, which
///   the server answers 503 with `Retry-After`, instead of a request that hangs as long as a database's connection
///   attempts. A fold of the whole history may take longer as long as pages keep coming: its deadline is between
///   pages. The call itself is cancelled and left to end on its own;
/// - **a short cool-down** after the store was found down (an error whose row in the error table is an `outage`:
///   timed out, unreachable): for `coolDown`, calls fail at once with that error instead of each waiting out the
///   deadline, so an outage under load answers in milliseconds and does not pile up waiting calls; the first call
///   after it tries the store again, so it recovers by itself.
package final class ServingGuard: StoreCallGuard {
    /// Since when, and with what error, calls fail at once.
    private struct Down {
        var until: ContinuousClock.Instant
        var error: any Error
    }

    /// The longest a call may take (between two pages, for a fold).
    package let deadline: Duration
    package let coolDown: Duration
    /// How the store is named in errors.
    private let name: String
    private let down = Locked<Down?>(nil)

    package init(deadline: Duration, coolDown: Duration = .seconds(1), name: String) {
        self.deadline = deadline
        self.coolDown = coolDown
        self.name = name
    }

    package func checkAvailable() throws {
        if let down = down.withLock({ $0 }), ContinuousClock.now < down.until { throw down.error }
    }

    package func run<T: Sendable>(_ action: String,
                                  _ work: @escaping @Sendable (_ advanced: @escaping @Sendable () -> Void) async throws -> T)
        async throws -> T
    {
        let progress = ProgressMark()
        let (name, deadline) = (name, deadline)
        do {
            return try await Deadline.within(deadline, progress: progress, timeout: {
                StoreError.timedOut(store: name, action: action, seconds: Self.seconds(deadline))
            }) {
                try await work { progress.advance() }
            }
        } catch {
            if ErrorPresentation(error)?.disposition.outage == true {
                let until = ContinuousClock.now + coolDown
                down.withLock { $0 = Down(until: until, error: error) }
            }
            throw error
        }
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
