/// The store's sync lock: only one sync writes at a time, across every process (and host) that shares the store.
///
/// Two syncs at once would both page the source and both write, and two refreshers would each think the other's
/// work their own. The SQLite store holds a file lock beside its file, the PostgreSQL store an advisory lock, the
/// in-memory store a lock in the process.
///
/// An implementation must guarantee: `withSyncLock` runs `body` only while no other holder, in this process or any
/// other, runs a body under the same store's lock; when another holds it, it throws `SyncInProgress` with what the
/// holder said it was (`holder`), without running `body`; the lock is released when `body` returns or throws, and
/// also when the holding process dies, so a crash never leaves it held.
public protocol SyncLocking: Sendable {
    /// Runs `body` holding the store-wide sync lock, or throws `SyncInProgress` if another holds it.
    /// - Parameter holder: who asks, as others will see it (e.g. "api-2 pid 4121").
    func withSyncLock<T: Sendable>(holder: String, _ body: @Sendable () async throws -> T) async throws -> T
}

/// Another process holds the store's sync lock.
public struct SyncInProgress: Error, Sendable, Equatable, CustomStringConvertible {
    /// What the holder said it was, as recorded when it took the lock ("unknown" when it said nothing readable).
    public let holder: String

    /// Creates the error.
    public init(holder: String) { self.holder = holder }

    /// A stable machine-readable code.
    public var code: String { "store.sync-running" }

    public var description: String { "another sync is running on \(holder)" }
}
