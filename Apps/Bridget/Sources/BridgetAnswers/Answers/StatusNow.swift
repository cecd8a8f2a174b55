import BridgetAnalysis
import BridgetContext
import BridgetCore
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
        /// The live state feed has not named the bridge for a while (or its last reading is old).
        case unknown
    }

    /// An opening as a status names it.
    package struct Opening: Encodable, Sendable, Equatable {
        package let openedAt: Date
        package let closedAt: Date?
        /// `observed` (published), `live` (seen by polling the state feed) or `planned` (announced).
        package let status: OpeningStatus
    }

    package let bridgeID: String
    package let bridgeName: String
    package var state: State
    /// Open: since when, whether that is observed or only announced, and when it is expected to end (`nil`: not
    /// known).
    package var openSince: Date?
    package var basis: OpeningStatus?
    package var expectedEnd: Date?
    /// Opening soon: when, and in how many whole minutes.
    package var opensAt: Date?
    package var opensInMinutes: Int?
    /// The latest opening that started before now, and the next announced one.
    package let lastOpening: Opening?
    package let nextPlanned: Opening?
    /// The model's chance that the bridge starts to open in the next 20 minutes (`nil`: no history to learn from).
    package let chanceNext20Minutes: Double?
    /// From the live state feed, when it named this bridge: where it was last read and since when.
    package var live: LiveLine? = nil
    /// Why the state is unknown when nothing recent says it is closed: "newest opening on record 19 h ago".
    package var unknownBecause: String? = nil

    /// A bridge as the live state feed last gave it.
    package struct LiveLine: Encodable, Sendable {
        package let position: LiveFeedState.Position
        /// The first poll that saw it there.
        package let since: Date
        /// While raised: the poll before the one that saw it raised (it opened after this).
        package let openedAfter: Date?
        /// The last poll that read it.
        package let lastSeenAt: Date
    }
}

/// The live state feed as a status answer uses it.
package struct LiveStateSummary: Encodable, Sendable {
    /// The feed polled.
    package let source: String
    /// The last poll that gave a reading: the live state is as of then.
    package let asOf: Date?
    /// Seconds from `asOf` to the answer's moment.
    package let ageSeconds: Int?
    /// The last poll's problem, when it had one (`http-503`, `html-page`, …).
    package let problem: String?
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
    /// The live state feed, when it is on: as of when it was last read.
    package let live: LiveStateSummary?
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
        // Seattle now: the live state feed's last sight, for an answer about now (not a past moment).
        let feedOn = context.configuration.provider == .live && context.configuration.live.stateURL != nil
        // The live state says what is so now: an answer for another moment (`--at`) is the history's alone.
        let present = abs(now.timeIntervalSince(context.assembly.now())) < 60
        let feed = feedOn && present ? try await store.liveFeedState() : nil
        let staleAfter = LiveStateTracker.Settings(pollSeconds: context.configuration.live.statePollSeconds).unknownAfter
        let liveStale = feed?.lastGoodPollAt.map { now.timeIntervalSince($0) > staleAfter } ?? true
        var lines = try await bridgeLines(bridges, near: byBridge, book: book, store: store,
                                          reading: context.clock.reading(for: now), now: now, soon: soon)
        if let feed {
            lines = lines.map { entry in feed.bridges[entry.bridgeID].map { Self.live(entry, $0, stale: liveStale) } ?? entry }
        }
        let newest = try await store.events(matching: EventQuery(
            openedBefore: now.addingTimeInterval(0.001), limit: 1, newestFirst: true, happened: true)).first?.openedAt
        let lastSync = try await store.lastSucceededRun(provider: context.configuration.provider.rawValue)?.finishedAt
        let age = newest.map { Int(now.timeIntervalSince($0) / 60) }
        let facts = Freshness(now: now, live: feedOn && present, feed: feed, liveStale: liveStale,
                              provider: context.configuration.provider, lastSync: lastSync, newest: newest)
        let caveat = facts.caveat
        if let unknownBecause = facts.unknownBecause {
            lines = lines.map { line in
                guard line.state == .closed else { return line }
                var unknown = line
                unknown.state = .unknown
                unknown.unknownBecause = unknownBecause
                return unknown
            }
        }
        let summary = feedOn && present ? LiveStateSummary(
            source: context.configuration.live.stateURL ?? "", asOf: feed?.lastGoodPollAt,
            ageSeconds: feed?.lastGoodPollAt.map { Int(now.timeIntervalSince($0)) }, problem: feed?.lastProblem) : nil
        return StatusNowAnswer(asOf: now, newestOpening: newest, newestOpeningAgeMinutes: age, lastSync: lastSync,
                               soonMinutes: Int(soon / 60), caveat: caveat, live: summary, bridges: lines)
    }

    /// Each bridge's line from the history: its opening under way or last, the next announced, the chance of one in
    /// the next 20 minutes. `near` holds the openings around now by bridge; a bridge with none there reads its last.
    private static func bridgeLines(_ bridges: [BridgeInfoDTO], near: [String: [BridgeEventDTO]], book: ForecastBook,
                                    store: any EventStore, reading: FloatingTimestamp, now: Date, soon: TimeInterval)
        async throws -> [BridgeStatusNow]
    {
        var lines: [BridgeStatusNow] = []
        for bridge in bridges {
            let events = near[bridge.id] ?? []
            var last = events.last { $0.status.happened && $0.openedAt <= now }
            if last == nil {
                last = try await store.events(matching: EventQuery(
                    bridgeID: bridge.id, openedBefore: now.addingTimeInterval(0.001), limit: 1, newestFirst: true,
                    happened: true)).first
            }
            let next = events.first { $0.status == .planned && $0.openedAt > now }
            let chance: Double? = if let model = try await book.model(bridge.id), model.openings > 0 {
                try await book.nowcaster().forecast(
                    model, bridge: bridge, at: reading, windowMinutes: 20,
                    evidence: try await book.evidence(at: now, windowMinutes: 20)).chanceOfOpening
            } else {
                nil
            }
            lines.append(line(bridge, events: events, last: last, next: next, chance: chance, now: now, soon: soon))
        }
        return lines
    }

    /// A bridge's line with what the live state feed last read of it: raised is open since the poll that saw it
    /// (observed live), lowered is closed (an announced opening may still make it "opening soon"), unknown is
    /// unknown; a reading older than a few polls makes every position unknown.
    static func live(_ line: BridgeStatusNow, _ seen: LiveFeedState.Bridge, stale: Bool) -> BridgeStatusNow {
        var line = line
        line.live = BridgeStatusNow.LiveLine(position: seen.position, since: seen.since, openedAfter: seen.openedAfter,
                                             lastSeenAt: seen.lastSeenAt)
        let position = stale ? LiveFeedState.Position.unknown : seen.position
        switch position {
        case .raised:
            line.state = .open
            line.openSince = seen.openingAt ?? seen.since
            line.basis = .live
            line.expectedEnd = nil
            line.opensAt = nil
            line.opensInMinutes = nil
        case .lowered:
            if line.state == .open {
                line.state = .closed
                line.openSince = nil
                line.basis = nil
                line.expectedEnd = nil
            }
        case .unknown:
            line.state = .unknown
            line.openSince = nil
            line.basis = nil
            line.expectedEnd = nil
            line.opensAt = nil
            line.opensInMinutes = nil
        }
        return line
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
            event.status.happened && event.openedAt <= now
                && (event.closedAt.map { $0 > now } ?? (now.timeIntervalSince(event.openedAt) <= longestOpenWithoutEnd))
        }
        let announcedNow = events.last { event in
            event.status == .planned && event.openedAt <= now && (event.closedAt.map { $0 > now } ?? false)
        }
        if let open = observedNow ?? announcedNow {
            return BridgeStatusNow(
                bridgeID: bridge.id, bridgeName: bridge.name, state: .open, openSince: open.openedAt,
                basis: open.status, expectedEnd: open.closedAt, opensAt: nil, opensInMinutes: nil,
                lastOpening: opening(last), nextPlanned: opening(next), chanceNext20Minutes: chance)
        }
        if let next, next.openedAt.timeIntervalSince(now) <= soon {
            return BridgeStatusNow(
                bridgeID: bridge.id, bridgeName: bridge.name, state: .openingSoon, openSince: nil, basis: nil,
                expectedEnd: next.closedAt, opensAt: next.openedAt,
                opensInMinutes: Int((next.openedAt.timeIntervalSince(now) / 60).rounded(.up)),
                lastOpening: opening(last), nextPlanned: opening(next), chanceNext20Minutes: chance)
        }
        return BridgeStatusNow(
            bridgeID: bridge.id, bridgeName: bridge.name, state: .closed, openSince: nil, basis: nil,
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

/// How fresh what a status answer knows is: the live feed's last reading (when it answers for now), or the feed's last
/// sync (a snapshot source), or the newest stored opening; and what that means for the answer.
private struct Freshness {
    let now: Date
    /// The live state feed answers for now.
    let live: Bool
    let feed: LiveFeedState?
    let liveStale: Bool
    let provider: ProviderKind
    let lastSync: Date?
    let newest: Date?

    private func span(_ seconds: TimeInterval) -> String { StatusNowAnswer.span(seconds) }

    /// The sentence that warns of what the answer may not know, if anything.
    var caveat: String? {
        if live {
            // The live state answers for now; the history's lag is no caveat then.
            guard let good = feed?.lastGoodPollAt else {
                return "The live bridge state has not been read yet: `bridget watch` or `bridget serve` polls it."
            }
            guard liveStale else { return nil }
            return "The live bridge state was last read \(span(now.timeIntervalSince(good))) before this answer"
                + (feed?.lastProblem.map { " (the feed's last answer: \($0))" } ?? "")
                + ": bridges it named are unknown until it is read again."
        }
        if provider == .ndw {
            // A snapshot source: the answer is as fresh as the last reading of the feed.
            guard let lastSync else { return "The feed has not been read by a sync yet: run `bridget sync` first." }
            guard now.timeIntervalSince(lastSync) > 3_600 else { return nil }
            return "The feed was last read \(span(now.timeIntervalSince(lastSync))) before this answer: "
                + "what changed since is not known yet."
        }
        guard let newest else { return "No opening that happened is stored yet: run `bridget sync` first." }
        guard now.timeIntervalSince(newest) > StatusNowAnswer.behindAfter else { return nil }
        return "The newest stored opening started \(span(now.timeIntervalSince(newest))) before this answer: "
            + "openings since then are not known yet"
            + (provider == .live || provider == .cached ? " (Seattle's public table runs about a day behind)." : ".")
    }

    /// Closed is a claim about now: without a live reading and with nothing recent on record, a bridge with no
    /// opening under way or announced is unknown, with the age of what is known.
    var unknownBecause: String? {
        if live { return nil }
        if provider == .ndw {
            guard let lastSync else { return "feed not read yet" }
            return now.timeIntervalSince(lastSync) > 3_600 ? "feed last read \(span(now.timeIntervalSince(lastSync))) ago" : nil
        }
        guard let newest else { return "no opening on record yet" }
        return now.timeIntervalSince(newest) > StatusNowAnswer.behindAfter
            ? "newest opening on record \(span(now.timeIntervalSince(newest))) ago" : nil
    }
}
