import BridgetPersistence
import Foundation
import GRDB
import GRDBSQLite

/// What lies at a store path, judged before the store opens it. Opening a store writes at once (the switch to WAL,
/// the migrations, the checkpointer's connection), so whatever is not a Bridget store must be refused before, and
/// left exactly as it was: another application's database, a folder, a device, a file that is not SQLite.
///
/// Bridget marks its stores with SQLite's `PRAGMA application_id` (`SQLiteBridgeStore.applicationID`), written into
/// the file's header as the store is made. A store made before the mark has `application_id` 0, as has every
/// database whose application never set one; it is recognised by its schema (see `classify`) and marked when next
/// opened read-write.
///
/// Looking never writes: the header is read as bytes, and the schema through a read-only connection that is either
/// `immutable` (when no one has the database open: no lock, no file made beside it) or, when the database's log and
/// its shared-memory index are already there, an ordinary read-only one (which sees the commits still in the log and
/// makes no new file; it may update the index, which is SQLite's memory, not the database).
enum StoreFile {
    /// What the path holds, when the store may open it.
    enum Contents: Equatable {
        /// Nothing: a store is made there (read-write only).
        case absent
        /// An empty file, or a SQLite database with no table: it becomes a store, marked as it is made.
        case empty
        /// A Bridget store, marked.
        case marked
        /// A Bridget store made before the mark: marked when next opened read-write.
        case unmarked
    }

    /// Looks at `path`; throws a `StoreError` naming what is there when it is not a Bridget store or cannot be one.
    static func inspect(_ path: String) throws -> Contents {
        var status = stat()
        guard stat(path, &status) == 0 else {
            // Under a file (ENOTDIR) is nothing either: making the folder then says what is in the way.
            if errno == ENOENT || errno == ENOTDIR { return .absent }
            throw unreadable(path, String(cString: strerror(errno)))
        }
        let kind = status.st_mode & S_IFMT
        guard kind == S_IFREG else {
            if kind == S_IFDIR {
                throw StoreError.isFolder(path: path)
            }
            let what = switch kind {
            case S_IFCHR: "character device"
            case S_IFBLK: "block device"
            case S_IFIFO: "named pipe"
            case S_IFSOCK: "socket"
            default: "special file"
            }
            throw StoreError.notRegularFile(path: path, kind: what)
        }
        guard status.st_size > 0 else { return .empty }
        let header = try SQLiteHeader(path)
        let log = path + "-wal"
        let logSize = ((try? FileManager.default.attributesOfItem(atPath: log))?[.size] as? Int) ?? -1
        let schema: Schema
        if logSize >= 0, FileManager.default.fileExists(atPath: path + "-shm") {
            // The database may be open elsewhere, and its latest commits (the mark included) may be in its log, which
            // the header does not show: read it with locks, as any reader would. The log and its index are there
            // already, so no file is made.
            schema = try Schema(path, path: path)
        } else {
            // No one has the database open in WAL mode (an open one has its index beside it): the header is the
            // file's own, and unless a log is left over, the file is the whole database.
            if header.applicationID == SQLiteBridgeStore.applicationID { return .marked }
            guard header.applicationID == 0 else { throw foreign(path, applicationID: header.applicationID) }
            guard logSize <= 0 else { throw StoreError.unverifiableLog(path: path) }
            // Immutable: no lock, and no -wal or -shm made beside it.
            schema = try Schema(immutableURI(path), path: path)
        }
        if schema.applicationID == SQLiteBridgeStore.applicationID { return .marked }
        guard schema.applicationID == 0 else { throw foreign(path, applicationID: schema.applicationID) }
        return try classify(schema, path: path)
    }

    /// Decides about a database without Bridget's mark.
    ///
    /// A store made before the mark is recognised safely by what only Bridget puts there together: GRDB's
    /// `grdb_migrations` table listing nothing but Bridget's own migration identifiers ("v1: bridges, events, sync
    /// runs", …), no `user_version` (GRDB and Bridget never set one), and no table that Bridget's migrations do not
    /// make. A table named like one of Bridget's (`events`) is not enough, and a table Bridget does not know means
    /// data that is not Bridget's, which opening must not touch. Indexes, views and triggers a user added to their
    /// own store hold no data of their own and are kept.
    private static func classify(_ schema: Schema, path: String) throws -> Contents {
        let tables = schema.tables.filter { !$0.hasPrefix("sqlite_") }
        if tables.isEmpty, schema.userVersion == 0 { return .empty }
        let migrations = schema.migrations ?? []
        let ours = Set(StoreSchema.migrator.migrations)
        let foreignTables = tables.filter { !StoreSchema.tableNames.contains($0) }
        let bridgetMigrations = schema.migrations != nil && Set(migrations).isSubset(of: ours)
        if bridgetMigrations, schema.userVersion == 0 {
            if foreignTables.isEmpty { return .unmarked }
            throw StoreError.foreignTables(path: path, tables: foreignTables)
        }
        throw StoreError.foreign(path: path, applicationID: 0, userVersion: schema.userVersion, tables: tables)
    }

    /// Another application's database, known by its `application_id` alone.
    private static func foreign(_ path: String, applicationID: Int32) -> StoreError {
        .foreign(path: path, applicationID: applicationID, userVersion: 0, tables: [])
    }

    static func unreadable(_ path: String, _ reason: String) -> StoreError {
        .unreadable(path: path, reason: reason)
    }

    /// An `immutable` URI for `path`: SQLite reads the file with no lock and no file made beside it, and ignores
    /// its log, so only for a file nothing else can be writing.
    static func immutableURI(_ path: String) -> String {
        var components = URLComponents()
        components.scheme = "file"
        components.path = URL(fileURLWithPath: path).path
        components.queryItems = [URLQueryItem(name: "immutable", value: "1")]
        return components.string ?? path
    }
}

extension StoreFile {
    /// Whose a database is and what tables it holds, read without writing.
    struct Schema {
        var applicationID: Int32
        var userVersion: Int64
        var tables: [String]
        /// The identifiers in `grdb_migrations`; `nil` when there is no such table.
        var migrations: [String]?

        /// Reads the database at `location` (a path, or an `immutable` URI) of the store at `path`.
        init(_ location: String, path: String) throws {
            do {
                let connection = try ReadOnlyConnection(location)
                applicationID = Int32(truncatingIfNeeded: try connection.integers("PRAGMA application_id").first ?? 0)
                userVersion = try connection.integers("PRAGMA user_version").first ?? 0
                tables = try connection.texts("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
                migrations = tables.contains("grdb_migrations")
                    ? try connection.texts("SELECT identifier FROM grdb_migrations") : nil
            } catch let error as DatabaseError {
                throw SQLiteBridgeStore.storeError(error, path: path, action: "open")
            }
        }
    }

    /// A plain SQLite connection that only reads: SQLite's C API, so that nothing runs but the queries asked for.
    private final class ReadOnlyConnection {
        private var handle: OpaquePointer?

        init(_ location: String) throws {
            let code = sqlite3_open_v2(location, &handle, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nil)
            guard code == SQLITE_OK, handle != nil else {
                let message = handle.map { String(cString: sqlite3_errmsg($0)) }
                sqlite3_close_v2(handle)
                handle = nil
                throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message)
            }
            sqlite3_busy_timeout(handle, 10_000)
        }

        deinit { sqlite3_close_v2(handle) }

        func texts(_ sql: String) throws -> [String] {
            try rows(sql) { statement in
                sqlite3_column_text(statement, 0).map { String(cString: $0) } ?? ""
            }
        }

        func integers(_ sql: String) throws -> [Int64] {
            try rows(sql) { statement in sqlite3_column_int64(statement, 0) }
        }

        private func rows<T>(_ sql: String, _ value: (OpaquePointer) -> T) throws -> [T] {
            var statement: OpaquePointer?
            var code = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
            defer { sqlite3_finalize(statement) }
            var values: [T] = []
            while code == SQLITE_OK, let statement {
                let step = sqlite3_step(statement)
                if step == SQLITE_DONE { return values }
                guard step == SQLITE_ROW else {
                    code = step
                    break
                }
                values.append(value(statement))
            }
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(handle)),
                                sql: sql)
        }
    }
}
