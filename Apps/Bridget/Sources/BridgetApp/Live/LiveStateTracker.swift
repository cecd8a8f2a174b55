import BridgetDTOs
import BridgetNetworking
import BridgetPersistence
import Foundation

/// What one poll of a live state feed means for the openings: the rules, as a value (no clock, no store), so that
/// each is tested alone.
///
/// - A bridge seen raised that was not opens an opening: its start is this poll, after the poll before (when that
///   one saw the bridge lowered; not known after a first poll or a gap in polling).
/// - A bridge seen lowered that was raised closes it: its end is this poll, after the last poll that saw it raised.
/// - A bridge the answer does not name (or names with a status no one knows) keeps its last state; after
///   `unknownAfter` without a reading it is `unknown`. An opening under way stays open meanwhile.
/// - An opening open for longer than `longestOpen` is closed as "end unknown" (a stuck sensor, a feed that stopped
///   changing); the bridge opens nothing more until it is seen lowered.
/// - After a gap in polling longer than `gapLimit` (nothing ran), an opening seen raised before and after is not
///   taken for one: the earlier is closed as "end unknown" at its last sight and a new one starts.
/// - A poll that failed changes no position: it only ages them (the two rules above).
package struct LiveStateTracker: Sendable {
    package struct Settings: Sendable {
        package var unknownAfter: TimeInterval
        package var longestOpen: TimeInterval
        package var gapLimit: TimeInterval
        /// A feed whose answer has not changed for this long is named in the log (once an hour).
        package var unchangedAfter: TimeInterval

        /// The settings for polls every `pollSeconds`.
        package init(pollSeconds: TimeInterval) {
            unknownAfter = max(3 * pollSeconds, 60)
            longestOpen = LiveMatch.longestOpen
            gapLimit = max(10 * pollSeconds, 600)
            unchangedAfter = 3 * 3600
        }
    }

    /// One line of the poller's log: a name (what metrics count), how much it matters, and the words.
    package struct Line: Sendable, Equatable {
        package let name: String
        package let level: RefreshLogLine.Level
        package let message: String
    }

    /// What a poll leads to.
    package struct Outcome: Sendable {
        package var state: LiveFeedState
        /// The live openings to write (new, closed).
        package var events: [BridgeEventDTO]
        package var lines: [Line]
    }

    package let bridges: [String: BridgeInfoDTO]
    package let clock: LocalClock
    package let settings: Settings

    package init(bridges: [BridgeInfoDTO], clock: LocalClock, settings: Settings) {
        self.bridges = Dictionary(bridges.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        self.clock = clock
        self.settings = settings
    }

    /// The state and openings after a poll at `now` that read `result`.
    package func apply(_ result: Result<BridgeStateReading, BridgeStateError>, to previous: LiveFeedState, at now: Date)
        -> Outcome
    {
        var state = previous
        var events: [BridgeEventDTO] = []
        var lines: [Line] = []
        let previousGood = previous.lastGoodPollAt
        state.lastPollAt = now
        let reading: BridgeStateReading
        switch result {
        case .failure(let error):
            state.lastProblem = error.name
            lines.append(Line(name: error.name, level: .warning,
                              message: "state: \(error.name): \(error); bridges keep their last state"))
            reading = BridgeStateReading(positions: [:])
        case .success(let read):
            reading = read
            state.lastProblem = nil
            state.lastGoodPollAt = now
            for note in read.notes {
                lines.append(Line(name: note.name, level: .notice, message: "state: \(note.name): \(note.detail)"))
            }
            let digest = read.positions.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value.rawValue)" }
                .joined(separator: ",")
            if digest != previous.answerDigest || previous.answerChangedAt == nil {
                state.answerDigest = digest
                state.answerChangedAt = now
            } else if let changed = previous.answerChangedAt, let before = previous.lastPollAt {
                let hoursBefore = Int(before.timeIntervalSince(changed) / 3600)
                let hoursNow = Int(now.timeIntervalSince(changed) / 3600)
                if now.timeIntervalSince(changed) >= settings.unchangedAfter, hoursNow > hoursBefore {
                    lines.append(Line(name: "unchanged", level: .notice, message: """
                        state: unchanged: the feed has given the same answer for \(hoursNow) h (since \
                        \(clock.display(changed))); it is still read as it is
                        """))
                }
            }
        }
        let gap = previousGood.map { now.timeIntervalSince($0) } ?? .infinity
        for id in bridges.keys.sorted() {
            let seen = reading.positions[id]
            guard var bridge = state.bridges[id] else {
                // Never seen before: the first sight starts its state; raised opens an opening of unknown start.
                guard let seen else { continue }
                var fresh = LiveFeedState.Bridge(position: seen, since: now, lastSeenAt: now)
                if seen == .raised {
                    fresh.openingAt = now
                    events.append(event(id, openedAt: now, window: LiveWindow(openedAfter: nil)))
                    lines.append(Line(name: "opened", level: .info, message: "state: bridge \(name(id)) raised (first sight)"))
                }
                state.bridges[id] = fresh
                continue
            }
            // An opening under way past the sane limit, or across a gap in polling, ends as "end unknown".
            if let openingAt = bridge.openingAt {
                let tooLong = now.timeIntervalSince(openingAt) > settings.longestOpen
                let acrossGap = gap > settings.gapLimit
                if tooLong || acrossGap {
                    let end = acrossGap ? bridge.lastSeenAt : now
                    events.append(event(id, openedAt: openingAt, closedAt: max(end, openingAt),
                                        window: LiveWindow(openedAfter: bridge.openedAfter, closedAfter: bridge.lastSeenAt,
                                                           endUnknown: true)))
                    lines.append(Line(name: "end-unknown", level: .warning, message: """
                        state: bridge \(name(id)) \(tooLong ? "seen raised for longer than \(Int(settings.longestOpen / 60)) min" : "was raised when polling stopped"); \
                        its opening since \(clock.display(openingAt)) is closed with its end unknown
                        """))
                    bridge.openingAt = nil
                    bridge.openedAfter = nil
                    if acrossGap { bridge.position = .unknown }
                }
            }
            switch seen {
            case .raised?:
                // Raised without an opening under way opens one, unless it is the same raising whose opening was
                // closed as "end unknown" (still raised, never seen lowered since).
                if bridge.openingAt == nil && bridge.position != .raised {
                    // Seen lowered at its last sight (and that sight was the poll before): it opened after it.
                    let after: Date? = bridge.position == .lowered && gap <= settings.gapLimit ? bridge.lastSeenAt : nil
                    bridge.openingAt = now
                    bridge.openedAfter = after
                    events.append(event(id, openedAt: now, window: LiveWindow(openedAfter: after)))
                    lines.append(Line(name: "opened", level: .info, message: "state: bridge \(name(id)) raised"))
                }
                if bridge.position != .raised { bridge.since = now }
                bridge.position = .raised
                bridge.lastSeenAt = now
            case .lowered?:
                if let openingAt = bridge.openingAt {
                    events.append(event(id, openedAt: openingAt, closedAt: now,
                                        window: LiveWindow(openedAfter: bridge.openedAfter, closedAfter: bridge.lastSeenAt)))
                    lines.append(Line(name: "closed", level: .info, message: """
                        state: bridge \(name(id)) lowered (open since \(clock.display(openingAt)))
                        """))
                    bridge.openingAt = nil
                    bridge.openedAfter = nil
                }
                if bridge.position != .lowered { bridge.since = now }
                bridge.position = .lowered
                bridge.lastSeenAt = now
            case .unknown?, nil:
                if bridge.position != .unknown, now.timeIntervalSince(bridge.lastSeenAt) > settings.unknownAfter {
                    bridge.position = .unknown
                    bridge.since = now
                    lines.append(Line(name: "missing", level: .warning, message: """
                        state: bridge \(name(id)) not read for \(Int(now.timeIntervalSince(bridge.lastSeenAt))) s: \
                        its state is unknown\(bridge.openingAt == nil ? "" : " (its opening stays open until it is read again)")
                        """))
                }
            }
            state.bridges[id] = bridge
        }
        return Outcome(state: state, events: events, lines: lines)
    }

    private func name(_ id: String) -> String { bridges[id].map { "\($0.displayName) (\(id))" } ?? id }

    /// A live opening of bridge `id` as stored.
    private func event(_ id: String, openedAt: Date, closedAt: Date? = nil, window: LiveWindow) -> BridgeEventDTO {
        let bridge = bridges[id]
        return BridgeEventDTO(
            bridgeID: id, bridgeName: bridge?.name ?? id, openedAt: openedAt,
            openLocal: clock.reading(for: openedAt).description, closedAt: closedAt,
            closeLocal: closedAt.map { clock.reading(for: $0).description },
            minutesOpen: closedAt.map { Int(($0.timeIntervalSince(openedAt) / 60).rounded()) },
            latitude: bridge?.latitude, longitude: bridge?.longitude, status: .live, live: window)
    }
}
