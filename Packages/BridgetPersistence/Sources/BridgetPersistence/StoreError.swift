import Foundation

/// Why a store could not be opened, read or written: the facts (the path, what lies there, the SQLite result code and
/// message), in a sentence `description` gives. What a user should do about it, and with which exit status, is for
/// the application to say: it knows how its store is configured, this package does not.
///
/// Every case has a stable `code` (`store.corrupt`, `store.busy`, …) that an application can show or use as a
/// problem type.
public enum StoreError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
    // MARK: What lies at the path

    /// Read-only, and there is no store at the path (nothing, or an empty file).
    case missing(path: String, isEmptyFile: Bool)
    /// The path is a folder.
    case isFolder(path: String)
    /// The path is not a regular file: `kind` names it ("character device", "named pipe", …).
    case notRegularFile(path: String, kind: String)
    /// The file does not begin with SQLite's header: not a Bridget store, or a damaged one.
    case notSQLite(path: String)
    /// Another application's SQLite database: its `application_id`, `user_version` (0 when not read) and tables
    /// (empty when not read).
    case foreign(path: String, applicationID: Int32, userVersion: Int64, tables: [String])
    /// Bridget's tables and also tables Bridget does not make (`tables`): not known as a Bridget store.
    case foreignTables(path: String, tables: [String])
    /// A database without Bridget's mark whose commits are still in its write-ahead log, with no shared-memory index
    /// beside it: what it holds cannot be read without writing there.
    case unverifiableLog(path: String)
    /// The path or its header cannot be read (permissions), with the system's reason.
    case unreadable(path: String, reason: String)
    /// The store's folder cannot be created, with the system's reason.
    case cannotCreateFolder(path: String, reason: String)

    // MARK: Versions and access

    /// Written by a newer version of Bridget: never rewritten.
    case newer(path: String)
    /// Read-only, and the store needs a migration, which cannot be written.
    case outdated(path: String)
    /// Read-only on a read-only disk, with commits still in the write-ahead log, which cannot be read without writing.
    case logOnReadOnlyDisk(path: String)
    /// SQLite failed while doing `action` ("open", "write events", …): its extended result code and message.
    case sqlite(path: String, action: String, resultCode: Int32, message: String)
    /// Another failure while doing `action`, with its description.
    case failed(path: String, action: String, reason: String)
    /// The store's file was deleted (`gone`) or another file put at its path since it was opened: what it serves is
    /// no longer what the path holds.
    case replaced(path: String, gone: Bool)
    /// The store did not answer `action` within `seconds` (a caller's deadline; it may still be working).
    case timedOut(store: String, action: String, seconds: Double)

    // MARK: What is stored

    /// A stored event that cannot be read back: what is wrong with it ("an unreadable opened_at '…'").
    case corruptEvent(detail: String)
    /// A stored route whose crossings cannot be read.
    case corruptRoute(name: String)
    /// A stored opening model without its full week of slots.
    case corruptModel(bridgeID: String, slots: Int)
    /// A batch naming a bridge the catalog lacks: refused whole.
    case orphan(Orphan, bridgeID: String)
    /// No sync run with the id to finish.
    case noSyncRun(id: Int64)
    /// An instant no store keeps (not a number, infinite, or outside the years 0 to 9999), refused before it is
    /// written: `what` says whose it is.
    case invalidInstant(what: String)
    /// A write of the live state feed's sight by a process that does not hold the feed's lease (another took it
    /// over, or it ran out): nothing was written.
    case notLiveFeedHolder(holder: String?)

    /// What names a bridge the catalog lacks.
    public enum Orphan: String, Sendable, Equatable {
        case event
        case model
        case traffic
    }

    /// How SQLite failed, by its primary result code.
    public enum SQLiteFailure: Sendable, Equatable {
        /// Not a database, or a damaged one (`SQLITE_NOTADB`, `SQLITE_CORRUPT`).
        case corrupt
        /// Cannot be opened or written (`SQLITE_READONLY`, `SQLITE_CANTOPEN`, `SQLITE_PERM`).
        case unwritable
        /// The disk is full or failed (`SQLITE_FULL`, `SQLITE_IOERR`).
        case io
        /// Locked by another connection past the busy timeout (`SQLITE_BUSY`, `SQLITE_LOCKED`).
        case busy
        /// Anything else.
        case other

        /// SQLite's primary result codes, which its C API fixes for good (sqlite.org/rescode.html); named here so the
        /// protocols' module needs no SQLite of its own.
        init(resultCode: Int32) {
            switch resultCode & 0xFF {
            case 26 /* SQLITE_NOTADB */, 11 /* SQLITE_CORRUPT */: self = .corrupt
            case 8 /* SQLITE_READONLY */, 14 /* SQLITE_CANTOPEN */, 3 /* SQLITE_PERM */: self = .unwritable
            case 13 /* SQLITE_FULL */, 10 /* SQLITE_IOERR */: self = .io
            case 5 /* SQLITE_BUSY */, 6 /* SQLITE_LOCKED */: self = .busy
            default: self = .other
            }
        }
    }

    /// For a `sqlite` failure, what kind it is; otherwise `nil`.
    public var sqliteFailure: SQLiteFailure? {
        guard case .sqlite(_, _, let resultCode, _) = self else { return nil }
        return SQLiteFailure(resultCode: resultCode)
    }

    /// A stable machine-readable code, e.g. `store.corrupt`.
    public var code: String {
        switch self {
        case .missing: "store.missing"
        case .isFolder: "store.is-folder"
        case .notRegularFile: "store.not-file"
        case .notSQLite: "store.not-sqlite"
        case .foreign, .foreignTables: "store.foreign"
        case .unverifiableLog: "store.unverifiable"
        case .unreadable: "store.unreadable"
        case .cannotCreateFolder: "store.folder"
        case .newer: "store.newer"
        case .outdated: "store.outdated"
        case .logOnReadOnlyDisk: "store.log-on-read-only-disk"
        case .sqlite:
            switch sqliteFailure ?? .other {
            case .corrupt: "store.corrupt"
            case .unwritable: "store.unwritable"
            case .io: "store.io"
            case .busy: "store.busy"
            case .other: "store.sqlite"
            }
        case .failed: "store.failed"
        case .replaced: "store.replaced"
        case .timedOut: "store.timeout"
        case .corruptEvent, .corruptRoute, .corruptModel: "store.corrupt"
        case .orphan: "store.orphan"
        case .noSyncRun: "store.no-run"
        case .invalidInstant: "store.invalid-instant"
        case .notLiveFeedHolder: "store.live-lease-lost"
        }
    }

    public var description: String {
        switch self {
        case .missing(let path, let isEmptyFile):
            "there is no store at \(path) to read" + (isEmptyFile ? " (the file is empty)" : "")
        case .isFolder(let path):
            "the store path \(path) is a folder, not a file"
        case .notRegularFile(let path, let kind):
            "the store path \(path) is a \(kind), not a regular file"
        case .notSQLite(let path):
            "the store at \(path) is not a SQLite database (it does not begin with SQLite's header), so it is not a "
                + "Bridget store"
        case .foreign(let path, let applicationID, let userVersion, let tables):
            "the store at \(path) is a SQLite database of another application ("
                + "application_id \(applicationID)" + (userVersion != 0 ? ", user_version \(userVersion)" : "")
                + (tables.isEmpty ? "" : ", tables: \(Self.list(tables))") + "), not a Bridget store; it was left as it is"
        case .foreignTables(let path, let tables):
            "the store at \(path) holds Bridget's tables but also tables of another application (\(Self.list(tables))), "
                + "so it is not known as a Bridget store; it was left as it is"
        case .unverifiableLog(let path):
            "the store at \(path) has no Bridget mark and keeps commits in its write-ahead log (\(path)-wal) with no "
                + "shared-memory index beside it, so what it holds cannot be read without writing there; it was left "
                + "as it is"
        case .unreadable(let path, let reason):
            "cannot read the store at \(path): \(reason)"
        case .cannotCreateFolder(let path, let reason):
            "cannot create the store's folder \(path): \(reason)"
        case .newer(let path):
            "the store at \(path) was written by a newer version of Bridget"
        case .outdated(let path):
            "the store at \(path) needs an upgrade, which cannot be written there"
        case .logOnReadOnlyDisk(let path):
            "the store at \(path) is on a read-only disk with commits still in its write-ahead log (\(path)-wal), "
                + "which cannot be read without writing"
        case .sqlite(let path, let action, _, let message):
            switch sqliteFailure ?? .other {
            case .corrupt:
                "the store at \(path) is not a readable SQLite database (\(message))"
            case .unwritable:
                (action == "open" ? "cannot open the store at \(path)" : "cannot \(action) in the store at \(path)")
                    + ": \(message) (is the folder read-only?)"
            case .io:
                "cannot \(action) in the store at \(path): \(message); nothing of this batch was kept"
            case .busy:
                "the store at \(path) stayed locked by another process while trying to \(action)"
            case .other:
                "cannot \(action) in the store at \(path): \(message)"
            }
        case .failed(let path, let action, let reason):
            "cannot \(action) in the store at \(path): \(reason)"
        case .corruptEvent(let detail):
            "a stored event has \(detail)"
        case .corruptRoute(let name):
            "route \(name) has unreadable crossings"
        case .corruptModel(let bridgeID, let slots):
            "the opening model of bridge \(bridgeID) has \(slots) slots"
        case .orphan(.event, let bridgeID):
            "event for unknown bridge \(bridgeID); save the bridge first"
        case .orphan(let orphan, let bridgeID):
            "\(orphan.rawValue) for unknown bridge \(bridgeID)"
        case .noSyncRun(let id):
            "no sync run with id \(id)"
        case .invalidInstant(let what):
            "\(what) is not an instant a store keeps (a finite time in the years 0 to 9999); nothing was written"
        case .notLiveFeedHolder(let holder):
            "the live state feed is polled by " + (holder ?? "another process")
                + " now (this one's lease ran out or was taken over); nothing was written"
        case .replaced(let path, let gone):
            "the store at \(path) was " + (gone ? "deleted" : "replaced by another file") + " since it was opened"
        case .timedOut(let store, let action, let seconds):
            "\(store) did not \(action) within " + String(format: "%g", seconds) + " s"
        }
    }

    public var errorDescription: String? { description }

    /// Up to five names, then "…".
    private static func list(_ names: [String]) -> String {
        names.count <= 5 ? names.joined(separator: ", ") : names.prefix(5).joined(separator: ", ") + ", …"
    }
}
