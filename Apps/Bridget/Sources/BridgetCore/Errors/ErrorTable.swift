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
    /// The store did not answer or cannot be reached: a server answers the calls that follow at once, with this
    /// error, for a moment (BridgetWeb's `ServingGuard`), rather than each waiting out its deadline.
    package let outage: Bool

    package init(exit exitCode: Int32, http httpStatus: Int, _ problemType: String, _ title: String,
                 retryAfter: Int? = nil, detail: Detail = .message, outage: Bool = false) {
        self.outage = outage
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
    // MARK: Exit statuses (BSD sysexits): `--help` lists them from `exitStatuses`

    package static let ok: Int32 = 0
    /// `bridget doctor` found a problem (the check's own answer, not an error).
    package static let checkFailed: Int32 = 1
    package static let usage: Int32 = 64 // EX_USAGE: a value the user gave is invalid
    package static let dataError: Int32 = 65 // EX_DATAERR: input data is unusable
    package static let noInput: Int32 = 66 // EX_NOINPUT: an input file is missing or unreadable
    package static let unavailable: Int32 = 69 // EX_UNAVAILABLE: a data source cannot be reached or used
    package static let software: Int32 = 70 // EX_SOFTWARE: a bug
    package static let cannotCreate: Int32 = 73 // EX_CANTCREAT: an output file cannot be made
    package static let ioError: Int32 = 74 // EX_IOERR: reading or writing storage failed
    package static let tryAgain: Int32 = 75 // EX_TEMPFAIL: try again later
    package static let configuration: Int32 = 78 // EX_CONFIG: the configuration is wrong
    package static let interrupted: Int32 = 130

    /// Every exit status `bridget` ends with, and what it means, in order (`bridget --help` prints this list).
    package static let exitStatuses: [(status: Int32, meaning: String)] = [
        (ok, "ok"), (checkFailed, "doctor found a problem"), (usage, "bad argument"), (dataError, "bad data"),
        (noInput, "no input (or an empty store)"), (unavailable, "source unreachable"), (software, "a bug"),
        (cannotCreate, "cannot create output"), (ioError, "store, cache or file I/O"), (tryAgain, "store busy"),
        (configuration, "bad configuration"), (interrupted, "interrupted"),
    ]

    /// `exitStatuses` as lines of about `width` characters, e.g. "0 ok, 1 doctor found a problem, 64 bad argument,".
    package static func exitStatusLines(width: Int = 60) -> [String] {
        var lines: [String] = []
        var line = ""
        for (index, entry) in exitStatuses.enumerated() {
            let item = "\(entry.status) \(entry.meaning)" + (index == exitStatuses.count - 1 ? "" : ",")
            if !line.isEmpty, line.count + 1 + item.count > width {
                lines.append(line)
                line = item
            } else {
                line += (line.isEmpty ? "" : " ") + item
            }
        }
        if !line.isEmpty { lines.append(line) }
        return lines
    }

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
    static func storeUnavailable(_ exit: Int32, _ retry: Int, outage: Bool = false) -> ErrorDisposition {
        ErrorDisposition(exit: exit, http: 503, "store-unavailable", "The store is not available", retryAfter: retry,
                         detail: storeDown, outage: outage)
    }
    static func storeUnusable(_ exit: Int32) -> ErrorDisposition {
        ErrorDisposition(exit: exit, http: 503, "store-unavailable", "The store is not available", retryAfter: 60,
                         detail: storeBroken)
    }
    static func sourceUnavailable(_ exit: Int32) -> ErrorDisposition {
        ErrorDisposition(exit: exit, http: 502, "source-unavailable", "The data source is not available",
                         retryAfter: 60, detail: sourceDown)
    }
    static let badConfiguration = serverMisconfigured(configuration)
    static let badRequest = ErrorDisposition(exit: usage, http: 400, "bad-parameter", "Bad request")
    static func routesUnreadable(_ exit: Int32) -> ErrorDisposition {
        ErrorDisposition(exit: exit, http: 503, "routes-unavailable", "Saved routes are not available", retryAfter: 60,
                         detail: .generic("the server's saved routes cannot be read; its operator has been told"))
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
        "network.redirect-refused": sourceUnavailable(unavailable),
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
        "store.timeout": storeUnavailable(tryAgain, 2, outage: true),
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
        "store.unreachable": storeUnavailable(unavailable, 5, outage: true),
        "store.authentication": serverMisconfigured(configuration),
        "store.no-database": serverMisconfigured(configuration),
        "store.unavailable": storeUnavailable(tryAgain, 5, outage: true),
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

        // The app's own (`ErrorCode`).
        "config.base-url": badConfiguration, "config.cache-policy": badConfiguration,
        "config.duplicate-key": badConfiguration, "config.file-not-found": badConfiguration,
        "config.insecure-token": badConfiguration, "config.invalid": badConfiguration,
        "config.malformed-yaml": badConfiguration, "config.ndw-source": badConfiguration,
        "config.not-utf8": badConfiguration, "config.page-size": badConfiguration,
        "config.postgres-settings": badConfiguration, "config.postgres-unavailable": badConfiguration,
        "config.postgres-url": badConfiguration, "config.state-url": badConfiguration,
        "config.store-source": badConfiguration,
        "config.unreadable": badConfiguration,

        "input.unknown-bridge": ErrorDisposition(exit: usage, http: 404, "unknown-bridge", "No such bridge"),
        "input.unknown-route": ErrorDisposition(exit: usage, http: 404, "unknown-route", "No such route"),
        "input.unknown-alert": ErrorDisposition(exit: usage, http: 404, "unknown-alert", "No such alert"),
        "input.unknown-rule": ErrorDisposition(exit: usage, http: 404, "unknown-rule", "No such rule"),
        "input.no-history": ErrorDisposition(exit: usage, http: 404, "no-history", "No history to answer from"),
        "input.alert-departure": badRequest, "input.alert-destination": badRequest,
        "input.alert-forecast-route": badRequest, "input.alert-limit": badRequest, "input.alert-name": badRequest,
        "input.alert-no-bridges": badRequest, "input.alert-secret": badRequest, "input.alert-secret-env": badRequest,
        "input.alert-threshold": badRequest, "input.alert-trigger": badRequest, "input.alert-window": badRequest,
        "input.bad-crossing": badRequest, "input.bad-days": badRequest, "input.bad-duration": badRequest,
        "input.bad-order": badRequest, "input.bad-range": badRequest, "input.bad-time": badRequest,
        "input.empty-route-name": badRequest, "input.import-format": badRequest, "input.invalid-rule": badRequest,
        "input.no-crossing": badRequest, "input.rejects-path": badRequest, "input.same-route": badRequest,
        "input.serve-host": badRequest,

        "data.store-empty": ErrorDisposition(exit: noInput, http: 404, "no-history", "No history to answer from"),
        "data.routes-file": routesUnreadable(dataError),
        "data.routes-read": routesUnreadable(ioError),
        "data.routes-write": ErrorDisposition(
            exit: cannotCreate, http: 503, "routes-unavailable", "Saved routes cannot be changed", retryAfter: 60,
            detail: .generic("the server cannot save routes now; its operator has been told")),
        "data.rules-file": storeUnusable(dataError), "data.rules-open": storeUnusable(noInput),
        "data.rules-read": storeUnusable(ioError), "data.rules-write": storeUnusable(cannotCreate),
        "data.import-open": storeUnusable(noInput), "data.import-read": storeUnusable(ioError),
        "data.import-syntax": storeUnusable(dataError),
        "data.export-open": storeUnusable(cannotCreate), "data.export-write": storeUnusable(ioError),
        "data.rejects-path": storeUnusable(ioError), "data.rejects-write": storeUnusable(ioError),
        "data.report-foreign": storeUnusable(cannotCreate), "data.report-write": storeUnusable(cannotCreate),

        "alert.gone": sourceUnavailable(unavailable), "alert.undelivered": sourceUnavailable(unavailable),
        "serve.listen": sourceUnavailable(unavailable),
        "serve.missing": serverMisconfigured(unavailable),
        "processing.time-zone": unknown,

        // The web's own: a request the server will not take as it is.
        "web.bad-parameter": ErrorDisposition(exit: usage, http: 400, "bad-parameter", "Bad query parameter"),
        "web.bad-path": ErrorDisposition(exit: usage, http: 400, "bad-path", "Bad path segment"),
        "web.bad-request": ErrorDisposition(exit: usage, http: 400, "bad-request", "The request cannot be read"),
        "web.bad-body": ErrorDisposition(exit: usage, http: 400, "bad-body", "The request body is not valid"),
        "web.incomplete-body": ErrorDisposition(exit: usage, http: 400, "incomplete-body", "The body did not arrive whole"),
        "web.unauthorized": ErrorDisposition(exit: usage, http: 401, "unauthorized", "A bearer token is needed"),
        "web.forbidden": ErrorDisposition(exit: usage, http: 403, "forbidden", "Writes are off"),
        "web.origin-not-allowed": ErrorDisposition(exit: usage, http: 403, "origin-not-allowed",
                                                   "Not allowed from this origin"),
        "web.not-found": ErrorDisposition(exit: usage, http: 404, "not-found", "Not Found"),
        "web.method-not-allowed": ErrorDisposition(exit: usage, http: 405, "method-not-allowed", "Method Not Allowed"),
        "web.request-timeout": ErrorDisposition(exit: usage, http: 408, "request-timeout", "The body took too long"),
        "web.payload-too-large": ErrorDisposition(
            exit: usage, http: 413, "payload-too-large", "The request body is too large"),
        "web.over-limit": ErrorDisposition(exit: usage, http: 422, "over-limit", "The request asks for too much"),
        "web.too-many-routes": ErrorDisposition(exit: usage, http: 422, "over-limit", "Too many routes"),
        "web.too-many-alerts": ErrorDisposition(exit: usage, http: 422, "over-limit", "Too many alerts"),
        "web.stream-full": ErrorDisposition(exit: tryAgain, http: 503, "stream-full", "Too many stream clients",
                                            retryAfter: 10),
        "web.store-unavailable": storeUnavailable(tryAgain, 5),
        "web.shutting-down": ErrorDisposition(exit: interrupted, http: 503, "shutting-down", "The server is stopping",
                                              retryAfter: 5),
    ]

    /// The row of `network.http-NNN`: the source answered with an error status.
    static let httpFamily = sourceUnavailable(unavailable)

    /// The row of a code, or `nil` when the table has none.
    package static func disposition(code: String) -> ErrorDisposition? {
        if let row = rows[code] { return row }
        if code.hasPrefix("network.http-"), Int(code.dropFirst("network.http-".count)) != nil { return httpFamily }
        return nil
    }

    /// The row of an app's code (`ErrorTableTests` proves every code has one).
    package static func disposition(of code: ErrorCode) -> ErrorDisposition {
        rows[code.rawValue] ?? unknown
    }

    /// The row of the app's own error.
    static func disposition(of error: BridgetError) -> ErrorDisposition { disposition(of: error.kind) }

    /// The row of an HTTP status Hummingbird answered by itself (an unknown path, a method not allowed, a body over
    /// its limit), by its `web.` code; any other such status keeps its number, with `http-NNN` as its type.
    package static func disposition(httpStatus status: Int, reason: String) -> ErrorDisposition {
        switch status {
        case 404: disposition(of: .webNotFound)
        case 405: disposition(of: .webMethodNotAllowed)
        case 413: disposition(of: .webPayloadTooLarge)
        default: ErrorDisposition(exit: status < 500 ? usage : software, http: status, "http-\(status)", reason)
        }
    }
}
