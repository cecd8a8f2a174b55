import BridgetAnalysis
import BridgetContext
import BridgetDTOs
import BridgetPersistence
import Foundation

/// The history's answers that every front end gives alike: statistics, the hour-of-week heatmap and pages of events.
package struct HistoryAnswers: Sendable {
    package let context: AppContext
    package let store: any BridgeStore

    package init(context: AppContext, store: any BridgeStore) {
        self.context = context
        self.store = store
    }

    /// `bridget stats --format json`'s answer over `scope`.
    package func statistics(in scope: HistoryScope) async throws -> StatisticsDTO {
        try await context.assembly.makeProcessor(store: store).generateStatistics(in: scope)
    }

    /// `bridget stats --format json`'s and `GET /v1/stats`' answer over `scope`: the statistics (`statistics`, when
    /// already computed), where the openings come from, and the source the store records.
    package func stats(_ statistics: StatisticsDTO? = nil, in scope: HistoryScope) async throws -> StatsOutput {
        let figures = if let statistics { statistics } else { try await self.statistics(in: scope) }
        let provenance = try await ProvenanceAnswer.current(store: store, now: context.assembly.now(), scope: scope)
        return StatsOutput(statistics: figures, provenance: provenance,
                           source: try await store.recordedSource()?.identity.description)
    }

    /// `bridget stats --heatmap --format json`'s answer over `scope`.
    package func heatmap(in scope: HistoryScope) async throws -> HeatmapOutput {
        HeatmapOutput(try await statistics(in: scope), zone: context.clock.zone)
    }

    /// Most events one page holds.
    package static let maximumPage = 1_000

    /// A page of the events `query` asks for, after `cursor` (the last page's, of the same query), with the cursor
    /// of the next page when there is one.
    package func eventPage(_ query: EventPageQuery, after cursor: EventCursor?) async throws -> EventPage {
        let scope = HistoryScope(bridgeIDs: query.bridgeIDs, from: query.from, before: query.before)
        var found = try await scope.events(in: store, limit: query.limit + 1, newestFirst: !query.oldestFirst,
                                           after: cursor?.key)
        let more = found.count > query.limit
        if more { found.removeLast(found.count - query.limit) }
        let clock = context.clock
        return EventPage(events: found.map { EventOutput($0, clock: clock) },
                         cursor: more ? found.last.map { EventCursor(key: $0.key, query: query) } : nil)
    }
}

/// `stats`' JSON: the statistics' fields, and where the openings come from under `provenance`.
package struct StatsOutput: Encodable, Sendable {
    package let statistics: StatisticsDTO
    package let provenance: ProvenanceAnswer
    /// The source the store records (`SourceIdentity`), `null` when it records none.
    package let source: String?

    private enum Keys: String, CodingKey { case provenance, source }

    package func encode(to encoder: any Encoder) throws {
        try statistics.encode(to: encoder)
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(provenance, forKey: .provenance)
        try container.encode(source, forKey: .source)
    }
}

/// What a page of events answers: which bridges (every one when empty), openings in `[from, before)`, in which
/// order, how many a page. A cursor carries it, so following a cursor never leaves the filters.
package struct EventPageQuery: Sendable, Equatable, Codable {
    /// Bridge ids, sorted; empty for every bridge.
    package var bridgeIDs: [String]
    package var from: Date?
    package var before: Date?
    package var oldestFirst: Bool
    package var limit: Int

    package init(bridgeIDs: [String], from: Date?, before: Date?, oldestFirst: Bool, limit: Int) {
        self.bridgeIDs = Array(Set(bridgeIDs)).sorted()
        self.from = from.map(Self.millisecond)
        self.before = before.map(Self.millisecond)
        self.oldestFirst = oldestFirst
        self.limit = limit
    }

    /// An instant to the millisecond, as a cursor keeps it and `next` writes it.
    package static func millisecond(_ date: Date) -> Date {
        Date(timeIntervalSince1970: (date.timeIntervalSince1970 * 1000).rounded(.down) / 1000)
    }
}

/// A page of events, in the query's order, as `bridget events --format json` prints them, and where the next page
/// starts (absent on the last).
package struct EventPage: Sendable {
    package let events: [EventOutput]
    package let cursor: EventCursor?
}

/// Where a page of events ends and what it answered: the key of its last event and the page's query, as an opaque
/// text (base64url of their JSON).
package struct EventCursor: Sendable, Equatable {
    package let key: EventKey
    package let query: EventPageQuery

    package init(key: EventKey, query: EventPageQuery) {
        self.key = key
        self.query = query
    }

    private struct Form: Codable {
        /// The last event's bridge and opening, in milliseconds.
        let b: String
        let t: Int64
        let q: Query
        struct Query: Codable {
            let bridges: [String]
            let from: Int64?
            let before: Int64?
            let oldest: Bool
            let limit: Int
        }
    }

    private static func millis(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }
    private static func date(_ millis: Int64) -> Date { Date(timeIntervalSince1970: Double(millis) / 1000) }

    /// The cursor's text.
    package var text: String {
        let form = Form(b: key.bridgeID, t: Self.millis(key.openedAt), q: Form.Query(
            bridges: query.bridgeIDs, from: query.from.map(Self.millis), before: query.before.map(Self.millis),
            oldest: query.oldestFirst, limit: query.limit))
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys // one text per cursor: answers are cached by their URL
        let json = (try? encoder.encode(form)) ?? Data()
        return json.base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    /// Reads a cursor's text; `nil` when it is not one.
    package init?(text: String) {
        guard text.utf8.count <= 8_192 else { return nil }
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        // Instants in the years the time grammar takes (1900 to 2999), so no forged one overflows a store's column.
        let years = Int64(-2_208_988_800_000)...Int64(32_503_680_000_000)
        guard let data = Data(base64Encoded: base64), let form = try? JSONDecoder().decode(Form.self, from: data),
              form.q.limit >= 1, form.q.limit <= HistoryAnswers.maximumPage, years.contains(form.t),
              form.q.from.map(years.contains) ?? true, form.q.before.map(years.contains) ?? true
        else { return nil }
        key = EventKey(bridgeID: form.b, openedAt: Self.date(form.t))
        query = EventPageQuery(bridgeIDs: form.q.bridges, from: form.q.from.map(Self.date),
                               before: form.q.before.map(Self.date), oldestFirst: form.q.oldest, limit: form.q.limit)
    }
}

/// `stats --heatmap --format json` and `GET /v1/stats/heatmap`: each bridge's openings by hour of the week in the
/// source's zone, Monday first, an hour a column (the counts the table draws).
package struct HeatmapOutput: Encodable, Sendable {
    package struct Bridge: Encodable, Sendable {
        package let bridgeID: String
        package let bridgeName: String
        package let openings: Int
        /// Seven rows (Monday to Sunday) of 24 counts (00:00 to 23:00).
        package let hourOfWeek: [[Int]]
    }

    package let zone: String
    package let weekdays: [String]
    package let bridges: [Bridge]

    package init(_ statistics: StatisticsDTO, zone: TimeZone) {
        self.zone = zone.identifier
        weekdays = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
        bridges = statistics.bridges.map {
            Bridge(bridgeID: $0.bridgeID, bridgeName: $0.bridgeName, openings: $0.openings, hourOfWeek: $0.hourOfWeek)
        }
    }
}
