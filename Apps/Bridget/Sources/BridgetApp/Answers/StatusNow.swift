import BridgetAnalysis
import BridgetDTOs
import BridgetPersistence
import Foundation

/// Whether a bridge is open now, opens soon, or is closed: one bridge's line of `bridget status`,
/// `GET /v1/bridges/{id}/status` and the overview's "now" column.
package struct BridgeStatusNow: Encodable, Sendable {
    package enum State: String, Encodable, Sendable {
        case open
        case openingSoon = "opening soon"
        case closed
    }

    /// An opening as a status names it.
    package struct Opening: Encodable, Sendable, Equatable {
        package let openedAt: Date
        package let closedAt: Date?
        /// `observed` (it happened or is under way) or `planned` (announced).
        package let status: OpeningStatus
    }

    package let bridgeID: String
    package let bridgeName: String
    package let state: State
    /// Open: since when, whether that is observed or only announced, and when it is expected to end (`nil`: not
    /// known).
    package let openSince: Date?
    package let basis: OpeningStatus?
    package let expectedEnd: Date?
    /// Opening soon: when, and in how many whole minutes.
    package let opensAt: Date?
    package let opensInMinutes: Int?
    /// The latest opening that started before now, and the next announced one.
    package let lastOpening: Opening?
    package let nextPlanned: Opening?
    /// The model's chance that the bridge starts to open in the next 20 minutes (`nil`: no history to learn from).
    package let chanceNext20Minutes: Double?
}

/// The status of every bridge (or some) at one moment, and how current the store is: the answer says as of when,
/// and says so when the history runs behind the clock (Seattle's public table is about a day behind).
package struct StatusNowAnswer: Encodable, Sendable {
    /// The moment the status is for.
    package let asOf: Date
    /// The newest opening that happened (not an announced one), and how many minutes before `asOf` it started.
    package let newestOpening: Date?
    package let newestOpeningAgeMinutes: Int?
    /// When a sync last succeeded (`nil`: never, e.g. an imported store).
    package let lastSync: Date?
    /// A planned opening within this many minutes counts as opening soon.
    package let soonMinutes: Int
    /// What the reader must know to read the answer (a history behind the clock), or `nil`.
    package let caveat: String?
    package let bridges: [BridgeStatusNow]

    /// An opening under way with no known end counts as open for at most this long after it started.
    package static let longestOpenWithoutEnd: TimeInterval = 2 * 3600
    /// A history whose newest opening is older than this is said to run behind.
    package static let behindAfter: TimeInterval = 6 * 3600
    /// How far ahead an announced opening is looked for.
    package static let plannedHorizon: TimeInterval = 7 * 86_400

    /// The status at `now` of `bridges` (every bridge of the catalog when empty).
    package static func current(books: HistoryBooks, bridges wanted: [BridgeInfoDTO] = [], now: Date)
        async throws -> StatusNowAnswer
    {
        let context = books.context
        let store = books.store
        let book = try await books.book()
        let bridges = wanted.isEmpty ? book.catalog.bridges : wanted
        let soon = context.configuration.soonInterval
        // One read of the openings near now for every bridge, then one per bridge whose last opening is older.
        let near = try await store.events(matching: EventQuery(
            openedFrom: now.addingTimeInterval(-longestOpenWithoutEnd - 86_400),
            openedBefore: now.addingTimeInterval(plannedHorizon)))
        let byBridge = Dictionary(grouping: near, by: \.bridgeID)
        let reading = context.clock.reading(for: now)
        var lines: [BridgeStatusNow] = []
        for bridge in bridges {
            let events = byBridge[bridge.id] ?? []
            var last = events.last { $0.status == .observed && $0.openedAt <= now }
            if last == nil {
                last = try await store.events(matching: EventQuery(
                    bridgeID: bridge.id, openedBefore: now.addingTimeInterval(0.001), limit: 1, newestFirst: true,
                    status: .observed)).first
            }
            let next = events.first { $0.status == .planned && $0.openedAt > now }
            let chance: Double? = if let model = try await book.model(bridge.id), model.openings > 0 {
                OpeningModelBuilder.forecast(model, bridge: bridge, at: reading, windowMinutes: 20).chanceOfOpening
            } else {
                nil
            }
            lines.append(line(bridge, events: events, last: last, next: next, chance: chance, now: now, soon: soon))
        }
        let newest = try await store.events(matching: EventQuery(
            openedBefore: now.addingTimeInterval(0.001), limit: 1, newestFirst: true, status: .observed)).first?.openedAt
        let lastSync = try await store.lastSucceededRun(provider: context.configuration.provider.rawValue)?.finishedAt
        let age = newest.map { Int(now.timeIntervalSince($0) / 60) }
        var caveat: String?
        if context.configuration.provider == .ndw {
            // A snapshot source: the answer is as fresh as the last reading of the feed.
            if let lastSync {
                if now.timeIntervalSince(lastSync) > 3_600 {
                    caveat = "The feed was last read \(Self.span(now.timeIntervalSince(lastSync))) before this answer: "
                        + "what changed since is not known yet."
                }
            } else {
                caveat = "The feed has not been read by a sync yet: run `bridget sync` first."
            }
        } else if let newest, now.timeIntervalSince(newest) > behindAfter {
            caveat = "The newest stored opening started \(Self.span(now.timeIntervalSince(newest))) before this answer: "
                + "openings since then are not known yet"
                + (context.configuration.provider == .live || context.configuration.provider == .cached
                    ? " (Seattle's public table runs about a day behind)." : ".")
        } else if newest == nil {
            caveat = "No opening that happened is stored yet: run `bridget sync` first."
        }
        return StatusNowAnswer(asOf: now, newestOpening: newest, newestOpeningAgeMinutes: age, lastSync: lastSync,
                               soonMinutes: Int(soon / 60), caveat: caveat, bridges: lines)
    }

    /// One bridge's line from its openings near now.
    static func line(_ bridge: BridgeInfoDTO, events: [BridgeEventDTO], last: BridgeEventDTO?, next: BridgeEventDTO?,
                     chance: Double?, now: Date, soon: TimeInterval) -> BridgeStatusNow {
        func opening(_ event: BridgeEventDTO?) -> BridgeStatusNow.Opening? {
            event.map { BridgeStatusNow.Opening(openedAt: $0.openedAt, closedAt: $0.closedAt, status: $0.status) }
        }
        // Open: an observed opening under way (its end after now, or no end yet and recent), else an announced one
        // whose window holds now. Observed wins over announced.
        let observedNow = events.last { event in
            event.status == .observed && event.openedAt <= now
                && (event.closedAt.map { $0 > now } ?? (now.timeIntervalSince(event.openedAt) <= longestOpenWithoutEnd))
        }
        let announcedNow = events.last { event in
            event.status == .planned && event.openedAt <= now && (event.closedAt.map { $0 > now } ?? false)
        }
        if let open = observedNow ?? announcedNow {
            return BridgeStatusNow(
                bridgeID: bridge.id, bridgeName: bridge.displayName, state: .open, openSince: open.openedAt,
                basis: open.status, expectedEnd: open.closedAt, opensAt: nil, opensInMinutes: nil,
                lastOpening: opening(last), nextPlanned: opening(next), chanceNext20Minutes: chance)
        }
        if let next, next.openedAt.timeIntervalSince(now) <= soon {
            return BridgeStatusNow(
                bridgeID: bridge.id, bridgeName: bridge.displayName, state: .openingSoon, openSince: nil, basis: nil,
                expectedEnd: next.closedAt, opensAt: next.openedAt,
                opensInMinutes: Int((next.openedAt.timeIntervalSince(now) / 60).rounded(.up)),
                lastOpening: opening(last), nextPlanned: opening(next), chanceNext20Minutes: chance)
        }
        return BridgeStatusNow(
            bridgeID: bridge.id, bridgeName: bridge.displayName, state: .closed, openSince: nil, basis: nil,
            expectedEnd: nil, opensAt: nil, opensInMinutes: nil, lastOpening: opening(last), nextPlanned: opening(next),
            chanceNext20Minutes: chance)
    }

    /// "26 h", "3 d", "40 min".
    package static func span(_ seconds: TimeInterval, roundingUp: Bool = false) -> String {
        // Up for a time to come ("opens in 12 min" while 11 min 20 s remain, as the status says), down for one past.
        let minutes = Int((seconds / 60).rounded(roundingUp ? .up : .down))
        if minutes < 120 { return "\(minutes) min" }
        if minutes < 72 * 60 { return "\(minutes / 60) h" }
        return "\(minutes / 1440) d"
    }
}
