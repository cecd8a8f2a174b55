import BridgetDTOs
import BridgetPersistence
import CSQLiteSettings
import Foundation
import GRDB
import GRDBSQLite
import Synchronization

/// The SQLite store (GRDB over the system libsqlite3): WAL, foreign keys, versioned migrations, and bulk upserts
/// through cached prepared statements, one transaction per batch.
///
/// This file opens it; each part of the store boundary is in `SQLiteBridgeStore+<Part>.swift` (Bridges, Events,
/// ImportCheckpoints, SyncRuns, OpeningModels, Routes, TrafficFlows), its reads and writes in `+Access`.
public final class SQLiteBridgeStore: Sendable {
    /// The database file.
    public let path: String
    /// Whether this store only reads (see `Access.readOnly`).
    public let isReadOnly: Bool
    /// What reads: the writer's pool, or a read-only one until the first write (`Access.readWriteOnFirstWrite`).
    let pool: DatabasePool
    /// The read-write pool, once open (at once, unless `Access.readWriteOnFirstWrite`); `nil` for a read-only store.
    private let writer: Mutex<DatabasePool?>
    /// How the writer opens when the first write comes; `nil` once open, and for a read-only store.
    private let pendingWriter: Configuration?
    /// Checkpoints the log beside bulk writes; `nil` for a read-only store.
    let checkpointer: BackgroundCheckpointer?
    /// The file the path led to when the store opened (`checkReadiness` sees when it is deleted or replaced).
    let identity: FileIdentity?
    /// The file's size at the last readiness look: a store's file only grows (no `auto_vacuum`), so a smaller one
    /// was cut short, or vacuumed (`checkReadiness` tells the two apart).
    let seenSize: Mutex<Int64>
    /// This process's bell for the file: each write rings it after its commit (`changeWakeups()`).
    let bell: ChangeBell

    /// How a store is opened.
    public enum Access: Sendable {
        /// Created if missing and migrated: what every command that writes needs.
        case readWrite
        /// An existing store, read as it is and never written: for reading a store on a read-only disk or folder.
        /// It must already be at this version's schema, since upgrading it would be a write.
        case readOnly
        /// Read-write, but opened for reading and the writer opened by the first write: a command that only reads
        /// writes nothing to open or close the store. (Opened read-write, SQLite's log is set up with a write and
        /// copied into the file when the last connection closes: two commits and four flushes to disk, which made
        /// most of the difference between a `predict` and the process start.) A store that is missing, unmarked
        /// or not at this version's schema is opened read-write at once, as `readWrite` would.
        case readWriteOnFirstWrite
    }

    /// Turns off SQLite's memory statistics for the whole process, which a program that never reads them (as
    /// Bridget's) is better without: they take a global mutex around each of SQLite's allocations and frees. With
    /// them off, a million-row import took about 7% less time and CPU in alternating runs. What goes with them:
    /// `sqlite3_memory_used()` and the soft heap limit's accounting, which Bridget does not use.
    ///
    /// A process-wide setting, so the program decides, not a store: call it first thing in `main`, before any
    /// other thread exists (SQLite's configuration is not safe to change while another thread may be starting
    /// SQLite). Returns whether it took effect: false once SQLite has been used in the process.
    @discardableResult
    public static func disableSQLiteMemoryStatistics() -> Bool {
        bridget_sqlite_disable_memory_statistics() == SQLITE_OK
    }

    /// Bridget's `PRAGMA application_id`, "BRDG" in ASCII: set in a store's header as it is made, so that a SQLite file
    /// of another application is told apart and left alone.
    public static let applicationID: Int32 = 0x4252_4447

    /// Opens the store at `path`. Read-write (the default) creates it and its folder if needed and applies
    /// migrations; read-only opens an existing, current store without writing anything, not even SQLite's
    /// shared-memory file when the store is on a read-only file system.
    ///
    /// Before anything is written, the path is looked at (`StoreFile`): a folder, a device, a file that is not SQLite
    /// or another application's SQLite database is refused and left as it was (`StoreError.isFolder`,
    /// `.notRegularFile`, `.notSQLite`, `.foreign`, `.foreignTables`, `.unverifiableLog`). A store made before Bridget
    /// marked its stores is recognised by its schema and marked when opened read-write.
    ///
    /// Also throws a `StoreError` when the folder cannot be created (`.cannotCreateFolder`) or SQLite fails (`.sqlite`,
    /// with its result code: a damaged file, a folder that cannot be written), or the store was written by a newer
    /// Bridget (`.newer`); read-only, also when there is no store yet (`.missing`) or it needs an upgrade (`.outdated`).
    public init(path: String, busyTimeout: TimeInterval = 10, access: Access = .readWrite) throws {
        self.path = path
        bell = ChangeBell.named(URL(fileURLWithPath: path).resolvingSymlinksInPath().standardizedFileURL.path)
        let contents = try StoreFile.inspect(path)
        var configuration = Configuration()
        configuration.busyMode = .timeout(busyTimeout)
        configuration.foreignKeysEnabled = true
        configuration.label = "bridget"
        configuration.prepareDatabase { db in
            // A new file gets 16 KB pages (SQLite's default is 4 KB): a million-row import then makes 40,000 page
            // writes and 12,000 reads instead of 149,000 and 49,000, and took about 8% less time in alternating runs.
            // A file that exists keeps its page size.
            try db.execute(sql: "PRAGMA page_size = 16384")
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            // The writer: 8 MB of page cache (grown only as used), four times SQLite's default: an import batch's dirty
            // pages stay in memory until its commit instead of spilling into the WAL. 32 MB bought no speed the noise
            // could show, and made a million-row import's peak memory grow with the file. A reader keeps 1 MB: what it
            // reads is in the system's file cache too, and a server's five readers at 8 MB each grew its memory by
            // 40 MB as their caches filled, with no speed to show for it.
            try db.execute(sql: db.configuration.readonly ? "PRAGMA cache_size = -1024" : "PRAGMA cache_size = -8192")
        }
        switch access {
        case .readWriteOnFirstWrite where contents == .marked:
            if let reader = try? Self.openReadOnly(path, configuration) {
                // A store that cannot be written (a read-only disk, a file or folder of another user) is read as it
                // is, as `readOnly` would.
                let writable = Self.canWrite(path)
                pool = reader
                writer = Mutex(nil)
                pendingWriter = writable ? Self.writerConfiguration(configuration, contents: contents) : nil
                checkpointer = writable ? BackgroundCheckpointer(path: path) : nil
                isReadOnly = !writable
                break
            }
            // Not at this version's schema (or not readable as it is): migrated now, as a writer would.
            fallthrough
        case .readWrite, .readWriteOnFirstWrite:
            pool = try Self.openReadWrite(path, Self.writerConfiguration(configuration, contents: contents))
            writer = Mutex(pool)
            pendingWriter = nil
            checkpointer = BackgroundCheckpointer(path: path)
            isReadOnly = false
        case .readOnly:
            guard contents == .marked || contents == .unmarked else {
                throw StoreError.missing(path: path, isEmptyFile: contents != .absent)
            }
            pool = try Self.openReadOnly(path, configuration)
            writer = Mutex(nil)
            pendingWriter = nil
            checkpointer = nil
            isReadOnly = true
        }
        identity = FileIdentity(path: path)
        seenSize = Mutex(identity?.size ?? 0)
    }

    /// The writer's configuration: it marks a file not yet marked, and checkpoints the log at Bridget's threshold.
    private static func writerConfiguration(_ base: Configuration, contents: StoreFile.Contents) -> Configuration {
        var configuration = base
        if contents != .marked {
            // The writer connection marks the file as it opens, before the pool switches it to WAL: a new store then
            // carries the mark in its own header from its first write, where `StoreFile` reads it even when the rest
            // is still in the log. (Readers are read-only and skip it.)
            configuration.prepareDatabase { db in
                guard !db.configuration.readonly else { return }
                try db.execute(sql: "PRAGMA application_id = \(Self.applicationID)")
            }
        }
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA wal_autocheckpoint = \(BackgroundCheckpointer.writerThreshold)")
        }
        return configuration
    }

    /// The pool that writes: open already, or opened now for the first write (`Access.readWriteOnFirstWrite`). A
    /// read-only store's pool, which refuses every write (SQLite's "attempt to write a readonly database").
    func writingPool() throws -> DatabasePool {
        try writer.withLock { writer in
            if let writer { return writer }
            guard let pendingWriter else { return pool }
            let opened = try Self.openReadWrite(path, pendingWriter)
            writer = opened
            return opened
        }
    }

    private static func openReadWrite(_ path: String, _ configuration: Configuration) throws -> DatabasePool {
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw StoreError.cannotCreateFolder(path: folder, reason: error.localizedDescription)
        }
        do {
            let pool = try DatabasePool(path: path, configuration: configuration)
            let migrator = StoreSchema.migrator
            if try pool.read({ db in try migrator.hasBeenSuperseded(db) }) { throw newerStore(path) }
            // Another process may be migrating the same new file (each migration is its own transaction): when ours
            // collides with one it already applied, wait a little and look again, until every migration is in.
            var attempt = 0
            while true {
                do {
                    try migrator.migrate(pool)
                    break
                } catch {
                    if try pool.read({ db in try migrator.hasCompletedMigrations(db) }) { break }
                    attempt += 1
                    guard attempt < 50 else { throw error }
                    usleep(100_000)
                }
            }
            return pool
        } catch let error as StoreError {
            throw error
        } catch {
            throw storeError(error, path: path, action: "open")
        }
    }

    private static func openReadOnly(_ path: String, _ configuration: Configuration) throws -> DatabasePool {
        var configuration = configuration
        configuration.readonly = true
        let migrator = StoreSchema.migrator
        func open(_ location: String) throws -> DatabasePool {
            let pool = try DatabasePool(path: location, configuration: configuration)
            if try pool.read({ db in try migrator.hasBeenSuperseded(db) }) { throw newerStore(path) }
            guard try pool.read({ db in try migrator.hasCompletedMigrations(db) }) else {
                throw StoreError.outdated(path: path)
            }
            return pool
        }
        do {
            do {
                return try open(path)
            } catch let error as DatabaseError where error.resultCode == .SQLITE_CANTOPEN && onReadOnlyDisk(path) {
                // A WAL store on a read-only file system has no shared-memory file and cannot get one, so SQLite
                // cannot open it with its locks. Nothing can write there either, so it is read as immutable, which
                // needs neither. (A folder that only this user cannot write is not enough: its owner may write the
                // store meanwhile, so that case stays an error.) Commits still in the -wal file would be invisible
                // to an immutable read, so such a store is refused instead.
                let log = (try? FileManager.default.attributesOfItem(atPath: path + "-wal"))?[.size] as? Int ?? 0
                guard log == 0 else {
                    throw StoreError.logOnReadOnlyDisk(path: path)
                }
                return try open(StoreFile.immutableURI(path))
            }
        } catch let error as StoreError {
            throw error
        } catch {
            throw storeError(error, path: path, action: "open")
        }
    }

    /// Whether this process may write the file at `path`, its folder (the log and its index go there) and the file
    /// system holding them.
    private static func canWrite(_ path: String) -> Bool {
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        return access(path, W_OK) == 0 && access(folder, W_OK) == 0 && !onReadOnlyDisk(path)
    }

    /// Whether the file system holding `path` is mounted read-only.
    private static func onReadOnlyDisk(_ path: String) -> Bool {
        var status = statvfs()
        guard statvfs(path, &status) == 0 else { return false }
        return status.f_flag & UInt(ST_RDONLY) != 0
    }

    private static func newerStore(_ path: String) -> StoreError { .newer(path: path) }
}

extension SQLiteBridgeStore: BridgeStore {
    public func bridgeActivity() async throws -> [BridgeActivity] {
        try await read("summarise bridges") { db in
            try Row.fetchAll(db, sql: """
                SELECT b.*, count(e.opened_at) AS openings, max(e.opened_at) AS last_opening
                FROM bridges b LEFT JOIN events e ON e.bridge_id = b.id
                GROUP BY b.id ORDER BY CAST(b.id AS INTEGER), b.id
                """).map { row in
                BridgeActivity(
                    bridge: Self.bridge(row), openings: row["openings"],
                    lastOpening: (row["last_opening"] as String?).flatMap(StoredTimestamp.date))
            }
        }
    }
}

extension SQLiteBridgeStore: StoreHealth {
    /// Runs SQLite's `PRAGMA integrity_check`; returns "ok" for a sound file.
    public func integrityCheck() async throws -> String {
        try await read("check integrity") { db in
            try String.fetchAll(db, sql: "PRAGMA integrity_check").joined(separator: "\n")
        }
    }

    /// Copies the write-ahead log into the file and empties the log, so the file alone holds every committed row (to
    /// copy it whole, say). Waits for readers of older rows to finish.
    public func checkpoint() async throws {
        try await translatingErrors("copy the log into the file") {
            // A checkpoint that meets another (the background checkpointer's, after a write) is refused at once,
            // without SQLite's busy wait: tried again until the other ends, for up to 10 s.
            let deadline = ContinuousClock.now + .seconds(10)
            while true {
                do {
                    _ = try await writingPool().writeWithoutTransaction { db in try db.checkpoint(.truncate) }
                    return
                } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY
                    && ContinuousClock.now < deadline
                {
                    try await Task.sleep(for: .milliseconds(20))
                }
            }
        }
    }
}
