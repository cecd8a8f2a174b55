import BridgetPersistence
import Foundation
import GRDB
import Synchronization

/// Copies committed pages from the write-ahead log into the database file on a connection and thread of its own,
/// so the writer does not stop for it.
///
/// SQLite's automatic checkpoint runs inside the commit that fills the log past its threshold: the writer copies the
/// log into the file (and syncs both) while every stage of a bulk import or sync waits for it. A passive checkpoint
/// from another connection never waits for a lock and blocks neither the writer nor readers, so it runs beside the
/// next batch. The writer's own automatic checkpoint stays on, at a higher threshold, for when this one falls behind
/// or fails.
final class BackgroundCheckpointer: Sendable {
    /// The writer's automatic checkpoint threshold, in pages, while a checkpointer serves it (SQLite's default is
    /// 1,000): a log this long means the checkpointer has fallen behind.
    static let writerThreshold = 4_000

    private struct State {
        var connection: DatabaseQueue?
        var running = false
        var again = false

        /// A request: whether it starts a run (else the run under way goes once more).
        mutating func begin() -> Bool {
            again = running
            running = true
            return !again
        }

        /// The end of a run: whether the checkpointer is done (else it runs once more for requests made meanwhile).
        mutating func finish() -> Bool {
            running = again
            again = false
            return !running
        }
    }

    private let path: String
    private let state = Mutex(State())
    private let queue = DispatchQueue(label: "bridget.checkpoint", qos: .utility)

    init(path: String) {
        self.path = path
    }

    /// Asks for a checkpoint after a commit. Requests made while one runs are folded into one more run after it.
    func request() {
        if state.withLock({ $0.begin() }) { queue.async { self.run() } }
    }

    private func run() {
        while true {
            // Best effort: a checkpoint that fails leaves its pages to the writer's automatic checkpoint.
            _ = try? connection()?.writeWithoutTransaction { db in try db.checkpoint(.passive) }
            if state.withLock({ $0.finish() }) { return }
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
