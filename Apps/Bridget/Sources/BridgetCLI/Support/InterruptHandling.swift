import BridgetCore
import Dispatch
import Foundation

/// Runs work that Ctrl-C (SIGINT) or SIGTERM should cancel rather than kill: the work sees a cancelled task, a batch
/// is written whole or not at all, committed batches stay, the run is recorded, and the command exits 130.
func cancellingOnInterrupt<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) async throws -> T {
    try await cancelling(on: [SIGINT, SIGTERM], saying: { _ in "\ninterrupted: stopping; batches already committed are kept\n" },
                         work)
}

/// Runs `work` until it ends or one of `signals` comes, which cancels it (after `saying` the signal's line on
/// standard error). With a `drain`, the process ends (exit 0) if the work is still running that long after the
/// signal and a second more: a stop request is never ignored.
func cancelling<T: Sendable>(on signals: [Int32], saying: @escaping @Sendable (Int32) -> String, drain: Duration? = nil,
                             _ work: @escaping @Sendable () async throws -> T) async throws -> T {
    let task = Task { try await work() }
    let sources = signals.map { number in
        signal(number, SIG_IGN) // the dispatch source receives it instead of the default handler
        let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
        source.setEventHandler {
            Terminal.writeError(saying(number))
            task.cancel()
            if let drain {
                let seconds = Double(drain.components.seconds) + Double(drain.components.attoseconds) / 1e18 + 1
                DispatchQueue.global().asyncAfter(deadline: .now() + seconds) {
                    Terminal.writeError("drain limit reached: stopping now\n")
                    exit(ErrorTable.ok)
                }
            }
        }
        source.resume()
        return source
    }
    defer {
        for source in sources { source.cancel() }
        for number in signals { signal(number, SIG_DFL) }
    }
    return try await task.value
}
