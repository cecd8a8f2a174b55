import BridgetAnalysis
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

    /// `bridget stats --heatmap --format json`'s answer over `scope`.
    package func heatmap(in scope: HistoryScope) async throws -> HeatmapOutput {
        HeatmapOutput(try await statistics(in: scope), zone: context.clock.zone)
    }

    /// Most events one page holds.
    package static let maximumPage = 1_000

    /// A page of `bridge`'s events, newest first, in `[from, before)`: at most `limit`, after `cursor` (a cursor an
    /// earlier page gave for this bridge), with the cursor of the next page when there is one.
    package func eventPage(of bridge: BridgeInfoDTO, from: Date?, before: Date?, limit: Int, after cursor: EventCursor?)
        async throws -> EventPage
    {
        var query = EventQuery(bridgeID: bridge.id, openedFrom: from, openedBefore: before, newestFirst: true)
        query.after = cursor?.key
        query.limit = limit + 1
        var found = try await store.events(matching: query)
        let more = found.count > limit
        if more { found.removeLast(found.count - limit) }
        let clock = context.clock
        return EventPage(events: found.map { EventOutput($0, clock: clock) },
                         next: more ? found.last.map { EventCursor(key: $0.key).text } : nil)
    }
}

/// A page of a bridge's events, newest first, as `bridget events --format json` prints them, and the cursor of the
/// next page (absent on the last).
package struct EventPage: Encodable, Sendable {
    package let events: [EventOutput]
    package let next: String?
}

/// Where a page of events ends: the key of its last event, as an opaque text (base64url of the bridge id and the
/// instant in milliseconds).
package struct EventCursor: Sendable, Equatable {
    package let key: EventKey

    package init(key: EventKey) { self.key = key }

    /// The cursor's text.
    package var text: String {
        let plain = key.bridgeID + "|" + String(Int64((key.openedAt.timeIntervalSince1970 * 1000).rounded()))
        return Data(plain.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    /// Reads a cursor's text; `nil` when it is not one.
    package init?(text: String) {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        guard let data = Data(base64Encoded: base64), let plain = String(data: data, encoding: .utf8) else { return nil }
        let parts = plain.split(separator: "|")
        guard parts.count == 2, let millis = Int64(parts[1]) else { return nil }
        key = EventKey(bridgeID: String(parts[0]), openedAt: Date(timeIntervalSince1970: Double(millis) / 1000))
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

/// The JSON form of an event (documented in Docs/OUTPUT.md).
package struct EventOutput: Encodable, Sendable {
    package let bridgeID: String
    package let bridgeName: String
    package let openedAt: Date
    package let openLocal: String
    package let closedAt: Date?
    package let closeLocal: String?
    package let minutesOpen: Int?
    package let durationMinutes: Double?
    package let latitude: Double?
    package let longitude: Double?
    /// `observed`, or `planned` for an announced opening.
    package let status: String
    /// The source's record id and version, when it has them.
    package let recordID: String?
    package let recordVersion: Int?

    package init(_ event: BridgeEventDTO, clock: LocalClock) {
        bridgeID = event.bridgeID
        bridgeName = event.bridgeName
        openedAt = event.openedAt
        openLocal = clock.reading(for: event.openedAt).localText
        closedAt = event.closedAt
        closeLocal = event.closedAt.map { clock.reading(for: $0).localText }
        minutesOpen = event.minutesOpen
        durationMinutes = event.durationMinutes
        latitude = event.latitude
        longitude = event.longitude
        status = event.status.rawValue
        recordID = event.recordID
        recordVersion = event.recordVersion
    }
}
