#if Server
import BridgetAnalysis
import BridgetCaching
import BridgetDTOs
import BridgetPersistence
import Foundation
import Hummingbird
import Prometheus

/// The endpoints. `routeTable` lists each one's method and path, as Docs/openapi.yaml documents them; `register`
/// refuses to start a server whose handlers and table differ, and a test compares the table with the document.
struct API: Sendable {
    let context: CommandContext
    let store: any BridgeStore
    let registry: PrometheusCollectorRegistry
    /// The refresher's state when `serve` refreshes, for `/v1/status` and `Cache-Control`.
    let refresh: RefreshState?
    let schedule: RefreshSchedule?
    /// Encoded answers by history version and request (32 MB at most).
    let answers = AnswerCache(budget: 32 << 20)
    /// The history version the answers are keyed by, asked of the store at most once a second.
    let versions: HistoryVersionMemo

    /// Every endpoint: method and path (Hummingbird's `{name}` parameters).
    static let routeTable: [String] = [
        "GET /healthz", "GET /readyz", "GET /metrics",
        "GET /v1/status",
        "GET /v1/bridges", "GET /v1/bridges/{id}", "GET /v1/bridges/{id}/events", "GET /v1/bridges/{id}/forecast",
        "GET /v1/stats", "GET /v1/stats/heatmap",
        "GET /v1/routes", "GET /v1/routes/{name}", "PUT /v1/routes/{name}", "DELETE /v1/routes/{name}",
        "GET /v1/routes/{name}/score", "GET /v1/routes/{name}/best-time",
        "GET /", "GET /bridges/{id}", "GET /routes/{name}", "GET /quality",
    ]

    func register(on router: Router<BasicRequestContext>) {
        var registered: [String] = []
        func get(_ path: String, _ handler: @escaping @Sendable (Request, BasicRequestContext) async throws -> Response) {
            registered.append("GET " + path)
            router.get(RouterPath(path), use: handler)
        }
        get("/healthz") { _, _ in Self.text("ok\n") }
        get("/readyz") { _, _ in try await ready() }
        get("/metrics") { _, _ in metrics() }
        get("/v1/status") { request, _ in
            // The last run changes with every sync, also one that stored nothing new: it is part of the tag.
            let run = try await store.syncRuns(limit: 1).first
            let next = refresh?.next.map { String(Int($0.timeIntervalSince1970)) } ?? ""
            return try await cached(request, varying: "\(run?.id ?? 0)-\(run?.status.rawValue ?? "")-\(next)") {
                try await status()
            }
        }
        get("/v1/bridges") { request, _ in
            switch Query(request)["format"] {
            case nil, "json": return try await cached(request) { try await store.bridgeActivity() }
            case "geojson":
                return try await cached(request, contentType: BridgeFeatureCollection.mediaType) {
                    BridgeFeatureCollection(try await store.bridgeActivity())
                }
            case let other?:
                throw Problem.badParameter("format", "'\(other)' is not a format here; json (the default) or geojson")
            }
        }
        get("/v1/bridges/{id}") { request, context in
            let id = try Self.pathParameter(context, "id")
            return try await cached(request) { try await bridge(id) }
        }
        get("/v1/bridges/{id}/events") { request, context in
            let id = try Self.pathParameter(context, "id")
            return try await cached(request) { try await events(id, Query(request)) }
        }
        get("/v1/bridges/{id}/forecast") { request, context in
            let id = try Self.pathParameter(context, "id")
            // A forecast for "now" (no `at`, or a relative one) changes with the clock: tagged by the minute.
            let moving = Self.isMoving(Query(request)["at"])
            return try await cached(request, varying: moving ? minuteTag() : "", untilNextMinute: moving) {
                try await forecast(id, Query(request))
            }
        }
        get("/v1/stats") { request, _ in try await cached(request) { try await stats(Query(request)) } }
        get("/v1/stats/heatmap") { request, _ in
            try await cached(request) {
                HeatmapOutput(try await stats(Query(request)), zone: self.context.assembly.clock.zone)
            }
        }
        get("/v1/routes") { request, _ in
            let file = try await routeFile()
            return try await cached(request, varying: file.fingerprint(), revalidate: true) { try await file.routes() }
        }
        get("/v1/routes/{name}") { request, context in
            let name = try Self.pathParameter(context, "name")
            let file = try await routeFile()
            return try await cached(request, varying: file.fingerprint(), revalidate: true) { try await route(name, in: file) }
        }
        get("/v1/routes/{name}/score") { request, context in
            let name = try Self.pathParameter(context, "name")
            let file = try await routeFile()
            let moving = Self.isMoving(Query(request)["depart"])
            return try await cached(request, varying: file.fingerprint() + (moving ? minuteTag() : ""),
                                    untilNextMinute: moving) {
                try await score(name, Query(request), file: file)
            }
        }
        get("/v1/routes/{name}/best-time") { request, context in
            let name = try Self.pathParameter(context, "name")
            let file = try await routeFile()
            // Without a date, "today" moves at midnight: tagged by the day.
            let day = Query(request)["date"] == nil ? LocalDay(containing: self.context.assembly.now(),
                                                               time: self.context.assembly.clock).description : ""
            return try await cached(request, varying: file.fingerprint() + day) {
                try await bestTime(name, Query(request), file: file)
            }
        }
        // The pages (Pages/Site.swift): HTML about now, so tagged by the minute and the routes file.
        get("/") { request, _ in
            try await page(request, varying: minuteTag()) { site in try await site.overview(try await site.bridgeList()) }
        }
        get("/bridges/{id}") { request, context in
            let id = try Self.pathParameter(context, "id")
            return try await page(request) { site in
                let target = try await catalogBridge(id)
                let activity = try await site.bridgeList().first { $0.bridge.id == target.id }
                return try await site.bridgePage(activity ?? BridgeActivity(bridge: target, openings: 0, lastOpening: nil))
            }
        }
        get("/routes/{name}") { request, context in
            let name = try Self.pathParameter(context, "name")
            let today = LocalDay(containing: self.context.assembly.now(), time: self.context.assembly.clock).description
            return try await page(request, varying: today) { site in
                try await site.routePage(try await route(name, in: try await routeFile()))
            }
        }
        get("/quality") { request, _ in try await page(request) { site in try await site.qualityPage() } }
        registered.append("PUT /v1/routes/{name}")
        router.put("/v1/routes/{name}") { request, context in
            let name = try Self.pathParameter(context, "name")
            return try await saveRoute(name, request)
        }
        registered.append("DELETE /v1/routes/{name}")
        router.delete("/v1/routes/{name}") { request, context in
            let name = try Self.pathParameter(context, "name")
            return try await removeRoute(name, request)
        }
        precondition(registered.sorted() == Self.routeTable.sorted(), "API.routeTable and the registered handlers differ: \(registered)")
    }

    /// A path parameter, percent-decoded (`Lower%20Spokane%20St`), or a 400 when its escapes are not UTF-8.
    static func pathParameter(_ context: BasicRequestContext, _ name: String) throws -> String {
        let raw = try context.parameters.require(name)
        guard let decoded = raw.removingPercentEncoding else {
            throw Problem.badParameter(name, "'\(raw)' holds a percent escape that is not UTF-8 text")
        }
        return decoded
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
        try await requireHistory("a forecast")
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

    /// Runs an asynchronous answer whose input is parameter `name`, turning the CLI's validation error into a 400
    /// problem naming it.
    func parameter<T>(_ name: String, _ parse: () async throws -> T) async throws -> T {
        do {
            return try await parse()
        } catch let error as BridgetError where error.category == .validation {
            throw Problem.badParameter(name, error.message + (error.hint.map { " (\($0))" } ?? ""))
        }
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
                     lastSync: try await store.syncRuns(limit: 1).first.map(SyncRunOutput.init),
                     refresh: schedule?.description, nextRefresh: refresh?.next)
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
    /// request's path and query, and a `Cache-Control` fitting how long the answer holds; 304 when the client has it.
    /// The encoded answer is kept under the same facts (`AnswerCache`), so the next request for it costs no query.
    func cached(_ request: Request, varying: String = "", untilNextMinute: Bool = false, revalidate: Bool = false,
                contentType: String = "application/json",
                _ value: () async throws -> some Encodable) async throws -> Response
    {
        try await cachedBody(request, varying: varying, untilNextMinute: untilNextMinute, revalidate: revalidate,
                             contentType: contentType) {
            try OutputWriter.json(try await value()) + "\n"
        }
    }

    /// `cached` for a body that is already text (a page's HTML).
    func cachedBody(_ request: Request, varying: String, untilNextMinute: Bool, revalidate: Bool, contentType: String,
                    _ text: () async throws -> String) async throws -> Response
    {
        let version = try await versions.version { try await store.historyVersion() }
        let key = request.uri.path + "?" + (request.uri.query ?? "") + "#" + varying
        let tag = "W/\"v\(version)-" + FNV1a.hex(FNV1a.hash(key)) + "\""
        let control = "max-age=\(maxAge(untilNextMinute: untilNextMinute, revalidate: revalidate))"
        let given = request.headers[.ifNoneMatch].map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } } ?? []
        if given.contains(tag) {
            return Response(status: .notModified, headers: [.eTag: tag, .cacheControl: control])
        }
        if given.contains("*") {
            // `*` matches an answer that exists (RFC 9110 13.1.2): a bad parameter or unknown bridge is still its error.
            _ = try await text()
            return Response(status: .notModified, headers: [.eTag: tag, .cacheControl: control])
        }
        let cacheKey = "v\(version) " + key
        let body: ByteBuffer
        if let kept = answers.answer(cacheKey) {
            body = kept
        } else {
            body = ByteBuffer(string: try await text())
            answers.keep(body, as: cacheKey)
        }
        return Response(status: .ok,
                        headers: [.contentType: contentType, .eTag: tag, .cacheControl: control],
                        body: ResponseBody(byteBuffer: body))
    }

    /// How many seconds an answer holds: one about now, to the end of the minute; saved routes, none (they change
    /// with a PUT, so a client asks again with its ETag); the history, until the next scheduled refresh (at most an
    /// hour), or a minute when nothing refreshes here (a sync may run elsewhere).
    func maxAge(untilNextMinute: Bool, revalidate: Bool) -> Int {
        if revalidate { return 0 }
        let now = context.assembly.now()
        if untilNextMinute {
            return max(1, 60 - Int(now.timeIntervalSince1970.truncatingRemainder(dividingBy: 60)))
        }
        guard let refresh else { return 60 }
        if refresh.isRunning { return 0 }
        guard let next = refresh.next else { return 60 }
        return min(3_600, max(0, Int(next.timeIntervalSince(now))))
    }

    /// A page of the site, rendered once per history version, routes file and `varying` (the minute for the overview,
    /// which is about now; the day for a route's departures); an error is a short HTML page with the problem's status
    /// and words (a person reads it, not a program).
    func page(_ request: Request, varying: String = "", _ render: (Site) async throws -> String) async throws -> Response {
        let site = Site(context: context, store: store, now: context.assembly.now(), links: .server)
        do {
            let routes = try await routeFile().fingerprint()
            return try await cachedBody(request, varying: routes + varying, untilNextMinute: !varying.isEmpty, revalidate: false,
                                        contentType: "text/html; charset=utf-8") { try await render(site) }
        } catch {
            let problem = Problem.from(error)
            let html = site.page(title: "\(problem.title) – Bridget", top: false, body: """
                <h1>\(escapedHTML(problem.title))</h1><p>\(escapedHTML(problem.detail))</p>\
                <p><a href="/">All bridges</a></p>
                """)
            return Response(status: problem.status, headers: [.contentType: "text/html; charset=utf-8"],
                            body: ResponseBody(byteBuffer: ByteBuffer(string: html)))
        }
    }

    /// Whether a time parameter means a moment that moves with the clock: absent, `now`, `+30m` or a time of day.
    static func isMoving(_ text: String?) -> Bool {
        guard let text = text?.lowercased() else { return true }
        return text == "now" || TimeGrammar.span(text) != nil || TimeGrammar.timeOfDay(text) != nil
    }

    /// The current minute, for the tags of answers about now.
    func minuteTag() -> String { String(Int(context.assembly.now().timeIntervalSince1970 / 60)) }

    /// `/metrics`: the Prometheus text of every metric (requests by route and status, latency, refreshes).
    func metrics() -> Response {
        var buffer: [UInt8] = []
        registry.emit(into: &buffer)
        return Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                        body: ResponseBody(byteBuffer: ByteBuffer(bytes: buffer)))
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
    /// The refresher's schedule (`at 05:30 and 17:30 (America/Los_Angeles)`), or `nil` when this server does not
    /// refresh.
    let refresh: String?
    /// When the next scheduled sync starts, or `nil`.
    let nextRefresh: Date?
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

#endif
