import Dispatch
import Foundation

/// Runs work that Ctrl-C (SIGINT) or SIGTERM should cancel rather than kill: the work sees a cancelled task, the
/// batch in flight is rolled back whole, committed batches stay, the run is recorded, and the command exits 130.
func cancellingOnInterrupt<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) async throws -> T {
    let task = Task { try await work() }
    let sources = [SIGINT, SIGTERM].map { number in
        signal(number, SIG_IGN) // the dispatch source receives it instead of the default handler
        let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
        source.setEventHandler {
            Terminal.writeError("\ninterrupted: stopping; batches already committed are kept\n")
            task.cancel()
        }
        source.resume()
        return source
    }
    defer {
        for source in sources { source.cancel() }
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }
    return try await task.value
}
