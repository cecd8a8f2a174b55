import Foundation
import GRDB
import Synchronization

/// Copies committed pages from the write-ahead log into the database file on a connection and thread of its own,
/// so the writer does not stop for it.
///
/// SQLite's automatic checkpoint runs inside the commit that fills the log past its threshold: the writer copies the
/// log into the file (and syncs both) while every stage of a bulk import or sync waits for it. A passive checkpoint
/// from another connection takes no lock a writer or reader needs, so it runs beside the next batch. The writer's
/// own automatic checkpoint stays on, at a higher threshold, for when this one falls behind or fails.
final class BackgroundCheckpointer: Sendable {
    /// The writer's automatic checkpoint threshold, in pages, while a checkpointer serves it (SQLite's default is
    /// 1,000): a log this long means the checkpointer has fallen behind.
    static let writerThreshold = 4_000

    private struct State {
        var connection: DatabaseQueue?
        var running = false
        var again = false
    }

    private let path: String
    private let state = Mutex(State())
    private let queue = DispatchQueue(label: "bridget.checkpoint", qos: .utility)

    init(path: String) {
        self.path = path
    }

    /// Asks for a checkpoint after a commit. Requests made while one runs are folded into one more run after it.
    func request() {
        let start = state.withLock { state -> Bool in
            if state.running {
                state.again = true
                return false
            }
            state.running = true
            return true
        }
        if start { queue.async { self.run() } }
    }

    private func run() {
        while true {
            // Best effort: a checkpoint that fails leaves its pages to the writer's automatic checkpoint.
            _ = try? connection()?.writeWithoutTransaction { db in try db.checkpoint(.passive) }
            let done = state.withLock { state -> Bool in
                if state.again {
                    state.again = false
                    return false
                }
                state.running = false
                return true
            }
            if done { return }
        }
    }

    /// The checkpointing connection, opened on first use (on the checkpoint queue only).
    private func connection() -> DatabaseQueue? {
        if let open = state.withLock({ $0.connection }) { return open }
        var configuration = Configuration()
        configuration.label = "bridget checkpoint"
        // A passive checkpoint never waits for a lock; anything else this connection does is not wanted.
        configuration.busyMode = .immediateError
        guard let opened = try? DatabaseQueue(path: path, configuration: configuration) else { return nil }
        state.withLock { $0.connection = opened }
        return opened
    }
}
