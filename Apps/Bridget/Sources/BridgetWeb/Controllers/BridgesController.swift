import BridgetAnswers
import BridgetCore
import BridgetDTOs
import BridgetPersistence
import Hummingbird

/// The bridges, their status and their forecasts.
struct BridgesController {
    let web: WebContext

    func addRoutes(to endpoints: Endpoints) {
        endpoints.get("/v1/bridges") { request, _ in
            switch Query(request)["format"] {
            case nil, "json": return try await web.cached(request) { try await listing() }
            case "geojson":
                return try await web.cached(request, contentType: BridgeFeatureCollection.mediaType) {
                    BridgeFeatureCollection(try await listing())
                }
            case let other?:
                throw Problem.badParameter("format", "'\(other)' is not a format here; json (the default) or geojson")
            }
        }
        // Status changes with the clock (opening soon, open until) and with every stored change (the tag's
        // history version): tagged by the minute.
        endpoints.get("/v1/bridges/status") { request, _ in
            let query = Query(request)
            let wanted = try await web.queryBridges(query.all("bridge"))
            return try await web.cached(request, varying: web.minuteTag(), untilNextMinute: true) {
                try await status(wanted, query)
            }
        }
        endpoints.get("/v1/bridges/{id}/status") { request, context in
            let id = try request.pathParameter("id", in: context)
            return try await web.cached(request, varying: web.minuteTag(), untilNextMinute: true) {
                try await status([try await web.catalogBridge(id)], Query(request))
            }
        }
        endpoints.get("/v1/bridges/{id}") { request, context in
            let id = try request.pathParameter("id", in: context)
            return try await web.cached(request) { try await bridge(id) }
        }
        endpoints.get("/v1/bridges/{id}/forecast") { request, context in
            let id = try request.pathParameter("id", in: context)
            // A forecast for "now" (no `at`, or a relative one) changes with the clock: tagged by the minute.
            let moving = WebContext.isMoving(Query(request)["at"])
            return try await web.cached(request, varying: moving ? web.minuteTag() : "", untilNextMinute: moving) {
                try await forecast(id, Query(request))
            }
        }
    }

    /// Which bridges are open now, open soon or closed (`bridges`, by id or name; every bridge when empty), at `at`
    /// (default now).
    func status(_ wanted: [BridgeInfoDTO], _ query: Query) async throws -> StatusNowAnswer {
        let now = try query["at"].map { try web.app.timeGrammar.resolve($0, option: "at", direction: .ahead).instant }
            ?? web.app.assembly.now()
        return try await StatusNowAnswer.current(books: web.books, bridges: wanted, now: now)
    }

    /// `bridget bridges --format json`'s answer: each bridge's openings (as `stats` counts them), stored rows and
    /// last opening.
    func listing() async throws -> [BridgeListing] {
        try await HistoryAnswers(context: web.app, store: web.store).bridges()
    }

    /// One bridge's element of the listing, by id or name.
    func bridge(_ text: String) async throws -> BridgeListing {
        let bridge = try await web.catalogBridge(text)
        return try await listing().first { $0.bridge.id == bridge.id } ?? BridgeListing(unsynced: bridge)
    }

    /// `bridget predict --format json`'s answer for one time (`at`, default now; `window`, default 20m).
    func forecast(_ id: String, _ query: Query) async throws -> ForecastAnswer {
        let target = try await web.catalogBridge(id)
        let minutes = try TimeGrammar.minutes(query["window"] ?? "20m", option: "window")
        let resolved = try web.app.timeGrammar.resolve(query["at"] ?? "now", option: "at", direction: .ahead)
        let forecasts = Forecasts(books: web.books)
        let model = try await Forecasts.model(of: target, in: try await web.books.bookWithHistory(for: "a forecast"))
        return try await forecasts.answer(model: model, bridge: target, at: resolved, minutes: minutes, evidence: true)
    }
}
