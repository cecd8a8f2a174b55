import Foundation

/// What an error means to each front end: the CLI's exit status, and the server's HTTP status, problem type, title,
/// `Retry-After` and what of the error an anonymous client may read.
package struct ErrorDisposition: Sendable, Equatable {
    /// What a client is told as the problem's `detail`.
    package enum Detail: Sendable, Equatable {
        /// The error's own message: it is about the request (a parameter, a name), so safe to echo.
        case message
        /// A fixed sentence: the message names paths, hosts or other facts of the server, which go to its log only.
        case generic(String)
    }

    /// BSD sysexits status of the CLI.
    package let exitCode: Int32
    /// The server's status.
    package let httpStatus: Int
    /// The last part of the problem type URI (`https://bridget.dev/problems/<type>`, Docs/OUTPUT.md).
    package let problemType: String
    /// The problem's title.
    package let title: String
    /// Seconds a client should wait before asking again (503s), else `nil`.
    package let retryAfter: Int?
    package let detail: Detail

    package init(exit exitCode: Int32, http httpStatus: Int, _ problemType: String, _ title: String,
                 retryAfter: Int? = nil, detail: Detail = .message) {
        self.exitCode = exitCode
        self.httpStatus = httpStatus
        self.problemType = problemType
        self.title = title
        self.retryAfter = retryAfter
        self.detail = detail
    }
}

/// The one table of every error code Bridget's packages define (and the app's own that need a row of their own):
/// for each, its exit status and its HTTP status, problem type and title. A known condition never answers 500: a
/// store that is down, busy or damaged is a 503 with `Retry-After`, a bridge with no history a 404; a 500 is a bug.
/// `ErrorTableTests` walks every case of every package error and fails on one without a row.
package enum ErrorTable {
    // MARK: Exit statuses (BSD sysexits)

    package static let usage: Int32 = 64 // EX_USAGE: a value the user gave is invalid
    package static let dataError: Int32 = 65 // EX_DATAERR: input data is unusable
    package static let noInput: Int32 = 66 // EX_NOINPUT: an input file is missing or unreadable
    package static let unavailable: Int32 = 69 // EX_UNAVAILABLE: a data source cannot be reached or used
    package static let software: Int32 = 70 // EX_SOFTWARE: a bug
    package static let ioError: Int32 = 74 // EX_IOERR: reading or writing storage failed
    package static let tryAgain: Int32 = 75 // EX_TEMPFAIL: try again later
    package static let configuration: Int32 = 78 // EX_CONFIG: the configuration is wrong
    package static let interrupted: Int32 = 130

    /// The code of a cancelled operation.
    package static let cancelled = "cancelled"

    // MARK: What a client reads instead of the server's facts

    static let storeDown = ErrorDisposition.Detail.generic(
        "the server's store cannot answer now; try again after the time Retry-After gives")
    static let storeBroken = ErrorDisposition.Detail.generic(
        "the server's store cannot be used; its operator has been told (see the server's log for this request id)")
    static let sourceDown = ErrorDisposition.Detail.generic(
        "the data source behind this server cannot be read now; try again later")
    static let misconfigured = ErrorDisposition.Detail.generic(
        "this server's configuration does not let it answer; its operator has been told")

    /// An error Bridget does not know (a bug): exit 70, a 500 with nothing of the error in it.
    package static let unknown = ErrorDisposition(
        exit: software, http: 500, "internal", "The server could not answer",
        detail: .generic("an unexpected error; the server's log has it under this request id"))

    // Shared rows.
    static func storeUnavailable(_ exit: Int32, _ retry: Int) -> ErrorDisposition {
        ErrorDisposition(exit: exit, http: 503, "store-unavailable", "The store is not available", retryAfter: retry,
                         detail: storeDown)
    }
    static func storeUnusable(_ exit: Int32) -> ErrorDisposition {
        ErrorDisposition(exit: exit, http: 503, "store-unavailable", "The store is not available", retryAfter: 60,
                         detail: storeBroken)
    }
    static func sourceUnavailable(_ exit: Int32) -> ErrorDisposition {
        ErrorDisposition(exit: exit, http: 502, "source-unavailable", "The data source is not available",
                         retryAfter: 60, detail: sourceDown)
    }
    static func serverMisconfigured(_ exit: Int32) -> ErrorDisposition {
        ErrorDisposition(exit: exit, http: 503, "server-misconfigured", "The server is misconfigured",
                         retryAfter: 300, detail: misconfigured)
    }

    /// Every package error code, and the app's own that need a row of their own.
    package static let rows: [String: ErrorDisposition] = [
        // BridgetCaching: CacheError
        "cache.folder": storeUnusable(ioError),
        "cache.write": storeUnusable(ioError),

        // BridgetNetworking: FeedError (the HTTP family `network.http-NNN` is `httpFamily`)
        "network.content-type": sourceUnavailable(unavailable),
        "network.malformed-body": sourceUnavailable(unavailable),
        "network.too-large": sourceUnavailable(unavailable),
        "network.timeout": sourceUnavailable(unavailable),
        "network.connection": sourceUnavailable(unavailable),
        "network.transport": sourceUnavailable(unavailable),
        "network.gave-up": sourceUnavailable(unavailable),
        "network.not-cached": sourceUnavailable(unavailable),
        "network.nothing-cached": sourceUnavailable(unavailable),
        "network.paging": sourceUnavailable(unavailable),
        "network.incomplete": sourceUnavailable(unavailable),
        "network.invalid-dataset": serverMisconfigured(configuration),
        "network.invalid-base-url": serverMisconfigured(configuration),
        "network.no-client": serverMisconfigured(configuration),
        "network.feed-file-missing": sourceUnavailable(noInput),
        "network.feed-file-unreadable": sourceUnavailable(noInput),
        "network.feed-file-too-large": sourceUnavailable(dataError),
        "network.not-gzip": sourceUnavailable(dataError),
        "network.bad-feed": sourceUnavailable(dataError),

        // BridgetPersistence: StoreError, SyncInProgress; BridgetPostgres: PostgresStoreError
        "store.missing": storeUnavailable(noInput, 30),
        "store.is-folder": serverMisconfigured(configuration),
        "store.not-file": serverMisconfigured(configuration),
        "store.not-sqlite": storeUnusable(ioError),
        "store.foreign": serverMisconfigured(configuration),
        "store.unverifiable": storeUnusable(ioError),
        "store.unreadable": storeUnusable(ioError),
        "store.folder": storeUnusable(ioError),
        "store.newer": serverMisconfigured(configuration),
        "store.outdated": storeUnusable(ioError),
        "store.log-on-read-only-disk": storeUnusable(ioError),
        "store.corrupt": storeUnusable(ioError),
        "store.unwritable": storeUnusable(ioError),
        "store.io": storeUnusable(ioError),
        "store.busy": storeUnavailable(tryAgain, 1),
        "store.timeout": storeUnavailable(tryAgain, 2),
        "store.replaced": storeUnavailable(tryAgain, 2),
        "store.sqlite": storeUnusable(ioError),
        "store.failed": storeUnavailable(ioError, 5),
        "store.orphan": storeUnusable(ioError),
        "store.no-run": storeUnusable(dataError),
        "store.invalid-instant": ErrorDisposition(exit: dataError, http: 422, "invalid-instant", "A time no store keeps"),
        "store.live-lease-lost": storeUnavailable(tryAgain, 5),
        "store.sync-running": ErrorDisposition(
            exit: tryAgain, http: 503, "sync-running", "Another sync is running", retryAfter: 30,
            detail: .generic("another host is syncing the store; try again later")),
        "store.settings": serverMisconfigured(configuration),
        "store.unreachable": storeUnavailable(unavailable, 5),
        "store.authentication": serverMisconfigured(configuration),
        "store.no-database": serverMisconfigured(configuration),
        "store.unavailable": storeUnavailable(tryAgain, 5),
        "store.privileges": serverMisconfigured(configuration),
        "store.postgres": storeUnusable(ioError),

        // BridgetAnalysis: AnalysisError
        "analysis.unknown-bridge": ErrorDisposition(exit: usage, http: 404, "unknown-bridge", "No such bridge"),
        "analysis.bridge-without-model": ErrorDisposition(
            exit: usage, http: 409, "no-model", "A bridge has no opening model"),
        "analysis.empty-crossing": ErrorDisposition(exit: usage, http: 422, "bad-route", "The route cannot be scored"),
        "analysis.empty-test-period": ErrorDisposition(exit: usage, http: 400, "bad-parameter", "Bad request"),
        "analysis.no-training-data": ErrorDisposition(exit: usage, http: 404, "no-history", "No history to answer from"),
        "analysis.unordered-history": ErrorDisposition(
            exit: ioError, http: 500, "internal", "The server could not answer",
            detail: .generic("the store handed the history out of order; the server's log has it under this request id")),

        // Cancellation: a command interrupted, or a server shutting down (its client is told to come back).
        cancelled: ErrorDisposition(exit: interrupted, http: 503, "unavailable", "The server is stopping", retryAfter: 5,
                                    detail: .generic("the server is stopping; try again shortly")),

        // The app's own, where the category's row does not fit.
        "input.unknown-bridge": ErrorDisposition(exit: usage, http: 404, "unknown-bridge", "No such bridge"),
        "input.unknown-route": ErrorDisposition(exit: usage, http: 404, "unknown-route", "No such route"),
        "input.no-history": ErrorDisposition(exit: usage, http: 404, "no-history", "No history to answer from"),
        "data.store-empty": ErrorDisposition(exit: noInput, http: 404, "no-history", "No history to answer from"),
        "data.routes-file": ErrorDisposition(
            exit: dataError, http: 503, "routes-unavailable", "Saved routes are not available", retryAfter: 60,
            detail: .generic("the server's saved routes cannot be read; its operator has been told")),
        "data.routes-write": ErrorDisposition(
            exit: 73, http: 503, "routes-unavailable", "Saved routes cannot be changed", retryAfter: 60,
            detail: .generic("the server cannot save routes now; its operator has been told")),
    ]

    /// The row of `network.http-NNN`: the source answered with an error status.
    static let httpFamily = sourceUnavailable(unavailable)

    /// The row of a code, or `nil` when the table has none.
    package static func disposition(code: String) -> ErrorDisposition? {
        if let row = rows[code] { return row }
        if code.hasPrefix("network.http-"), Int(code.dropFirst("network.http-".count)) != nil { return httpFamily }
        return nil
    }

    /// The app's own error: its row when the table has one, else its category's, with the exit status it carries.
    static func disposition(of error: BridgetError) -> ErrorDisposition {
        let row = disposition(code: error.code) ?? {
            switch error.category {
            case .validation: ErrorDisposition(exit: usage, http: 400, "bad-parameter", "Bad request")
            case .configuration: serverMisconfigured(configuration)
            case .data: storeUnusable(dataError)
            case .network: sourceUnavailable(unavailable)
            case .processing: unknown
            }
        }()
        return ErrorDisposition(exit: error.exitCode, http: row.httpStatus, row.problemType, row.title,
                                retryAfter: row.retryAfter, detail: row.detail)
    }
}
