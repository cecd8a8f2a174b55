import BridgetAnalysis
import BridgetCaching
import BridgetNetworking
import BridgetPersistence
import Foundation
#if Server
import BridgetPostgres
#endif

/// What the CLI shows for an error, and the exit status it ends with: the one place that knows both the packages'
/// errors and the CLI's configuration keys, commands and documents.
///
/// The packages throw errors that carry facts only (`CacheError`, `FeedError`, `StoreError`, `AnalysisError`); the
/// CLI throws its own `BridgetError`. Here each is given its message (the package's sentence, rarely with a detail
/// the CLI adds, such as the setting behind a limit), the hint that names what to change or run, a BSD sysexits
/// status, and its stable code (the package's, usable as a problem type). A server would map the same errors to HTTP
/// statuses and problem types in a place of its own.
struct ErrorPresentation: Sendable, Equatable, CustomStringConvertible {
    /// A stable machine-readable code, e.g. `store.corrupt` or `config.unknown-key`.
    let code: String
    /// What happened and where.
    let message: String
    /// What to do about it, when there is something to do.
    let hint: String?
    /// The process exit status (BSD sysexits).
    let exitCode: Int32

    /// The message, and the hint on a line of its own.
    var description: String {
        guard let hint else { return message }
        return "\(message)\nhint: \(hint)"
    }

    init(code: String, message: String, hint: String? = nil, exitCode: Int32) {
        self.code = code
        self.message = message
        self.hint = hint
        self.exitCode = exitCode
    }

    /// The presentation of an error Bridget knows; `nil` for any other, which is left to propagate as it is.
    init?(_ error: any Error) {
        switch error {
        case let error as BridgetError:
            self.init(code: error.code, message: error.message, hint: error.hint, exitCode: error.exitCode)
        case let error as CacheError: self = Self.cache(error)
        case let error as FeedError: self = Self.feed(error)
        case let error as StoreError: self = Self.store(error)
        case let error as AnalysisError: self = Self.analysis(error)
        case let error as SyncInProgress:
            self.init(code: error.code, message: error.description,
                      hint: "wait for it to finish and run again; refreshers take turns by themselves", exitCode: Self.tryAgain)
        #if Server
        case let error as PostgresStoreError: self = Self.postgres(error)
        #endif
        case is CancellationError:
            self.init(code: "cancelled",
                      message: "cancelled; every batch committed before the interruption is kept, and the next run resumes",
                      exitCode: 130)
        default:
            return nil
        }
    }

    /// How a stopped run records its error in `sync_runs`: as the CLI shows it (message and hint), or as the error
    /// describes itself when Bridget does not know it or the run was cancelled.
    static func recorded(_ error: any Error) -> String {
        guard !(error is CancellationError), let shown = ErrorPresentation(error) else { return String(describing: error) }
        return shown.description
    }

    // MARK: Exit statuses (BSD sysexits)

    static let usage: Int32 = 64 // EX_USAGE: a value the user gave is invalid
    static let dataError: Int32 = 65 // EX_DATAERR: input data is unusable
    static let noInput: Int32 = 66 // EX_NOINPUT: an input file is missing or unreadable
    static let unavailable: Int32 = 69 // EX_UNAVAILABLE: a data source cannot be reached or used
    static let ioError: Int32 = 74 // EX_IOERR: reading or writing storage failed
    static let tryAgain: Int32 = 75 // EX_TEMPFAIL: try again later
    static let configuration: Int32 = 78 // EX_CONFIG: the configuration is wrong

    // MARK: The packages' errors

    static func cache(_ error: CacheError) -> ErrorPresentation {
        let hint = switch error {
        case .cannotCreateFolder: "set cache.path to a writable folder"
        case .cannotWrite: "free disk space or set cache.path to a writable folder"
        }
        return ErrorPresentation(code: error.code, message: error.description, hint: hint, exitCode: ioError)
    }

    static func feed(_ error: FeedError) -> ErrorPresentation {
        var message = error.description
        let hint: String?
        var exitCode = unavailable
        switch error {
        case .httpStatus(_, let status, _, _, _):
            hint = switch status {
            case 401, 403: "the app token may be wrong or lack access; see Docs/LIVE.md"
            case 404: "check provider.live.dataset and provider.live.base_url"
            case 400: "the query was refused; this is a bug in Bridget if the configuration is right"
            case 429: "throttled: set an app token (Docs/LIVE.md) or try again later"
            default: nil
            }
        case .wrongContentType:
            hint = "check provider.live.base_url: it should be the Socrata site, e.g. https://data.seattle.gov"
        case .emptyBody, .malformedBody, .timeout, .connection, .transport:
            hint = nil
        case .tooLarge:
            hint = "lower provider.live.page_size or raise provider.live.max_page_bytes"
        case .gaveUp:
            hint = "the service may be overloaded or throttling; try again later, or set an app token (Docs/LIVE.md)"
        case .notCached:
            hint = "run a sync with the network first, or choose another cache.policy"
        case .nothingCached:
            hint = "sync once with provider.kind: live (it fills the cache), or point cache.path at a filled cache"
        case .pagingRepeated:
            hint = "the server ignores $offset; check provider.live.base_url"
        case .pagingIncomplete:
            hint = "the server or a proxy ends pages early; try again later"
        case .invalidDatasetID, .invalidBaseURL, .noHTTPClient:
            hint = nil
            exitCode = configuration
        case .feedFileMissing, .feedFileUnreadable:
            hint = nil
            exitCode = noInput
        case .feedFileTooLarge(let path, let size, let limit):
            message = "the NDW feed file \(path) has \(size) bytes, over the limit of \(limit) (provider.ndw.max_bytes)"
            hint = nil
            exitCode = dataError
        case .notGzip, .badFeed:
            hint = nil
            exitCode = dataError
        }
        return ErrorPresentation(code: error.code, message: message, hint: hint, exitCode: exitCode)
    }

    static func store(_ error: StoreError) -> ErrorPresentation {
        let elsewhere = "point store.path (or BRIDGET_STORE_PATH) at"
        let hint: String?
        var exitCode = ioError
        switch error {
        case .missing:
            hint = "run `bridget sync` or `bridget import` where the store can be written"
            exitCode = noInput
        case .isFolder(let path):
            hint = "set store.path (or BRIDGET_STORE_PATH) to a file, e.g. "
                + URL(fileURLWithPath: path).appendingPathComponent("bridget.sqlite").path
            exitCode = configuration
        case .notRegularFile:
            hint = "set store.path (or BRIDGET_STORE_PATH) to a regular file"
            exitCode = configuration
        case .notSQLite:
            hint = "\(elsewhere) a Bridget store or at a new file; if this was a Bridget store, it is damaged: move it "
                + "aside and sync again (Bridget never overwrites it)"
        case .foreign:
            hint = "\(elsewhere) a Bridget store, or at a file that does not exist yet"
            exitCode = configuration
        case .foreignTables(let path, _):
            hint = "if it is your Bridget store and those tables are yours, mark it as Bridget's with `sqlite3 \(path) "
                + "'PRAGMA application_id = \(SQLiteBridgeStore.applicationID)'`; otherwise \(elsewhere) a Bridget "
                + "store or at a new file"
            exitCode = configuration
        case .unverifiableLog(let path):
            hint = "if it is a Bridget store, let SQLite copy the log into it once (`sqlite3 \(path) "
                + "'PRAGMA wal_checkpoint'`) and run the command again; otherwise choose another store.path"
        case .unreadable:
            hint = "check the permissions of the file and of its folders"
        case .cannotCreateFolder:
            hint = "choose a writable store.path in the config, or set BRIDGET_STORE_PATH"
        case .newer:
            hint = "upgrade bridget, or point store.path at another file"
        case .outdated:
            hint = "run any bridget command once where the store can be written"
        case .logOnReadOnlyDisk:
            hint = "open it once where it can be written (any bridget command), then read it here"
        case .sqlite:
            switch error.sqliteFailure ?? .other {
            case .corrupt: hint = "move the file aside and sync again; Bridget never overwrites it"
            case .unwritable: hint = "check the folder's permissions, or choose another store.path"
            case .io: hint = "free disk space and run the command again"
            case .busy:
                hint = "wait for the other bridget command to finish"
                exitCode = tryAgain
            case .other: hint = nil
            }
        case .corruptModel:
            hint = "run `bridget model rebuild`"
        case .failed, .corruptEvent, .corruptRoute, .orphan:
            hint = nil
        case .noSyncRun:
            hint = nil
            exitCode = dataError
        }
        return ErrorPresentation(code: error.code, message: error.description, hint: hint, exitCode: exitCode)
    }

    #if Server
    static func postgres(_ error: PostgresStoreError) -> ErrorPresentation {
        let hint: String?
        var exitCode = configuration
        switch error {
        case .invalidURL:
            hint = "set store.postgres.url to postgres://USER@HOST:PORT/DATABASE"
        case .invalidSetting(let name, _):
            hint = "change store.postgres.\(name == "pool size" ? "pool_size" : name)"
        case .unreachable:
            hint = "check that the server runs and store.postgres.url names its host and port (and sslmode suits it)"
            exitCode = unavailable
        case .authentication:
            hint = "check the role in store.postgres.url and the password in the variable store.postgres.password_env "
                + "names (PGPASSWORD by default)"
        case .noDatabase(let database, _):
            hint = "create it (`createdb \(database)`) or name another in store.postgres.url"
        case .foreign:
            hint = "give Bridget a schema of its own: set store.postgres.schema (e.g. bridget)"
        case .newer:
            hint = "upgrade bridget, or point store.postgres.url at another database"
        case .server:
            hint = error.code == "store.privileges" ? "grant the role what it needs on the database and schema" : nil
            exitCode = error.isTemporary ? tryAgain : error.code == "store.privileges" ? configuration : ioError
        case .failed:
            hint = nil
            exitCode = ioError
        }
        return ErrorPresentation(code: error.code, message: error.description, hint: hint, exitCode: exitCode)
    }
    #endif

    static func analysis(_ error: AnalysisError) -> ErrorPresentation {
        let hint: String? = switch error {
        case .bridgeWithoutModel: "run `bridget sync`, or edit the route"
        case .noTrainingData: "choose a later --train-until"
        case .unorderedHistory: "the store broke its contract: run `bridget doctor`, and report it"
        case .unknownBridge, .emptyCrossing, .emptyTestPeriod: nil
        }
        // A history out of order is the store's fault, not the question's.
        let exitCode = if case .unorderedHistory = error { ioError } else { usage }
        return ErrorPresentation(code: error.code, message: error.description, hint: hint, exitCode: exitCode)
    }
}
