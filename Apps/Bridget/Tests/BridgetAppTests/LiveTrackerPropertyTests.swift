import BridgetContext
import BridgetCore
import BridgetDTOs
import BridgetNetworking
import BridgetPersistence
import BridgetRuntime
import Foundation
import PropertyBased
import Testing

/// The live tracker under generated feeds: sequences of answers (raised, lowered, missing), failed polls, restarts
/// of the process, clock jumps (a duplicate poll, a gap in polling, hours at once, the clock set back) and two
/// pollers sharing one store. After every step the invariants hold:
/// - an opening starts only when the bridge was read lowered before (or at a first sight);
/// - at most one opening is open per bridge, and it is the one the kept state names;
/// - an opening ends closed (read lowered) or with its end unknown, never before it opened;
/// - a restart (the state written and read back) changes nothing that follows;
/// - with two pollers on one store, the store's live openings keep these (one open per bridge, the kept state's).
/// A failure names the seed that reproduces it (`.fixedSeed(…)` on the test).
@Suite("The live tracker under generated feeds")
struct LiveTrackerPropertyTests {
    static let bridges = [BridgeCatalog.seattle.bridge(id: "3")!, BridgeCatalog.seattle.bridge(id: "4")!]
    static let start = Date(timeIntervalSince1970: 1_795_000_000)
    /// The settings of polls every 20 s, with a longest opening of 20 minutes instead of two hours, so that the
    /// generated sequences meet stuck sensors often (as a poll of every 20 s they meet gaps and absences).
    static let settings: LiveStateTracker.Settings = {
        var settings = LiveStateTracker.Settings(pollSeconds: 20)
        settings.longestOpen = 20 * 60
        return settings
    }()

    /// One generated step, decoded from a number so that the library can shrink a sequence of them.
    struct Step: CustomStringConvertible {
        /// What the feed says of a bridge: what it said the poll before (feeds mostly repeat themselves, so long
        /// raisings and stuck sensors come up), raised, lowered, or nothing (left out of the answer).
        enum Say: String { case same, raised, lowered, absent }
        enum Kind { case poll([String: Say]), failure, restart }
        let kind: Kind
        /// Seconds since the step before (negative: the clock set back).
        let advance: TimeInterval

        init(_ value: Int) {
            let bits = UInt64(truncatingIfNeeded: value)
            switch bits % 20 {
            case 0: kind = .failure
            case 1: kind = .restart
            default:
                var says: [String: Say] = [:]
                for (index, bridge) in LiveTrackerPropertyTests.bridges.enumerated() {
                    says[bridge.id] = switch (bits / 20 >> (3 * UInt64(index))) % 8 {
                    case 0, 1, 2, 3: .same
                    case 4, 5: .raised
                    case 6: .lowered
                    default: .absent
                    }
                }
                kind = .poll(says)
            }
            advance = switch (bits >> 40) % 16 {
            case 0, 1, 2, 3, 4, 5: 20
            case 6, 7, 8, 9, 10: 9 * 60  // slow polls, just inside the gap limit: two hours raised in 14 polls
            case 11: 0                   // the same moment twice
            case 12: 5 * 60
            case 13: 15 * 60             // a gap in polling
            case 14: 2.5 * 3600          // hours at once (past the longest opening)
            default: -90                 // the clock set back
            }
        }

        var description: String {
            switch kind {
            case .failure: "fail+\(Int(advance))"
            case .restart: "restart"
            case .poll(let says):
                says.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value.rawValue)" }.joined(separator: ",")
                    + "+\(Int(advance))"
            }
        }

        /// The answer, given what the feed said of each bridge the poll before (updated).
        func positions(after said: inout [String: LiveFeedState.Position]) -> [String: LiveFeedState.Position] {
            guard case .poll(let says) = kind else { return said }
            for (bridge, say) in says {
                switch say {
                case .same: break
                case .raised: said[bridge] = .raised
                case .lowered: said[bridge] = .lowered
                case .absent: said[bridge] = nil
                }
            }
            return said
        }
    }

    static let steps = Gen.int(in: 0...Int.max).array(of: 1...160)

    static func roundTrip(_ state: LiveFeedState) throws -> LiveFeedState {
        try JSONDecoder().decode(LiveFeedState.self, from: JSONEncoder().encode(state))
    }

    @Test("every invariant holds after every step of a generated sequence")
    func invariants() async throws {
        let tracker = LiveStateTracker(bridges: Self.bridges, clock: .seattle, settings: Self.settings)
        await propertyCheck(count: 300, input: Self.steps) { values in
            var state = LiveFeedState(source: "generated")
            var now = Self.start
            /// The openings written so far, by bridge and opening instant; `closedAt` nil while open.
            var ledger: [String: [Date: BridgeEventDTO]] = [:]
            /// Whether each bridge may open now, by the readings alone (not the tracker's phases): at its first sight,
            /// after a lowered reading, and after a gap in polling that its opening under way did not survive.
            var mayOpen: [String: Bool] = [:]
            var said: [String: LiveFeedState.Position] = [:]
            for (index, value) in values.enumerated() {
                let step = Step(value)
                let context = "step \(index) (\(step)) of \(values.map { Step($0).description })"
                now = now.addingTimeInterval(step.advance)
                let result: Result<BridgeStateReading, BridgeStateError>
                switch step.kind {
                case .restart:
                    state = try Self.roundTrip(state)
                    continue
                case .failure:
                    result = .failure(BridgeStateError(.httpStatus(503, retryAfter: nil)))
                case .poll:
                    result = .success(BridgeStateReading(positions: step.positions(after: &said)))
                }
                let before = state
                let outcome = tracker.apply(result, to: before, at: now)
                // A restart just before this step would have changed nothing.
                let restarted = tracker.apply(result, to: try Self.roundTrip(before), at: now)
                #expect(restarted.events == outcome.events && restarted.state == outcome.state, "\(context)")

                let acrossGap = before.lastGoodPollAt.map { now.timeIntervalSince($0) > Self.settings.gapLimit } ?? false
                if acrossGap {
                    for (bridge, openings) in ledger where openings.values.contains(where: { $0.closedAt == nil }) {
                        mayOpen[bridge] = true
                    }
                }
                for event in outcome.events {
                    let open = ledger[event.bridgeID, default: [:]].values.filter { $0.closedAt == nil }
                    if let closedAt = event.closedAt {
                        #expect(closedAt >= event.openedAt, "closed before it opened: \(context)")
                        #expect(ledger[event.bridgeID]?[event.openedAt]?.closedAt == nil,
                                "closes an opening that is not open: \(context)")
                        let readLowered = if case .success(let read) = result { read.positions[event.bridgeID] == .lowered }
                            else { false }
                        #expect(event.live?.endUnknown == true || readLowered,
                                "ends neither closed nor unknown: \(context)")
                    } else {
                        #expect(mayOpen[event.bridgeID] ?? true,
                                "opened although not read lowered since its last opening: \(context)")
                        mayOpen[event.bridgeID] = false
                        #expect(open.isEmpty || outcome.events.contains { $0.bridgeID == event.bridgeID && $0.closedAt != nil },
                                "a second opening while one is open: \(context)")
                    }
                    ledger[event.bridgeID, default: [:]][event.openedAt] = event
                }
                if case .success(let read) = result {
                    for (bridge, position) in read.positions where position == .lowered { mayOpen[bridge] = true }
                }
                state = outcome.state
                for bridge in Self.bridges {
                    let open = ledger[bridge.id, default: [:]].values.filter { $0.closedAt == nil }
                    #expect(open.count <= 1, "\(open.count) openings open at once: \(context)")
                    #expect(open.first?.openedAt == state.bridges[bridge.id]?.openingAt,
                            "the kept state and the written openings disagree: \(context)")
                }
            }
        }
    }

    @Test("two pollers sharing a store, restarting and taking turns at the lease, keep the store's openings sound")
    func twoPollers() async throws {
        await propertyCheck(count: 100, input: Self.steps, Gen.bool.array(of: 160)) { values, turns in
            let store = InMemoryBridgeStore()
            await store.upsertBridges(Self.bridges)
            let clock = ScriptedClock(Self.start)
            let feed = ScriptedFeed()
            func poller(_ holder: String) -> LiveStatePoller {
                LiveStatePoller(source: feed, store: store, clock: .seattle, interval: 20, holder: holder,
                                now: { clock.now }, log: { _ in })
            }
            var pollers = ["A": poller("A"), "B": poller("B")]
            var said: [String: LiveFeedState.Position] = [:]
            for (index, value) in values.enumerated() {
                let step = Step(value)
                clock.advance(by: step.advance)
                let who = turns[index % turns.count] ? "A" : "B"
                switch step.kind {
                case .restart:
                    pollers[who] = poller(who)  // a new process: nothing kept but the store
                    continue
                case .failure: feed.answer = .failure(BridgeStateError(.httpStatus(503, retryAfter: nil)))
                case .poll: feed.answer = .success(BridgeStateReading(positions: step.positions(after: &said)))
                }
                _ = try await pollers[who]!.pollOnce()
                let live = await store.events(matching: EventQuery(status: .live))
                let state = await store.liveFeedState()
                for bridge in Self.bridges {
                    let open = live.filter { $0.bridgeID == bridge.id && $0.closedAt == nil }
                    #expect(open.count <= 1, "step \(index): \(open.count) open at once")
                    #expect(open.first?.openedAt == state?.bridges[bridge.id]?.openingAt,
                            "step \(index): the store's openings and its kept state disagree")
                }
                #expect(live.allSatisfy { event in event.closedAt.map { $0 >= event.openedAt } ?? true },
                        "step \(index): an opening closed before it opened")
            }
        }
    }

    // MARK: - Fixed cases

    func run(_ steps: [(TimeInterval, [String: LiveFeedState.Position]?)]) -> (LiveFeedState, [BridgeEventDTO]) {
        let tracker = LiveStateTracker(bridges: Self.bridges, clock: .seattle, settings: Self.settings)
        var state = LiveFeedState(source: "fixed")
        var now = Self.start
        var events: [BridgeEventDTO] = []
        for (advance, positions) in steps {
            now = now.addingTimeInterval(advance)
            let result: Result<BridgeStateReading, BridgeStateError> = positions.map { .success(BridgeStateReading(positions: $0)) }
                ?? .failure(BridgeStateError(.timeout))
            let outcome = tracker.apply(result, to: state, at: now)
            state = outcome.state
            events += outcome.events
        }
        return (state, events)
    }

    @Test("a stuck sensor: raised past two hours ends unknown; then absences and an outage open no phantom; lowered, it opens again")
    func stuckSensor() {
        var steps: [(TimeInterval, [String: LiveFeedState.Position]?)] = [(0, ["3": .lowered]), (20, ["3": .raised])]
        steps += Array(repeating: (600, ["3": .raised]), count: 13)          // 2 h 10 min raised
        steps += Array(repeating: (20, [:]), count: 6)                       // absent from the feed for 2 min
        steps += [(20, ["3": .raised])]
        steps += Array(repeating: (20, nil), count: 4)                        // an outage of over a minute
        steps += [(20, ["3": .raised]), (20, ["3": .raised])]
        let (state, events) = run(steps)
        let new = events.filter { $0.closedAt == nil }
        #expect(new.count == 1, "one opening, no phantom: \(events.map { ($0.openedAt, $0.closedAt as Any) })")
        #expect(events.filter { $0.live?.endUnknown == true }.count == 1)
        #expect(LivePhase(state.bridges["3"]) == .stuck)

        let (after, more) = run(steps + [(20, ["3": .lowered]), (20, ["3": .raised])])
        #expect(more.filter { $0.closedAt == nil }.count == 2, "read lowered, the next raising is an opening")
        #expect(LivePhase(after.bridges["3"]) == .raised)
    }

    @Test("a raising, a minute's absence, then raised again is one opening; lowered it closes with its window")
    func absenceWhileRaised() {
        let (state, events) = run([(0, ["3": .lowered]), (20, ["3": .raised])]
            + Array(repeating: (20, [:]), count: 5) + [(20, ["3": .raised]), (20, ["3": .lowered])])
        #expect(events.filter { $0.closedAt == nil }.count == 1)
        let closed = events.last
        #expect(closed?.closedAt != nil && closed?.live?.endUnknown == false)
        #expect(LivePhase(state.bridges["3"]) == .lowered)
    }

    @Test("a poll's notes are summarised: 5,000 unknown ids log one line, and the next identical answer none")
    func boundedNotes() {
        let tracker = LiveStateTracker(bridges: Self.bridges, clock: .seattle, settings: Self.settings)
        let notes = (0..<5_000).map { BridgeStateNote.unknownBridge(id: String(1_000 + $0)) }
        let reading = BridgeStateReading(positions: ["3": .lowered], notes: notes)
        let first = tracker.apply(.success(reading), to: LiveFeedState(source: "s"), at: Self.start)
        #expect(first.lines.filter { $0.name == "unknown-bridge" }.count == 1)
        #expect(first.lines.map(\.message).joined().utf8.count < 2_000)
        #expect(first.counts["unknown-bridge"] == 5_000, "the metrics still count every item")
        let second = tracker.apply(.success(reading), to: first.state, at: Self.start.addingTimeInterval(20))
        #expect(second.lines.isEmpty, "\(second.lines)")
        let clean = tracker.apply(.success(BridgeStateReading(positions: ["3": .lowered])), to: second.state,
                                  at: Self.start.addingTimeInterval(40))
        #expect(clean.lines.map(\.message) == ["state: unknown-bridge: no longer in the answer"])

        var failing = clean.state
        var logged = 0
        for index in 0..<50 {
            let outcome = tracker.apply(.failure(BridgeStateError(.httpStatus(503, retryAfter: nil))), to: failing,
                                        at: Self.start.addingTimeInterval(60 + 20 * Double(index)))
            logged += outcome.lines.filter { $0.name == "http-503" }.count
            failing = outcome.state
        }
        #expect(logged == 1, "a repeated failure is said when it starts")
        let back = tracker.apply(.success(BridgeStateReading(positions: ["3": .lowered])), to: failing,
                                 at: Self.start.addingTimeInterval(2_000))
        #expect(back.lines.map(\.name) == ["recovered"])
        #expect(back.lines.first?.message.contains("after 50 failed polls") == true)
    }
}

/// A clock a test moves.
final class ScriptedClock: Sendable {
    private let value: Locked<Date>
    init(_ start: Date) { value = Locked(start) }
    var now: Date { value.withLock { $0 } }
    func advance(by seconds: TimeInterval) { value.withLock { $0 = $0.addingTimeInterval(seconds) } }
}

/// A state feed that gives whatever the test set last.
final class ScriptedFeed: BridgeStateSource, Sendable {
    private let current = Locked<Result<BridgeStateReading, BridgeStateError>>(.success(BridgeStateReading(positions: [:])))
    var answer: Result<BridgeStateReading, BridgeStateError> {
        get { current.withLock { $0 } }
        set { current.withLock { $0 = newValue } }
    }
    var origin: String { "scripted" }
    func currentStates() async throws -> BridgeStateReading { try answer.get() }
}
