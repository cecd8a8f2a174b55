import BridgetPersistence
import Foundation
import GRDB
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file as the system knows it: the device and inode a path led to, and its size. Read with `stat`, never by
/// opening the file: closing a descriptor of a database file drops every POSIX lock this process's SQLite holds on
/// it, and another process would then take this one's connections for gone (and, say, delete the log they read).
struct FileIdentity: Sendable, Equatable {
    let device: UInt64
    let inode: UInt64
    let size: Int64

    /// The file at `path` now, or `nil` when there is none.
    init?(path: String) {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        device = UInt64(status.st_dev)
        inode = UInt64(status.st_ino)
        size = Int64(status.st_size)
    }

    /// Whether the path still leads to the same file (its size may have changed).
    func isSameFile(as other: FileIdentity) -> Bool { device == other.device && inode == other.inode }
}

extension SQLiteBridgeStore {
    /// Ready when the path still leads to the file opened (not deleted, not replaced by another), a query answers, and
    /// the file holds every page the database has. A file cut short with every row in it fails the query (SQLite
    /// compares the pages its header counts with the file's); one cut short while rows wait in the log is seen by its
    /// size: the file only grows, so when it shrank, the pages SQLite counts must still fit in it (they do after a
    /// `VACUUM`, which is then taken as the new size).
    public func checkReadiness() async throws {
        guard let now = FileIdentity(path: path) else { throw StoreError.replaced(path: path, gone: true) }
        if let opened = identity, !opened.isSameFile(as: now) { throw StoreError.replaced(path: path, gone: false) }
        _ = try await historyVersion()
        guard now.size < seenSize.withLock({ $0 }) else {
            seenSize.withLock { $0 = max($0, now.size) }
            return
        }
        let needed = try await read("check the file") { db in
            let pages = try Int64.fetchOne(db, sql: "PRAGMA page_count") ?? 0
            let size = try Int64.fetchOne(db, sql: "PRAGMA page_size") ?? 0
            return pages * size
        }
        guard needed <= now.size else {
            throw StoreError.sqlite(path: path, action: "check the file", resultCode: 11,
                                    message: "the file holds \(now.size) bytes where its pages need \(needed)")
        }
        seenSize.withLock { $0 = now.size }
    }
}
