import BridgetAnswers
import BridgetCore
import BridgetDTOs
import Foundation
import Hummingbird

/// Saved routes over HTTP, their scores and best departures: read by anyone, saved and removed with the bearer
/// token of `serve.token_env`.
struct RoutesController {
    let web: WebContext

    func addRoutes(to endpoints: Endpoints) {
        endpoints.get("/v1/routes") { request, _ in
            let file = try await web.routeFile()
            return try await web.cached(request, varying: file.fingerprint(), revalidate: true) { try await file.routes() }
        }
        endpoints.get("/v1/routes/{name}") { request, context in
            let name = try request.pathParameter("name", in: context)
            let file = try await web.routeFile()
            return try await web.cached(request, varying: file.fingerprint(), revalidate: true) {
                try await RouteAnswers.route(name, in: file)
            }
        }
        endpoints.get("/v1/routes/{name}/score") { request, context in
            let name = try request.pathParameter("name", in: context)
            let file = try await web.routeFile()
            let moving = WebContext.isMoving(Query(request)["depart"])
            return try await web.cached(request, varying: file.fingerprint() + (moving ? web.minuteTag() : ""),
                                        untilNextMinute: moving) {
                try await score(name, Query(request), file: file)
            }
        }
        endpoints.get("/v1/routes/{name}/best-time") { request, context in
            let name = try request.pathParameter("name", in: context)
            let file = try await web.routeFile()
            // Without a date, the next commute moves with the clock (its first departure, then the day): tagged by
            // the minute.
            let moving = Query(request)["date"] == nil
            return try await web.cached(request, varying: file.fingerprint() + (moving ? web.minuteTag() : ""),
                                        untilNextMinute: moving) {
                try await bestTime(name, Query(request), file: file)
            }
        }
        endpoints.put("/v1/routes/{name}", guarded: true) { request, context in
            let name = try request.pathParameter("name", in: context)
            return try await saveRoute(name, request)
        }
        endpoints.delete("/v1/routes/{name}", guarded: true) { request, context in
            let name = try request.pathParameter("name", in: context)
            return try await removeRoute(name, request)
        }
    }

    /// `bridget route score NAME --depart …`'s answer.
    func score(_ name: String, _ query: Query, file: any SavedRoutes) async throws -> RouteScoreDTO {
        let route = try await RouteAnswers.route(name, in: file)
        return try await RouteAnswers(books: web.books)
            .score(route, depart: query["depart"], option: "depart").score
    }

    /// `bridget route best-time NAME [--between FROM TO] [--date] [--step] [--top]`'s answer.
    func bestTime(_ name: String, _ query: Query, file: any SavedRoutes) async throws -> [RouteScoreDTO] {
        let route = try await RouteAnswers.route(name, in: file)
        // Both ends, or neither: the day's departures from 6:00 to 21:00, as `route best-time` without --between.
        let (from, to): (String, String)
        switch (query["between"], query["and"]) {
        case let (first?, last?): (from, to) = (first, last)
        case (nil, nil): (from, to) = ("6:00", "21:00")
        default:
            throw Problem.badParameter(query["between"] == nil ? "between" : "and",
                                       "give both ends of the departure range (?between=16:00&and=18:30), or neither "
                                        + "for 6:00 to 21:00")
        }
        let step = try TimeGrammar.minutes(query["step"] ?? "5m", option: "step")
        let top = try query.integer("top", in: 0...1_000, fallback: 10, meaning: " (all)")
        let names = DepartureRangeNames(from: "between", to: "and", date: "date")
        let answers = RouteAnswers(books: web.books)
        let (_, times) = try answers.departures(between: (from, to), date: query["date"], stepMinutes: step, names: names)
        try Self.checkWork(route, departures: Int((times.1.wallClockSeconds - times.0.wallClockSeconds) / 60) / step + 1,
                           top: top)
        return try await answers.bestTime(route, between: (from, to), date: query["date"], stepMinutes: step, top: top,
                                          names: names).shown
    }

    /// The most (departure, bridge) pairs one best-time request may score, and answer with.
    static let maximumScored = 20_000
    static let maximumAnswered = 2_000

    /// Refuses a best-time request whose work or answer is over the limits (422, saying them): each departure scores
    /// every bridge of every crossing, and every departure answered lists them all.
    static func checkWork(_ route: RouteDTO, departures: Int, top: Int) throws {
        let options = route.crossings.reduce(0) { $0 + $1.bridgeIDs.count }
        let scored = departures * options
        let answered = (top == 0 ? departures : min(top, departures)) * options
        guard scored <= maximumScored, answered <= maximumAnswered else {
            let what = scored > maximumScored
                ? "\(departures) departures × \(options) bridge options = \(scored) to score, over the limit of "
                    + "\(maximumScored): narrow between and, or take a longer step"
                : "\(top == 0 ? departures : top) departures × \(options) bridge options = \(answered) to answer, over "
                    + "the limit of \(maximumAnswered): ask for fewer with top (1 to \(maximumAnswered / max(options, 1)))"
            throw Problem(.webOverLimit, detail: what)
        }
    }

    /// Limits on what one route may hold, so a stored route cannot make a request's work grow without bound.
    static let maximumCrossings = 20
    static let maximumBridgesPerCrossing = 10
    static let maximumRoutes = 1_000

    /// `PUT /v1/routes/{name}`: saves the route (201 when new, 200 when it replaced one) and answers it as stored.
    func saveRoute(_ name: String, _ request: Request) async throws -> Response {
        let name = try routeName(name)
        let data = try await request.guardedBody()
        let crossings: [(bridges: [String], minutes: Double)]
        let isFavorite: Bool
        do {
            (crossings, isFavorite) = try Self.routeBody(data, name: name)
        } catch let refusal as StrictJSON.Refusal {
            throw Problem.badBody("the body is not a route: " + refusal.reason
                                  + #"; send {"crossings": [{"bridgeIDs": ["Fremont"], "minutesFromStart": 8}]}"#)
        }
        let catalog = try await web.books.book().catalog
        var resolved: [RouteCrossingDTO] = []
        for (index, crossing) in crossings.enumerated() {
            var ids: [String] = []
            for text in crossing.bridges {
                guard let bridge = catalog.resolve(text.trimmingCharacters(in: .whitespaces)) else {
                    throw Problem.badBody("crossing \(index + 1): no bridge named '\(ConfigValueType.escaped(text, limit: 80))'; "
                                          + "known: " + catalog.bridges.map { "\($0.name) (\($0.id))" }.joined(separator: ", "))
                }
                if !ids.contains(bridge.id) { ids.append(bridge.id) }
            }
            resolved.append(RouteCrossingDTO(bridgeIDs: ids, minutesFromStart: crossing.minutes))
        }
        let route = RouteDTO(id: name, crossings: resolved, isFavorite: isFavorite)
        let file = try await web.routeFile()
        let saved = try await file.routes()
        let existed = saved.contains { $0.id == name }
        guard existed || saved.count < Self.maximumRoutes else {
            throw Problem(.webTooManyRoutes,
                          detail: "this server keeps at most \(Self.maximumRoutes) routes; remove one first")
        }
        try await file.saveRoute(route)
        let json = try AnswerJSON.text(route) + "\n"
        var headers: HTTPFields = [.contentType: "application/json"]
        if !existed {
            headers[.location] = "/v1/routes/"
                + (name.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(["/"])) ?? name)
        }
        return Response(status: existed ? .ok : .created, headers: headers,
                        body: ResponseBody(byteBuffer: ByteBuffer(string: json)))
    }

    /// The body of `PUT /v1/routes/{name}`: the route's crossings (bridge ids or names) and whether it is a favourite.
    struct RouteBody: Decodable {
        struct Crossing: Decodable {
            let bridgeIDs: [String]
            let minutesFromStart: Double
        }

        let id: String?
        let crossings: [Crossing]
        let isFavorite: Bool?
    }

    /// A route's body, read strictly (no unknown field, no key twice, each value of its type): its crossings in
    /// travel order and whether it is a favourite. `name` is the path's, which an `id` in the body must match.
    static func routeBody(_ data: Data, name: String) throws
        -> (crossings: [(bridges: [String], minutes: Double)], favorite: Bool)
    {
        let top = try StrictJSON.object(try StrictJSON.parse(data), at: "the body",
                                        allowed: ["id", "crossings", "isFavorite"])
        for (index, item) in (top["crossings"] as? [Any] ?? []).enumerated() {
            _ = try StrictJSON.object(item, at: "crossings[\(index)]", allowed: ["bridgeIDs", "minutesFromStart"])
        }
        let body: RouteBody
        do {
            body = try JSONDecoder().decode(RouteBody.self, from: data)
        } catch {
            throw StrictJSON.Refusal(reason: StrictJSON.reason(error))
        }
        if let id = body.id, id.trimmingCharacters(in: .whitespaces) != name {
            throw StrictJSON.Refusal(reason: "the body names route '\(id)' but the path names '\(name)'")
        }
        guard !body.crossings.isEmpty else { throw StrictJSON.Refusal(reason: "a route needs at least one crossing") }
        guard body.crossings.count <= maximumCrossings else {
            throw StrictJSON.Refusal(
                reason: "a route has at most \(maximumCrossings) crossings; this one has \(body.crossings.count)")
        }
        for (index, crossing) in body.crossings.enumerated() {
            guard crossing.minutesFromStart.isFinite, (0...1_440).contains(crossing.minutesFromStart) else {
                throw StrictJSON.Refusal(reason: "crossing \(index + 1): minutesFromStart must be from 0 to 1440")
            }
            guard !crossing.bridgeIDs.isEmpty else { throw StrictJSON.Refusal(reason: "crossing \(index + 1) names no bridge") }
            guard crossing.bridgeIDs.count <= maximumBridgesPerCrossing else {
                throw StrictJSON.Refusal(
                    reason: "crossing \(index + 1) names more than \(maximumBridgesPerCrossing) bridges")
            }
        }
        guard zip(body.crossings, body.crossings.dropFirst()).allSatisfy({ $0.minutesFromStart <= $1.minutesFromStart })
        else {
            throw StrictJSON.Refusal(reason: "crossings must be in travel order (minutesFromStart rising)")
        }
        return (body.crossings.map { ($0.bridgeIDs, $0.minutesFromStart) }, body.isFavorite ?? false)
    }

    /// `DELETE /v1/routes/{name}`: 204, or 404 when no such route is saved.
    func removeRoute(_ name: String, _ request: Request) async throws -> Response {
        let name = try routeName(name)
        guard try await web.routeFile().removeRoute(named: name) else {
            throw Problem(.inputUnknownRoute, detail: "no route named '\(name)'")
        }
        return Response(status: .noContent)
    }

    /// A route name from the path: trimmed, not empty, at most 200 characters, no control characters.
    func routeName(_ text: String) throws -> String {
        let name = text.trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty, name.count <= 200,
              !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else {
            throw Problem.badPath("name", "a route name is 1 to 200 characters, none of them control characters")
        }
        return name
    }
}
