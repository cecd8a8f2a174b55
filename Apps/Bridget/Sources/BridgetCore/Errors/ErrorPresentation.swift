import BridgetAnalysis
import BridgetCaching
import BridgetNetworking
import BridgetPersistence
import BridgetSQLite
import Foundation

/// What a front end shows for an error: the one place that knows both the packages' errors and the app's
/// configuration keys, commands and documents.
///
/// The packages throw errors that carry facts only (`CacheError`, `FeedError`, `StoreError`, `AnalysisError`,
/// `PostgresStoreError` through `PresentableError`, `SyncInProgress`); the app throws its own `BridgetError`. Here each gets its message (the
/// package's sentence, rarely with a detail the app adds, such as the setting behind a limit), the hint that names
/// what to change or run, and, through `ErrorTable` by its stable code, what it means to each front end: the CLI's
/// exit status (BSD sysexits) and the server's HTTP status, problem type, title and `Retry-After`.
package struct ErrorPresentation: Sendable, Equatable, CustomStringConvertible {
    /// A stable machine-readable code, e.g. `store.corrupt` or `config.unknown-key`.
    package let code: String
    /// What happened and where (paths, hosts: for the user at the terminal or the operator's log, not for a client).
    package let message: String
    /// What to do about it, when there is something to do.
    package let hint: String?
    /// What the error means to the CLI and to the server.
    package let disposition: ErrorDisposition

    /// The process exit status (BSD sysexits).
    package var exitCode: Int32 { disposition.exitCode }

    /// The message, and the hint on a line of its own.
    package var description: String {
        guard let hint else { return message }
        return "\(message)\nhint: \(hint)"
    }

    /// A presentation whose meaning the table gives by `code`.
    package init(code: String, message: String, hint: String? = nil) {
        self.init(code: code, message: message, hint: hint,
                  disposition: ErrorTable.disposition(code: code) ?? ErrorTable.unknown)
    }

    private init(code: String, message: String, hint: String?, disposition: ErrorDisposition) {
        self.code = code
        self.message = message
        self.hint = hint
        self.disposition = disposition
    }

    /// The presentation of an error Bridget knows; `nil` for any other, which is left to propagate as it is.
    package init?(_ error: any Error) {
        switch error {
        case let error as BridgetError:
            self.init(code: error.code, message: error.message, hint: error.hint,
                      disposition: ErrorTable.disposition(of: error))
        case let error as CacheError: self = Self.cache(error)
        case let error as FeedError: self = Self.feed(error)
        case let error as StoreError: self = Self.store(error)
        case let error as AnalysisError: self = Self.analysis(error)
        case let error as SyncInProgress:
            self.init(code: error.code, message: error.description,
                      hint: "wait for it to finish and run again; refreshers take turns by themselves")
        case is CancellationError:
            self.init(code: ErrorTable.cancelled,
                      message: "cancelled; every batch committed before the interruption is kept, and the next run resumes")
        case let error as any PresentableError: self = error.presentation
        default: return nil
        }
    }

    /// How a stopped run records its error in `sync_runs`: as the CLI shows it (message and hint), or as the error
    /// describes itself when Bridget does not know it or the run was cancelled.
    package static func recorded(_ error: any Error) -> String {
        guard !(error is CancellationError), let shown = ErrorPresentation(error) else { return String(describing: error) }
        return shown.description
    }

    // MARK: The packages' errors: message and hint

    static func cache(_ error: CacheError) -> ErrorPresentation {
        let hint = switch error {
        case .cannotCreateFolder: "set cache.path to a writable folder"
        case .cannotWrite: "free disk space or set cache.path to a writable folder"
        }
        return ErrorPresentation(code: error.code, message: error.description, hint: hint)
    }

    static func feed(_ error: FeedError) -> ErrorPresentation {
        var message = error.description
        let hint: String? = switch error {
        case .httpStatus(_, let status, _, _, _):
            switch status {
            case 401, 403: "the app token may be wrong or lack access; see Docs/LIVE.md"
            case 404: "check provider.live.dataset and provider.live.base_url"
            case 400: "the query was refused; this is a bug in Bridget if the configuration is right"
            case 429: "throttled: set an app token (Docs/LIVE.md) or try again later"
            default: nil
            }
        case .wrongContentType: "check provider.live.base_url: it should be the Socrata site, e.g. https://data.seattle.gov"
        case .tooLarge: "lower provider.live.page_size or raise provider.live.max_page_bytes"
        case .gaveUp: "the service may be overloaded or throttling; try again later, or set an app token (Docs/LIVE.md)"
        case .notCached: "run a sync with the network first, or choose another cache.policy"
        case .nothingCached:
            "sync once with provider.kind: live (it fills the cache), or point cache.path at a filled cache"
        case .pagingRepeated: "the server ignores $offset; check provider.live.base_url"
        case .pagingIncomplete: "the server or a proxy ends pages early; try again later"
        case .redirectRefused:
            "the server redirected where Bridget does not follow (Docs/LIVE.md, \"Outside URLs\"); configure the URL it "
                + "redirects to, if that is the service you mean"
        case .emptyBody, .malformedBody, .timeout, .connection, .transport, .invalidDatasetID, .invalidBaseURL,
             .noHTTPClient, .feedFileMissing, .feedFileUnreadable, .feedFileTooLarge, .notGzip, .badFeed: nil
        }
        if case .feedFileTooLarge(let path, let size, let limit) = error {
            message = "the NDW feed file \(path) has \(size) bytes, over the limit of \(limit) (provider.ndw.max_bytes)"
        }
        if let unresolved = unresolvedHost(error) { return unresolved }
        return ErrorPresentation(code: error.code, message: message, hint: hint)
    }

    /// A host name that did not resolve (at once, or as a request's last failure): said as such, with what to check,
    /// never as an overloaded or throttling server.
    static func unresolvedHost(_ error: FeedError) -> ErrorPresentation? {
        let failure: FeedError
        if case .gaveUp(_, _, let last?) = error { failure = last } else { failure = error }
        guard FeedClient.isUnresolvedHost(failure), case .transport(let url, let reason, let code) = failure else {
            return nil
        }
        let host = URL(string: url)?.host ?? url
        return ErrorPresentation(
            code: error.code,
            message: "could not resolve the host \(host): no address was found for the name, so \(url) was not "
                + "asked (\(reason), \(code))",
            hint: "check this machine's network connection and DNS (`getent hosts \(host)` should print an "
                + "address), and the host in the configured URL (provider.live.base_url, provider.live.state_url or "
                + "provider.ndw.source)")
    }

    static func store(_ error: StoreError) -> ErrorPresentation {
        let elsewhere = "point store.path (or BRIDGET_STORE_PATH) at"
        let hint: String? = switch error {
        case .missing: "run `bridget sync` or `bridget import` where the store can be written"
        case .isFolder(let path):
            "set store.path (or BRIDGET_STORE_PATH) to a file, e.g. "
                + URL(fileURLWithPath: path).appendingPathComponent("bridget.sqlite").path
        case .notRegularFile: "set store.path (or BRIDGET_STORE_PATH) to a regular file"
        case .notSQLite:
            "\(elsewhere) a Bridget store or at a new file; if this was a Bridget store, it is damaged: move it aside "
                + "and sync again (Bridget never overwrites it)"
        case .foreign: "\(elsewhere) a Bridget store, or at a file that does not exist yet"
        case .foreignTables(let path, _):
            "if it is your Bridget store and those tables are yours, mark it as Bridget's with `sqlite3 \(path) "
                + "'PRAGMA application_id = \(SQLiteBridgeStore.applicationID)'`; otherwise \(elsewhere) a Bridget "
                + "store or at a new file"
        case .unverifiableLog(let path):
            "if it is a Bridget store, let SQLite copy the log into it once (`sqlite3 \(path) 'PRAGMA wal_checkpoint'`) "
                + "and run the command again; otherwise choose another store.path"
        case .unreadable: "check the permissions of the file and of its folders"
        case .cannotCreateFolder: "choose a writable store.path in the config, or set BRIDGET_STORE_PATH"
        case .newer: "upgrade bridget, or point store.path at another file"
        case .outdated: "run any bridget command once where the store can be written"
        case .logOnReadOnlyDisk: "open it once where it can be written (any bridget command), then read it here"
        case .sqlite:
            switch error.sqliteFailure ?? .other {
            case .corrupt: "move the file aside and sync again; Bridget never overwrites it"
            case .unwritable: "check the folder's permissions, or choose another store.path"
            case .io: "free disk space and run the command again"
            case .busy: "wait for the other bridget command to finish"
            case .other: nil
            }
        case .corruptModel: "run `bridget model rebuild`"
        case .replaced: "nothing to do: the server serves the new file once it is whole; if it was deleted, sync again"
        case .timedOut: "try again in a few seconds; if it lasts, check the database (`bridget doctor`)"
        case .invalidInstant: "the time came from outside (a receiver's answer, a file): nothing was stored"
        case .notLiveFeedHolder: "nothing to do: the process that holds the lease polls the feed"
        case .failed, .corruptEvent, .corruptRoute, .orphan, .noSyncRun: nil
        }
        return ErrorPresentation(code: error.code, message: error.description, hint: hint)
    }

    static func analysis(_ error: AnalysisError) -> ErrorPresentation {
        let hint: String? = switch error {
        case .bridgeWithoutModel: "run `bridget sync`, or edit the route"
        case .noTrainingData: "choose a later --train-until"
        case .unorderedHistory: "the store broke its contract: run `bridget doctor`, and report it"
        case .unknownBridge, .emptyCrossing, .emptyTestPeriod: nil
        }
        return ErrorPresentation(code: error.code, message: error.description, hint: hint)
    }
}

/// An error of a part the core does not import (the PostgreSQL store, which comes with its trait) that says what it
/// means to the user: the target that imports the part conforms its error.
package protocol PresentableError: Error {
    var presentation: ErrorPresentation { get }
}
