import Foundation

extension Process {
    /// Starts the process and waits for it to exit without holding a thread. `waitUntilExit()` blocks the thread it
    /// runs on, and a test's thread is one of the few cooperative threads the whole test process shares (two on a
    /// 2-core machine): two tests waiting on `bridget` that way left the suite's in-process HTTP servers no thread to
    /// answer on, and their clients timed out.
    func runToExit() async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            terminationHandler = { _ in continuation.resume() }
            do {
                try run()
            } catch {
                terminationHandler = nil
                continuation.resume(throwing: error)
            }
        }
    }

    /// Waits for a process already started to exit, without holding a thread (see `runToExit()`).
    func exited() async {
        while isRunning { try? await Task.sleep(for: .milliseconds(10)) }
        waitUntilExit() // returns at once: the process has exited; Foundation's status is final after it
    }
}

/// Turns for child processes: at most two per core run at a time. Waiting for one no longer holds a thread, so
/// nothing else bounds how many the suite's tests start together, and dozens at once on two cores made the tests
/// that bound a duration (a refresher's shutdown, a config file's check) fail on load alone; one per core left the
/// cores idle while a turn's process waited (on a server, a timeout, a child of its own).
actor ProcessTurns {
    static let shared = ProcessTurns(count: 2 * max(ProcessInfo.processInfo.activeProcessorCount, 2))

    private var free: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(count: Int) { free = count }

    /// Runs `work` in a turn, waiting for one without holding a thread; a turn ended is handed to the next waiter.
    func run<T: Sendable>(_ work: @Sendable () async throws -> T) async throws -> T {
        if free > 0 {
            free -= 1
        } else {
            await withCheckedContinuation { waiting.append($0) }
        }
        defer { if waiting.isEmpty { free += 1 } else { waiting.removeFirst().resume() } }
        return try await work()
    }
}
