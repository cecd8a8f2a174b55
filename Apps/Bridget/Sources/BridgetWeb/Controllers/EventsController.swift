import BridgetAnswers
import BridgetCore
import BridgetDTOs
import BridgetPersistence
import Foundation
import HTTPTypes
import Hummingbird

/// Pages of stored openings: `GET /v1/events` (every bridge, or those `bridge` names) and
/// `GET /v1/bridges/{id}/events` (one), with `bridget events`' filters and row format.
///
/// A page's cursor carries its query (bridges, range, order, page size): following `next` (or the `Link` header's
/// `rel="next"`) gives the next page of the same query, whatever else the client sends. A cursor given with
/// filters that differ from its own is refused (400) rather than read as a place in another query.
struct EventsController {
    let web: WebContext

    func addRoutes(to endpoints: Endpoints) {
        endpoints.get("/v1/events") { request, _ in
            let query = Query(request)
            let bridges = try await web.queryBridges(query.all("bridge")).map(\.id)
            return try await page(request, query, bridges: bridges, path: "/v1/events", fixed: false)
        }
        endpoints.get("/v1/bridges/{id}/events") { request, context in
            let id = try request.pathParameter("id", in: context)
            let bridge = try await web.catalogBridge(id)
            // The id as one path segment: `/` and every other reserved character escaped.
            let segment = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))
            let path = "/v1/bridges/" + (bridge.id.addingPercentEncoding(withAllowedCharacters: segment) ?? bridge.id)
                + "/events"
            return try await page(request, Query(request), bridges: [bridge.id], path: path, fixed: true)
        }
    }

    /// The page `query` asks for, with `next` and `Link` when more follow.
    private func page(_ request: Request, _ query: Query, bridges: [String], path: String, fixed: Bool)
        async throws -> Response
    {
        let (asked, cursor) = try await pageQuery(query, bridges: bridges, fixed: fixed)
        return try await web.cached(request, headers: { (output: EventPageOutput) in
            guard let next = output.next else { return [:] }
            return [.link: "<\(next)>; rel=\"next\""]
        }) {
            let page = try await HistoryAnswers(context: web.app, store: web.store).eventPage(asked, after: cursor)
            return EventPageOutput(events: page.events,
                                   next: page.cursor.map { Self.nextURL(path: path, cursor: $0, fixed: fixed) },
                                   cursor: page.cursor?.text)
        }
    }

    /// The query of the request's parameters (`since`, `until`, `order`, `limit`, the bridges), or of its cursor:
    /// a parameter given with a cursor must say what the cursor's query says.
    func pageQuery(_ query: Query, bridges: [String], fixed: Bool) async throws -> (EventPageQuery, EventCursor?) {
        let grammar = web.app.timeGrammar
        let from = try query["since"].map { try grammar.instant($0, option: "since", direction: .back) }
        let before = try query["until"].map { try grammar.instant($0, option: "until", direction: .back) }
        if let from, let before, from >= before {
            throw Problem.badParameter("until", "'\(ConfigValueType.escaped(query["until"] ?? "", limit: 60))' is not after "
                                       + "since: the range is empty (until is exclusive)")
        }
        let order = query["order"]
        guard order == nil || order == "newest" || order == "oldest" else {
            throw Problem.badParameter("order", "'\(ConfigValueType.escaped(order ?? "", limit: 40))' is not an order "
                                       + "here; newest (the default) or oldest")
        }
        let limit = query["limit"] == nil ? nil
            : try query.integer("limit", in: 1...HistoryAnswers.maximumPage, fallback: 100)
        guard let text = query["cursor"] else {
            return (EventPageQuery(bridgeIDs: bridges, from: from, before: before, oldestFirst: order == "oldest",
                                   limit: limit ?? 100), nil)
        }
        let cursor = try await given(text)
        let carried = cursor.query
        var differs: [String] = []
        if fixed || !bridges.isEmpty, Array(Set(bridges)).sorted() != carried.bridgeIDs { differs.append("bridge") }
        if let from, EventPageQuery.millisecond(from) != carried.from { differs.append("since") }
        if let before, EventPageQuery.millisecond(before) != carried.before { differs.append("until") }
        if let order, (order == "oldest") != carried.oldestFirst { differs.append("order") }
        if let limit, limit != carried.limit { differs.append("limit") }
        guard differs.isEmpty else {
            throw Problem.badParameter("cursor", "the cursor belongs to another query: its "
                                       + differs.joined(separator: ", ") + " differ from this request's; follow the "
                                       + "page's next as it is, or leave the cursor out to start a new query")
        }
        return (carried, cursor)
    }

    /// A cursor this API gave: its last event is a stored opening within its query. One that names no stored
    /// opening was not given here (or names one since pruned), and is refused rather than read as a place.
    private func given(_ text: String) async throws -> EventCursor {
        let refusal = Problem.badParameter("cursor", "'\(ConfigValueType.escaped(text, limit: 60))' is not a cursor "
                                           + "this API gave; follow a page's next (or its Link header) as it is")
        guard let cursor = EventCursor(text: text) else { throw refusal }
        let (key, query) = (cursor.key, cursor.query)
        // Its bridges are the catalog's (a forged list of thousands would be a store query each).
        let catalog = try await web.books.book().catalog
        guard query.bridgeIDs.allSatisfy({ catalog.bridge(id: $0) != nil }) else { throw refusal }
        guard query.bridgeIDs.isEmpty || query.bridgeIDs.contains(key.bridgeID),
              query.from.map({ key.openedAt >= $0 }) ?? true, query.before.map({ key.openedAt < $0 }) ?? true,
              try await !web.store.events(matching: EventQuery(
                  bridgeID: key.bridgeID, openedFrom: key.openedAt, openedBefore: key.openedAt.addingTimeInterval(0.001),
                  limit: 1)).isEmpty
        else { throw refusal }
        return cursor
    }

    /// The next page's URL, relative to the server: the query written out (instants in UTC, to the millisecond) and
    /// the cursor that carries it.
    static func nextURL(path: String, cursor: EventCursor, fixed: Bool) -> String {
        var items: [URLQueryItem] = []
        let query = cursor.query
        if !fixed { items += query.bridgeIDs.map { URLQueryItem(name: "bridge", value: $0) } }
        if let from = query.from { items.append(URLQueryItem(name: "since", value: from.internetDateTimeMilliseconds)) }
        if let before = query.before {
            items.append(URLQueryItem(name: "until", value: before.internetDateTimeMilliseconds))
        }
        items.append(URLQueryItem(name: "order", value: query.oldestFirst ? "oldest" : "newest"))
        items.append(URLQueryItem(name: "limit", value: String(query.limit)))
        items.append(URLQueryItem(name: "cursor", value: cursor.text))
        var components = URLComponents()
        components.queryItems = items
        // `+` in a query means a space to most servers: a time's offset or a bridge's name keeps it escaped.
        let encoded = (components.percentEncodedQuery ?? "").replacingOccurrences(of: "+", with: "%2B")
        return path + "?" + encoded
    }
}

extension Date {
    /// The instant in UTC to the millisecond (`2026-07-01T07:00:00.000Z`), as `since` and `until` take it.
    fileprivate var internetDateTimeMilliseconds: String {
        formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }
}

extension HTTPField.Name {
    /// `Link` (RFC 8288): where the next page is.
    static var link: Self { Self("Link")! }
}
