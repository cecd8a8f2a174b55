import Foundation
import OpenAPIRuntime

/// What a walk through pages of events asks: `bridges` (ids or names; every bridge when empty, or the one `bridge`),
/// openings from `since` (inclusive) to `until` (exclusive) in the API's time grammar (`2026-07-01`, `30d`, an ISO
/// 8601 instant), `oldestFirst` or newest first, `limit` events a page (1 to 1,000).
public struct EventQuery: Sendable, Equatable {
    public var bridges: [String]
    public var since: String?
    public var until: String?
    public var oldestFirst: Bool
    public var limit: Int

    public init(bridges: [String] = [], since: String? = nil, until: String? = nil, oldestFirst: Bool = false,
                limit: Int = 100) {
        self.bridges = bridges
        self.since = since
        self.until = until
        self.oldestFirst = oldestFirst
        self.limit = limit
    }
}

/// Pages of events, fetched one at a time as they are taken, following each page's cursor to the last page.
public struct EventPages: AsyncSequence, Sendable {
    public typealias Element = Components.Schemas.EventPage

    let client: Client
    let query: EventQuery

    public func makeAsyncIterator() -> Iterator { Iterator(client: client, query: query) }

    public struct Iterator: AsyncIteratorProtocol {
        let client: Client
        let query: EventQuery
        /// The next page's cursor; `nil` before the first page.
        var cursor: String?
        var finished = false

        public mutating func next() async throws -> Components.Schemas.EventPage? {
            guard !finished else { return nil }
            // After the first page the cursor alone: it carries the query.
            let parameters: Operations.ListEvents.Input.Query = if let cursor {
                .init(cursor: cursor)
            } else {
                .init(bridge: query.bridges.isEmpty ? nil : query.bridges, since: query.since, until: query.until,
                      order: query.oldestFirst ? .oldest : .newest, limit: query.limit)
            }
            let page: Components.Schemas.EventPage
            switch try await client.listEvents(query: parameters) {
            case .ok(let ok): page = try ok.body.json
            case .badRequest(let refused):
                throw BridgetClientError.status(400, detail: try? refused.body.applicationProblemJson.value1.detail)
            case .notModified: throw BridgetClientError.status(304, detail: nil)
            case .serviceUnavailable(let unavailable):
                throw BridgetClientError.status(503, detail: try? unavailable.body.applicationProblemJson.value1.detail)
            case .internalServerError(let failed):
                throw BridgetClientError.status(500, detail: try? failed.body.applicationProblemJson.value1.detail)
            case .undocumented(let status, _): throw BridgetClientError.status(status, detail: nil)
            }
            cursor = page.cursor
            finished = cursor == nil
            return page
        }
    }
}
