import BridgetApp
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
            // Without a date, "today" moves at midnight: tagged by the day.
            let day = Query(request)["date"] == nil ? web.dayTag() : ""
            return try await web.cached(request, varying: file.fingerprint() + day) {
                try await bestTime(name, Query(request), file: file)
            }
        }
        endpoints.put("/v1/routes/{name}") { request, context in
            let name = try request.pathParameter("name", in: context)
            return try await saveRoute(name, request)
        }
        endpoints.delete("/v1/routes/{name}") { request, context in
            let name = try request.pathParameter("name", in: context)
            return try await removeRoute(name, request)
        }
    }

    /// `bridget route score NAME --depart …`'s answer.
    func score(_ name: String, _ query: Query, file: RouteFile) async throws -> RouteScoreDTO {
        let route = try await RouteAnswers.route(name, in: file)
        try await web.app.requireHistory(web.store, for: "route scoring")
        return try await RouteAnswers(context: web.app, store: web.store)
            .score(route, depart: query["depart"], option: "depart").score
    }

    /// `bridget route best-time NAME --between FROM TO [--date] [--step] [--top]`'s answer.
    func bestTime(_ name: String, _ query: Query, file: RouteFile) async throws -> [RouteScoreDTO] {
        let route = try await RouteAnswers.route(name, in: file)
        guard let from = query["between"], let to = query["and"] else {
            throw Problem.badParameter(query["between"] == nil ? "between" : "and",
                                       "give both ends of the departure range: ?between=16:00&and=18:30")
        }
        let step = try TimeGrammar.minutes(query["step"] ?? "5m", option: "step")
        let top = try query.integer("top", in: 0...1_000, fallback: 10, meaning: " (all)")
        try await web.app.requireHistory(web.store, for: "route scoring")
        return try await RouteAnswers(context: web.app, store: web.store)
            .bestTime(route, between: (from, to), date: query["date"], stepMinutes: step, top: top,
                      names: DepartureRangeNames(from: "between", to: "and", date: "date"))
            .shown
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

    /// `PUT /v1/routes/{name}`: saves the route (201 when new, 200 when it replaced one) and answers it as stored.
    func saveRoute(_ name: String, _ request: Request) async throws -> Response {
        try authorize(request)
        let name = try routeName(name)
        let limit = web.app.configuration.serve.maximumBodyBytes
        if let length = request.headers[.contentLength].flatMap(Int.init), length > limit {
            throw Problem.tooLarge(limit)
        }
        var request = request
        let buffer: ByteBuffer
        do {
            buffer = try await request.collectBody(upTo: limit)
        } catch let error as any HTTPResponseError where error.status == .contentTooLarge {
            throw Problem.tooLarge(limit)
        }
        let body: RouteBody
        do {
            body = try JSONDecoder().decode(RouteBody.self, from: Data(buffer.readableBytesView))
        } catch {
            throw Problem.badBody("the body is not a route: " + Self.decodingReason(error)
                                  + #"; send {"crossings": [{"bridgeIDs": ["Fremont"], "minutesFromStart": 8}]}"#)
        }
        if let id = body.id, id.trimmingCharacters(in: .whitespaces) != name {
            throw Problem.badBody("the body names route '\(id)' but the path names '\(name)'")
        }
        guard !body.crossings.isEmpty else { throw Problem.badBody("a route needs at least one crossing") }
        let catalog = try await web.app.catalog(in: web.store)
        var crossings: [RouteCrossingDTO] = []
        for (index, crossing) in body.crossings.enumerated() {
            guard crossing.minutesFromStart.isFinite, (0...1_440).contains(crossing.minutesFromStart) else {
                throw Problem.badBody("crossing \(index + 1): minutesFromStart must be from 0 to 1440")
            }
            guard !crossing.bridgeIDs.isEmpty else { throw Problem.badBody("crossing \(index + 1) names no bridge") }
            var ids: [String] = []
            for text in crossing.bridgeIDs {
                guard let bridge = catalog.resolve(text.trimmingCharacters(in: .whitespaces)) else {
                    throw Problem.badBody("crossing \(index + 1): no bridge named '\(ConfigValueType.escaped(text, limit: 80))'; "
                                          + "known: " + catalog.bridges.map { "\($0.name) (\($0.id))" }.joined(separator: ", "))
                }
                if !ids.contains(bridge.id) { ids.append(bridge.id) }
            }
            crossings.append(RouteCrossingDTO(bridgeIDs: ids, minutesFromStart: crossing.minutesFromStart))
        }
        guard zip(crossings, crossings.dropFirst()).allSatisfy({ $0.minutesFromStart <= $1.minutesFromStart }) else {
            throw Problem.badBody("crossings must be in travel order (minutesFromStart rising)")
        }
        let route = RouteDTO(id: name, crossings: crossings, isFavorite: body.isFavorite ?? false)
        let file = try await web.routeFile()
        let existed = try await file.route(named: name) != nil
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

    /// `DELETE /v1/routes/{name}`: 204, or 404 when no such route is saved.
    func removeRoute(_ name: String, _ request: Request) async throws -> Response {
        try authorize(request)
        let name = try routeName(name)
        guard try await web.routeFile().removeRoute(named: name) else {
            throw Problem(status: .notFound, type: "unknown-route", title: "No such route", detail: "no route named '\(name)'")
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

    /// Lets a write through when it carries `Authorization: Bearer <token>` with the token of `serve.token_env`,
    /// compared in constant time; else a 401 (or 403 when no token is configured, so no write can ever pass). The
    /// token is never logged or echoed.
    func authorize(_ request: Request) throws {
        let variable = web.app.configuration.serve.tokenVariable
        guard let expected = web.app.configuration.apiToken else {
            throw Problem(status: .forbidden, type: "forbidden", title: "Writes are off",
                          detail: "this server has no write token: set $\(variable) (serve.token_env) where it runs")
        }
        let given = request.headers[.authorization] ?? ""
        let prefix = "bearer "
        guard given.count > prefix.count, given.prefix(prefix.count).lowercased() == prefix,
              Self.constantTimeEqual(Array(given.utf8.dropFirst(prefix.count)), Array(expected.utf8))
        else {
            throw Problem(status: .unauthorized, type: "unauthorized", title: "A bearer token is needed",
                          detail: "send Authorization: Bearer <the token in $\(variable)>",
                          headers: [.wwwAuthenticate: #"Bearer realm="bridget""#])
        }
    }

    /// Whether two byte strings are equal, in a time that depends on their lengths only (not on where they differ).
    static func constantTimeEqual(_ given: [UInt8], _ expected: [UInt8]) -> Bool {
        var difference = UInt8(given.count == expected.count ? 0 : 1)
        for index in 0..<max(given.count, expected.count) {
            let left = index < given.count ? given[index] : 0
            let right = index < expected.count ? expected[index] : 0
            difference |= left ^ right
        }
        return difference == 0
    }

    /// A decoding error in a sentence: the field and what was wrong.
    static func decodingReason(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "it is not JSON" }
        func path(_ context: DecodingError.Context) -> String {
            let text = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? "." + $0.stringValue }.joined()
            return text.isEmpty ? "the body" : String(text.drop { $0 == "." })
        }
        switch error {
        case .keyNotFound(let key, let context):
            return "\(path(context)).\(key.stringValue) is missing".replacingOccurrences(of: "the body.", with: "")
        case .typeMismatch(_, let context), .valueNotFound(_, let context): return "\(path(context)) has the wrong type"
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty ? "it is not JSON" : "\(path(context)) is not valid"
        @unknown default: return "it is not JSON"
        }
    }
}
