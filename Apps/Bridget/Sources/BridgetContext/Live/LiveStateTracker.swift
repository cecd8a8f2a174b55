import BridgetCore
import BridgetDTOs
import BridgetNetworking
import BridgetPersistence
import Foundation

/// Where one bridge stands, as the live tracker knows it: a state machine, one step a poll (`LiveStateTracker`).
/// The table of its transitions is in Docs/LIVE.md ("The live tracker").
package enum LivePhase: String, CaseIterable, Sendable {
    /// Nothing is known: never read, or forgotten with its opening across a gap in polling. Its next reading is a
    /// first sight.
    case unseen
    /// Read lowered (open to road traffic).
    case lowered
    /// Read raised, with its live opening under way.
    case raised
    /// Its live opening is under way, but it has not been read for a while: the opening stays open.
    case unknownWhileRaised = "unknown-while-raised"
    /// Not read for a while since it was read lowered.
    case unknown
    /// Read raised for longer than an opening lasts: its opening was closed as "end unknown", and it opens nothing
    /// more until it is read lowered, whatever comes between (absences, failed polls, gaps in polling).
    case stuck

    /// The phase a kept state is in.
    package init(_ bridge: LiveFeedState.Bridge?) {
        guard let bridge else { self = .unseen; return }
        if bridge.stuckSince != nil { self = .stuck; return }
        switch (bridge.position, bridge.openingAt) {
        case (.raised, _?): self = .raised
        case (.unknown, _?), (.lowered, _?): self = .unknownWhileRaised
        // Raised with no opening under way: a state kept before `stuckSince` existed, which meant the same.
        case (.raised, nil): self = .stuck
        case (.lowered, nil): self = .lowered
        case (.unknown, nil): self = .unknown
        }
    }
}

/// What one poll of a live state feed means for the openings: the rules, as a value (no clock, no store), so that
/// each is tested alone and the whole under generated sequences (`LiveTrackerPropertyTests`).
///
/// Per bridge and poll, in this order (each a named transition of `LivePhase`):
/// 1. **Gap**: after a gap in polling longer than `gapLimit` (no poll was read), an opening under way is closed as
///    "end unknown" at its last sight and the bridge is `unseen`: raised before and after is not taken for one.
/// 2. **Too long**: an opening under way for longer than `longestOpen` is closed as "end unknown" now and the
///    bridge is `stuck`.
/// 3. **The reading**: raised opens an opening from `lowered`, `unknown` and `unseen` only (so only after the bridge
///    was read lowered, or at a first sight); lowered closes an opening under way, and ends `stuck`; a bridge not
///    read (left out, a status no one knows, a failed poll) keeps its phase, and after `unknownAfter` unread goes
///    from `lowered` to `unknown` and from `raised` to `unknownWhileRaised`.
///
/// A poll at an earlier time than the last (the clock set back) closes nothing before it opened: a closing is never
/// earlier than its opening.
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

    /// One line of the poller's log: a name, how much it matters, and the words.
    package struct Line: Sendable, Equatable {
        package let name: String
        package let level: LogLine.Level
        package let message: String
    }

    /// What a poll leads to.
    package struct Outcome: Sendable {
        package var state: LiveFeedState
        /// The live openings to write (new, closed).
        package var events: [BridgeEventDTO]
        /// What to log: bounded whatever the answer held (a kind of note once, a repeated condition when it starts
        /// and ends).
        package var lines: [Line]
        /// Every note and transition of this poll by name, for the metrics' counts (one per item).
        package var counts: [String: Int]
        /// Each bridge's transition this poll, by id (those whose phase changed or that opened or closed).
        package var transitions: [String: Transition]
    }

    /// A step of one bridge's state machine.
    package struct Transition: Sendable, Equatable {
        package let from: LivePhase
        package let to: LivePhase
        /// The rule that fired: `first-sight`, `opened`, `closed`, `end-unknown`, `gap`, `missing`, `released`, ….
        package let name: String
    }

    /// How many examples of a kind of note a poll logs.
    package static let examplesPerNote = 3

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
        var outcome = Outcome(state: previous, events: [], lines: [], counts: [:], transitions: [:])
        outcome.state.lastPollAt = now
        let reading: BridgeStateReading
        switch result {
        case .failure(let error):
            reading = BridgeStateReading(positions: [:])
            noteFailure(error, previous: previous, into: &outcome)
        case .success(let read):
            reading = read
            noteAnswer(read, previous: previous, at: now, into: &outcome)
        }
        let previousGood = previous.lastGoodPollAt
        let acrossGap = previousGood.map { now.timeIntervalSince($0) > settings.gapLimit } ?? false
        for id in bridges.keys.sorted() {
            step(id, seen: reading.positions[id], acrossGap: acrossGap, at: now, into: &outcome)
        }
        return outcome
    }

    // MARK: - One bridge

    private func step(_ id: String, seen: LiveFeedState.Position?, acrossGap: Bool, at now: Date,
                      into outcome: inout Outcome) {
        let kept = outcome.state.bridges[id]
        let from = LivePhase(kept)
        var bridge = kept
        var fired: [String] = []

        // 1. Gap: an opening under way is not carried across a stretch nobody watched.
        if acrossGap, let raised = bridge, let openingAt = raised.openingAt {
            close(id, openingAt: openingAt, at: raised.lastSeenAt, endUnknown: true, bridge: raised, into: &outcome)
            log(&outcome, "end-unknown", .warning, """
                state: bridge \(name(id)) was raised when polling stopped; its opening since \
                \(clock.display(openingAt)) is closed with its end unknown
                """)
            bridge = nil
            fired.append("gap")
        }
        // 2. Too long: a sensor stuck raised, or a feed that stopped changing.
        if var raised = bridge, let openingAt = raised.openingAt, now.timeIntervalSince(openingAt) > settings.longestOpen {
            close(id, openingAt: openingAt, at: now, endUnknown: true, bridge: raised, into: &outcome)
            log(&outcome, "end-unknown", .warning, """
                state: bridge \(name(id)) seen raised for longer than \(Int(settings.longestOpen / 60)) min; its \
                opening since \(clock.display(openingAt)) is closed with its end unknown, and it opens nothing more \
                until it is read lowered
                """)
            raised.openingAt = nil
            raised.openedAfter = nil
            raised.stuckSince = now
            bridge = raised
            fired.append("end-unknown")
        }
        // 3. The reading.
        let phase = LivePhase(bridge)
        switch (seen, phase) {
        case (.raised?, .unseen):
            bridge = open(id, at: now, after: nil, into: &outcome, firstSight: true)
            fired.append("first-sight")
        case (.raised?, .lowered), (.raised?, .unknown):
            // Read lowered at its last sight, and that sight was the poll before: it opened after it. (`bridge!`: a
            // bridge in these phases has a kept state; only `unseen` has none.)
            let previous = bridge!
            let after: Date? = phase == .lowered && !acrossGap && previous.lastSeenAt <= now ? previous.lastSeenAt : nil
            bridge = open(id, at: now, after: after, into: &outcome, firstSight: false)
            fired.append("opened")
        case (.raised?, .raised), (.raised?, .unknownWhileRaised), (.raised?, .stuck):
            var same = bridge! // a kept state, as in these phases always
            if same.position != .raised { same.since = now }
            same.position = .raised
            same.lastSeenAt = now
            bridge = same
        case (.lowered?, _):
            bridge = lowered(id, bridge, phase: phase, firstSight: kept == nil, at: now, into: &outcome, fired: &fired)
        case (.unknown?, _), (nil, _):
            guard var unread = bridge else { break }
            if unread.position != .unknown, now.timeIntervalSince(unread.lastSeenAt) > settings.unknownAfter {
                unread.position = .unknown
                unread.since = now
                log(&outcome, "missing", .warning, """
                    state: bridge \(name(id)) not read for \(Int(now.timeIntervalSince(unread.lastSeenAt))) s: its \
                    state is unknown\(unread.openingAt == nil ? "" : " (its opening stays open until it is read again)")
                    """)
                fired.append("missing")
            }
            bridge = unread
        }
        outcome.state.bridges[id] = bridge
        let to = LivePhase(bridge)
        if from != to || !fired.isEmpty {
            outcome.transitions[id] = Transition(from: from, to: to, name: fired.joined(separator: "+"))
        }
    }

    /// The reading "lowered": closes an opening under way, and ends `stuck`.
    private func lowered(_ id: String, _ bridge: LiveFeedState.Bridge?, phase: LivePhase, firstSight: Bool, at now: Date,
                         into outcome: inout Outcome, fired: inout [String]) -> LiveFeedState.Bridge {
        var lowered = bridge ?? LiveFeedState.Bridge(position: .lowered, since: now, lastSeenAt: now)
        if let openingAt = lowered.openingAt {
            close(id, openingAt: openingAt, at: now, endUnknown: false, bridge: lowered, into: &outcome)
            log(&outcome, "closed", .info, "state: bridge \(name(id)) lowered (open since \(clock.display(openingAt)))")
            fired.append("closed")
        } else if phase == .stuck {
            log(&outcome, "released", .info, "state: bridge \(name(id)) read lowered again: it may open again")
            fired.append("released")
        }
        if lowered.position != .lowered || firstSight { lowered.since = now }
        lowered.position = .lowered
        lowered.lastSeenAt = now
        lowered.openingAt = nil
        lowered.openedAfter = nil
        lowered.stuckSince = nil
        return lowered
    }

    private func open(_ id: String, at now: Date, after: Date?, into outcome: inout Outcome, firstSight: Bool)
        -> LiveFeedState.Bridge
    {
        outcome.events.append(event(id, openedAt: now, window: LiveWindow(openedAfter: after)))
        log(&outcome, "opened", .info, "state: bridge \(name(id)) raised\(firstSight ? " (first sight)" : "")")
        return LiveFeedState.Bridge(position: .raised, since: now, lastSeenAt: now, openingAt: now, openedAfter: after)
    }

    private func close(_ id: String, openingAt: Date, at end: Date, endUnknown: Bool, bridge: LiveFeedState.Bridge,
                       into outcome: inout Outcome) {
        outcome.events.append(event(
            id, openedAt: openingAt, closedAt: max(end, openingAt),
            window: LiveWindow(openedAfter: bridge.openedAfter, closedAfter: max(bridge.lastSeenAt, openingAt),
                               endUnknown: endUnknown)))
    }

    // MARK: - The answer as a whole

    /// A failed poll: logged when a failure starts or changes, counted every time.
    private func noteFailure(_ error: BridgeStateError, previous: LiveFeedState, into outcome: inout Outcome) {
        outcome.counts[error.name, default: 0] += 1
        let repeated = previous.lastProblem == error.name
        outcome.state.lastProblem = error.name
        outcome.state.problemPolls = repeated ? (previous.problemPolls ?? 1) + 1 : 1
        guard !repeated else { return }
        outcome.lines.append(Line(name: error.name, level: .warning, message: """
            state: \(error.name): \(error); bridges keep their last state (said once until the feed answers \
            otherwise)
            """))
    }

    /// A good answer: its notes summarised (a kind said when it appears, with a few examples, and when it goes), a
    /// failure before it said to be over, and an answer unchanged for hours named once an hour.
    private func noteAnswer(_ read: BridgeStateReading, previous: LiveFeedState, at now: Date,
                            into outcome: inout Outcome) {
        outcome.state.lastGoodPollAt = now
        outcome.state.lastProblem = nil
        outcome.state.problemPolls = nil
        if let problem = previous.lastProblem {
            let polls = previous.problemPolls ?? 1
            outcome.lines.append(Line(name: "recovered", level: .notice, message: """
                state: the feed answers again after \(polls) failed poll\(polls == 1 ? "" : "s") (\(problem))
                """))
        }
        var byKind: [String: [BridgeStateNote]] = [:]
        for note in read.notes { byKind[note.name, default: []].append(note) }
        for (kind, notes) in byKind { outcome.counts[kind, default: 0] += notes.count }
        let kinds = byKind.keys.sorted()
        let before = Set(previous.noteKinds ?? [])
        for kind in kinds where !before.contains(kind) {
            let notes = byKind[kind] ?? []
            let examples = notes.prefix(Self.examplesPerNote).map(\.detail).joined(separator: "; ")
            let more = notes.count > Self.examplesPerNote ? "; and \(notes.count - Self.examplesPerNote) more" : ""
            outcome.lines.append(Line(name: kind, level: .notice, message: """
                state: \(kind): \(notes.count) item\(notes.count == 1 ? "" : "s") in this answer: \(examples)\(more) \
                (said again only when it stops and starts again)
                """))
        }
        for kind in before.subtracting(kinds).sorted() {
            outcome.lines.append(Line(name: kind, level: .notice, message: "state: \(kind): no longer in the answer"))
        }
        outcome.state.noteKinds = kinds.isEmpty ? nil : kinds
        let digest = read.positions.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value.rawValue)" }
            .joined(separator: ",")
        if digest != previous.answerDigest || previous.answerChangedAt == nil {
            outcome.state.answerDigest = digest
            outcome.state.answerChangedAt = now
        } else if let changed = previous.answerChangedAt, let before = previous.lastPollAt {
            let hoursBefore = Int(before.timeIntervalSince(changed) / 3600)
            let hoursNow = Int(now.timeIntervalSince(changed) / 3600)
            if now.timeIntervalSince(changed) >= settings.unchangedAfter, hoursNow > hoursBefore {
                outcome.lines.append(Line(name: "unchanged", level: .notice, message: """
                    state: unchanged: the feed has given the same answer for \(hoursNow) h (since \
                    \(clock.display(changed))); it is still read as it is
                    """))
            }
        }
    }

    private func log(_ outcome: inout Outcome, _ name: String, _ level: LogLine.Level, _ message: String) {
        outcome.counts[name, default: 0] += 1
        outcome.lines.append(Line(name: name, level: level, message: message))
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
