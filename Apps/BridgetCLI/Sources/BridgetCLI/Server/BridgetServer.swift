#if Server
import BridgetAnalysis
import BridgetCaching
import BridgetDTOs
import BridgetPersistence
import Foundation
import Hummingbird
import Logging

/// The HTTP API over the configured store (`bridget serve`), assembled from the same composition root as the CLI: it
/// reads through the store's boundaries only, and answers with the JSON of `--format json` (Docs/OUTPUT.md).
///
/// Every answer to a GET carries an ETag made of the store's history version and the request's path and query
/// (`If-None-Match` gets 304 and no body); every error is `application/problem+json` (RFC 9457); every response has
/// an `X-Request-Id`, and every request is one log line with method, path, status and milliseconds.
struct BridgetServer: Sendable {
    let context: CommandContext

    /// Opens the store and serves until SIGINT or SIGTERM, then drains the requests in flight.
    func run(host: String, port: Int) async throws {
        let store = try await context.openStoreForReading()
        var logger = Logger(label: "bridget.serve")
        logger.logLevel = .info
        let api = API(context: context, store: store)
        let router = Router(context: BasicRequestContext.self)
        router.add(middleware: RequestLog())
        api.register(on: router)
        let app = Application(
            router: router,
            configuration: .init(address: .hostname(host, port: port), serverName: "bridget"),
            onServerRunning: { channel in
                let bound = channel.localAddress?.port ?? port
                // Standard output, one line: a script (or a test) that passed --port 0 learns the port here.
                FileHandle.standardOutput.write(Data("listening on http://\(host):\(bound)\n".utf8))
            },
            logger: logger)
        try await app.runService()
    }
}

/// The endpoints.
struct API: Sendable {
    let context: CommandContext
    let store: any BridgeStore

    func register(on router: Router<BasicRequestContext>) {
        router.get("/healthz") { _, _ in Self.text("ok\n") }
        router.get("/readyz") { _, _ in try await ready() }
        router.get("/v1/status") { request, _ in
            // The last run changes with every sync, also one that stored nothing new: it is part of the tag.
            let run = try await store.syncRuns(limit: 1).first
            return try await cached(request, varying: "\(run?.id ?? 0)-\(run?.status.rawValue ?? "")") { try await status() }
        }
        router.get("/v1/bridges") { request, _ in try await cached(request) { try await store.bridgeActivity() } }
        router.get("/v1/bridges/{id}") { request, context in
            let id = try context.parameters.require("id")
            return try await cached(request) { try await bridge(id) }
        }
        router.get("/v1/bridges/{id}/events") { request, context in
            let id = try context.parameters.require("id")
            return try await cached(request) { try await events(id, Query(request)) }
        }
        router.get("/v1/bridges/{id}/forecast") { request, context in
            let id = try context.parameters.require("id")
            // A forecast for "now" (no `at`, or a relative one) changes with the clock: tagged by the minute.
            let at = Query(request)["at"]
            let moving = at == nil || TimeGrammar.span(at!.lowercased()) != nil || at!.lowercased() == "now"
                || TimeGrammar.timeOfDay(at!) != nil
            let minute = moving ? String(Int(self.context.assembly.now().timeIntervalSince1970 / 60)) : ""
            return try await cached(request, varying: minute) { try await forecast(id, Query(request)) }
        }
        router.get("/v1/stats") { request, _ in try await cached(request) { try await stats(Query(request)) } }
    }

    /// A request's query parameters, in order (a name may repeat).
    struct Query: Sendable {
        let pairs: [(String, String)]

        init(_ request: Request) {
            pairs = request.uri.queryParameters.map { (String($0.key), String($0.value)) }
        }

        /// The first value of `name`.
        subscript(_ name: String) -> String? { pairs.first { $0.0 == name }?.1 }

        /// Every value of `name`, in order.
        func getAll(_ name: String) -> [String] { pairs.filter { $0.0 == name }.map(\.1) }
    }

    /// Most events one page of `/v1/bridges/{id}/events` holds.
    static let maximumLimit = 1_000

    /// A page of a bridge's events, newest first, as `bridget events --format json` prints them, and the cursor of
    /// the next page (absent on the last).
    struct EventPage: Encodable {
        let events: [EventOutput]
        let next: String?
    }

    func events(_ id: String, _ query: Query) async throws -> EventPage {
        let target = try await catalogBridge(id)
        let grammar = context.timeGrammar
        var eventQuery = EventQuery(bridgeID: target.id, newestFirst: true)
        if let since = query["since"] { eventQuery.openedFrom = try parameter("since") { try grammar.instant(String(since), option: "since", direction: .back) } }
        if let until = query["until"] { eventQuery.openedBefore = try parameter("until") { try grammar.instant(String(until), option: "until", direction: .back) } }
        let limit = try query["limit"].map { text -> Int in
            guard let value = Int(text), (1...Self.maximumLimit).contains(value) else {
                throw Problem.badParameter("limit", "'\(text)' is not a whole number from 1 to \(Self.maximumLimit)")
            }
            return value
        } ?? 100
        if let cursor = query["cursor"] {
            guard let key = Self.key(fromCursor: String(cursor)), key.bridgeID == target.id else {
                throw Problem.badParameter("cursor", "'\(cursor)' is not a cursor this endpoint gave for bridge \(target.id)")
            }
            eventQuery.after = key
        }
        eventQuery.limit = limit + 1
        var found = try await store.events(matching: eventQuery)
        let more = found.count > limit
        if more { found.removeLast(found.count - limit) }
        let clock = context.assembly.clock
        return EventPage(events: found.map { EventOutput($0, clock: clock) },
                         next: more ? found.last.map { Self.cursor(for: $0.key) } : nil)
    }

    /// `bridget predict --format json`'s answer for one time (`at`, default now; `window`, default 20m).
    func forecast(_ id: String, _ query: Query) async throws -> PredictCommand.Output {
        let target = try await catalogBridge(id)
        let minutes = try parameter("window") { try TimeGrammar.minutes(query["window"] ?? "20m", option: "window") }
        let resolved = try parameter("at") {
            try context.timeGrammar.resolve(query["at"] ?? "now", option: "at", direction: .ahead)
        }
        let model = try await context.currentModel(bridgeID: target.id, store: store)
        guard model.openings > 0 else {
            throw Problem(status: .notFound, type: "no-history", title: "No history for this bridge",
                          detail: "no openings of \(target.name) are stored")
        }
        return try await PredictCommand.answer(model: model, bridge: target, at: resolved, minutes: minutes, evidence: true,
                                               store: store, clock: context.assembly.clock)
    }

    /// `bridget stats --format json`'s answer, for `bridge` (repeatable), `since` and `until` as the CLI takes them.
    func stats(_ query: Query) async throws -> StatisticsDTO {
        var scope = HistoryScope()
        let catalog = try await catalog()
        for text in query.getAll("bridge") {
            guard let bridge = catalog.resolve(String(text)) else {
                throw Problem.badParameter("bridge", "no bridge named '\(text)'")
            }
            scope.bridgeIDs.append(bridge.id)
        }
        let grammar = context.timeGrammar
        if let since = query["since"] { scope.from = try parameter("since") { try grammar.instant(String(since), option: "since", direction: .back) } }
        if let until = query["until"] { scope.before = try parameter("until") { try grammar.instant(String(until), option: "until", direction: .back) } }
        return try await context.assembly.makeProcessor(store: store).generateStatistics(in: scope)
    }

    /// Runs a parameter's parse, turning the CLI's validation error into a 400 problem naming the parameter.
    func parameter<T>(_ name: String, _ parse: () throws -> T) throws -> T {
        do {
            return try parse()
        } catch let error as BridgetError {
            throw Problem.badParameter(name, error.message + (error.hint.map { " (\($0))" } ?? ""))
        }
    }

    /// An opaque cursor for the events after `key` (newest first): base64url of the bridge id and the instant.
    static func cursor(for key: EventKey) -> String {
        let text = key.bridgeID + "|" + String(Int64((key.openedAt.timeIntervalSince1970 * 1000).rounded()))
        return Data(text.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    static func key(fromCursor cursor: String) -> EventKey? {
        var base64 = cursor.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        guard let data = Data(base64Encoded: base64), let text = String(data: data, encoding: .utf8) else { return nil }
        let parts = text.split(separator: "|")
        guard parts.count == 2, let millis = Int64(parts[1]) else { return nil }
        return EventKey(bridgeID: String(parts[0]), openedAt: Date(timeIntervalSince1970: Double(millis) / 1000))
    }

    /// 200 when the store answers a query, else a 503 problem.
    func ready() async throws -> Response {
        do {
            _ = try await store.historyVersion()
            return Self.text("ready\n")
        } catch {
            throw Problem(status: .serviceUnavailable, type: "store-unavailable", title: "The store does not answer",
                          detail: ErrorPresentation(error)?.message ?? "\(error)")
        }
    }

    /// `/v1/status`: the newest stored opening, the last sync run, the history version and the provider.
    func status() async throws -> StatusOutput {
        StatusOutput(provider: context.assembly.configuration.provider.rawValue,
                     newestOpening: try await store.latestOpening(), historyVersion: try await store.historyVersion(),
                     lastSync: try await store.syncRuns(limit: 1).first.map(SyncRunOutput.init))
    }

    /// The stored catalog (the embedded one before any sync), as the CLI resolves bridge names against it.
    func catalog() async throws -> BridgeCatalog {
        let known = try await store.bridges()
        return BridgeCatalog(bridges: known.isEmpty ? BridgeCatalog.seattle.bridges : known)
    }

    /// A bridge by id or name, or a 404 problem naming the known bridges. Reads the catalog only: counting each
    /// bridge's rows (`bridgeActivity`) scans the events table, which only `/v1/bridges/{id}` needs.
    func catalogBridge(_ text: String) async throws -> BridgeInfoDTO {
        let catalog = try await catalog()
        guard let bridge = catalog.resolve(text) else {
            throw Problem(status: .notFound, type: "unknown-bridge", title: "No such bridge",
                          detail: "no bridge named '\(text)'; known: "
                            + catalog.bridges.map { "\($0.name) (\($0.id))" }.joined(separator: ", "))
        }
        return bridge
    }

    /// One bridge's activity (its stored rows and last opening), by id or name.
    func bridge(_ text: String) async throws -> BridgeActivity {
        let bridge = try await catalogBridge(text)
        let activity = try await store.bridgeActivity()
        return activity.first { $0.bridge.id == bridge.id } ?? BridgeActivity(bridge: bridge, openings: 0, lastOpening: nil)
    }

    /// The JSON of `value` with an ETag of the history version, `varying` (what else the answer depends on) and the
    /// request's path and query; 304 when the client has it.
    func cached(_ request: Request, varying: String = "", _ value: () async throws -> some Encodable) async throws
        -> Response
    {
        let version = try await store.historyVersion()
        let key = request.uri.path + "?" + (request.uri.query ?? "") + "#" + varying
        let tag = "W/\"v\(version)-" + FNV1a.hex(FNV1a.hash(key)) + "\""
        if let given = request.headers[.ifNoneMatch], given.split(separator: ",").contains(where: {
            $0.trimmingCharacters(in: .whitespaces) == tag || $0.trimmingCharacters(in: .whitespaces) == "*"
        }) {
            return Response(status: .notModified, headers: [.eTag: tag])
        }
        let body = try OutputWriter.json(try await value()) + "\n"
        return Response(status: .ok,
                        headers: [.contentType: "application/json", .eTag: tag, .cacheControl: "no-cache"],
                        body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
    }

    static func text(_ text: String) -> Response {
        Response(status: .ok, headers: [.contentType: "text/plain; charset=utf-8"],
                 body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }
}

/// `/v1/status`'s answer.
struct StatusOutput: Encodable {
    let provider: String
    let newestOpening: Date?
    let historyVersion: Int64
    let lastSync: SyncRunOutput?
}

/// A sync run as `/v1/status` shows it.
struct SyncRunOutput: Encodable {
    let id: Int64
    let provider: String
    let startedAt: Date
    let finishedAt: Date?
    let status: String
    let fetched: Int
    let inserted: Int
    let updated: Int
    let rejected: Int

    init(_ run: SyncRunRecord) {
        id = run.id
        provider = run.provider
        startedAt = run.startedAt
        finishedAt = run.finishedAt
        status = run.status.rawValue
        fetched = run.fetched
        inserted = run.counts.inserted
        updated = run.counts.updated
        rejected = run.rejections.total
    }
}

/// An RFC 9457 problem: thrown by a handler, written by `RequestLog`.
struct Problem: Error, Sendable {
    let status: HTTPResponse.Status
    /// The last part of the problem type URI (`https://bridget.dev/problems/<type>`, documented in Docs/OUTPUT.md).
    let type: String
    let title: String
    let detail: String

    var response: Response {
        struct Body: Encodable {
            let type: String
            let title: String
            let status: Int
            let detail: String
        }
        let body = (try? OutputWriter.json(Body(type: "https://bridget.dev/problems/" + type, title: title,
                                                status: status.code, detail: detail))) ?? "{}"
        return Response(status: status, headers: [.contentType: "application/problem+json"],
                        body: ResponseBody(byteBuffer: ByteBuffer(string: body + "\n")))
    }

    /// A 400 naming the query parameter that was wrong.
    static func badParameter(_ name: String, _ detail: String) -> Problem {
        Problem(status: .badRequest, type: "bad-parameter", title: "Bad query parameter '\(name)'", detail: detail)
    }

    /// What any error thrown by a handler becomes: a problem of its own, an unknown route (404), or a 500 whose detail
    /// is the error's message (no hint, no secret: messages name paths and URLs, never a token).
    static func from(_ error: any Error) -> Problem {
        if let problem = error as? Problem { return problem }
        if let http = error as? HTTPError {
            return Problem(status: http.status, type: http.status == .notFound ? "not-found" : "http-\(http.status.code)",
                           title: http.status.reasonPhrase, detail: http.body ?? http.status.reasonPhrase)
        }
        return Problem(status: .internalServerError, type: "internal", title: "The server could not answer",
                       detail: ErrorPresentation(error)?.message ?? "\(error)")
    }
}

/// Gives every response an `X-Request-Id`, turns every error into a problem, and logs one line a request.
struct RequestLog: RouterMiddleware {
    typealias Context = BasicRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        let started = ContinuousClock.now
        let id = UUID().uuidString.lowercased()
        var response: Response
        do {
            response = try await next(request, context)
        } catch {
            response = Problem.from(error).response
        }
        response.headers[.init("X-Request-Id")!] = id
        let elapsed = ContinuousClock.now - started
        let milliseconds = Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000
        let line = "\(request.method) \(request.uri.path) \(response.status.code) " + String(format: "%.1f ms", milliseconds)
        context.logger.info("\(line)", metadata: ["request": .string(id)])
        return response
    }
}
#endif
