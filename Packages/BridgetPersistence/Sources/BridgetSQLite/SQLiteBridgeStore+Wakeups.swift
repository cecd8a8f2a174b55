import BridgetPersistence
import Foundation

// The change log's wake-ups (`ChangeLogStore.changeWakeups()`).
extension SQLiteBridgeStore {
    /// How often the log file is looked at for another process's commits.
    static let logLookInterval: Duration = .milliseconds(10)

    /// A write through this process wakes the readers at its commit (the store's bell, which every instance of the
    /// file in the process shares). Another process's commit is seen by its mark on the log file: the `-wal` file's
    /// size, time or identity changes with every commit, and a `stat` of it each `logLookInterval` costs no SQLite
    /// lock and no read. A look can find a write that has not committed yet (a reader then reads nothing new and
    /// wakes again at the commit's own mark).
    public func changeWakeups() -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        // The log's mark before the bell's first wake-up (the reader's "listening"): a commit after it is seen.
        let log = path + "-wal"
        let first = LogMark(log)
        let own = bell.wakeups()
        let task = Task {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { for await _ in own { continuation.yield() } }
                group.addTask {
                    var seen = first
                    while !Task.isCancelled {
                        try? await Task.sleep(for: Self.logLookInterval)
                        let now = LogMark(log)
                        if now != seen {
                            seen = now
                            continuation.yield()
                        }
                    }
                }
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }
}

/// What a `stat` of the log file says of it: a commit changes its size or its time (a reset log is rewritten from
/// its start), a log made again its identity.
struct LogMark: Equatable {
    let size: Int64
    let modified: Date?
    let file: Int?

    init(_ path: String) {
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        size = (attributes?[.size] as? NSNumber)?.int64Value ?? -1
        modified = attributes?[.modificationDate] as? Date
        file = (attributes?[.systemFileNumber] as? NSNumber)?.intValue
    }
}
