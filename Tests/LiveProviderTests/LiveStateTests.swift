import BridgetContext
import BridgetCore
import BridgetDTOs
import BridgetNetworking
import BridgetNetworkingTesting
import BridgetPersistence
import BridgetRuntime
import BridgetSQLite
import BridgetTestSupport
import Foundation
import SocrataFixtureServer
import Testing

/// Seattle now: the state feed's reader, the tracker's rules, and the poller against the fixture's feed and a real
/// SQLite store, through every fault of a city endpoint's bad day.
@Suite("Live bridge state")
struct LiveStateTests {
    static let ids = Set(BridgeCatalog.seattle.bridges.map(\.id))

    /// The body the city sends: a JSON string holding the array.
    static let cityBody = Data(#""[{\"BridgeID\":2,\"DisplayName\":\"Ballard\",\"Latitude\":47.6598,\"Longitude\":-122.3761,\"Name\":\"Bridge_Ballard.Input01\",\"Status\":\"Closed\"},{\"BridgeID\":3,\"DisplayName\":\"Fremont\",\"Latitude\":47.6476,\"Longitude\":-122.3497,\"Name\":\"Bridge_Fremont.Input01\",\"Status\":\"Open\"}]""#.utf8)

    @Test("the city's double-encoded body is read; single-encoded is read and noted; odd items are noted and left out")
    func readsTheCityShape() throws {
        let reading = try SDOTStateFeed.read(Self.cityBody, knownBridgeIDs: Self.ids)
        #expect(reading.positions == ["2": .lowered, "3": .raised])
        #expect(reading.notes.isEmpty)
        let single = try SDOTStateFeed.read(
            Data(#"[{"BridgeID":3,"Status":"Open"},{"BridgeID":77,"Status":"Open"},{"BridgeID":2,"Status":"Maintenance"},{"Status":"Open"},{"BridgeID":1e300,"Status":"Open"},{"BridgeID":4,"Status":"Open"},{"BridgeID":4,"Status":"Closed"}]"#.utf8),
            knownBridgeIDs: Self.ids)
        #expect(single.positions == ["3": .raised])
        #expect(Set(single.notes.map(\.name)) == ["single-encoded", "unknown-bridge", "unknown-status", "bad-item", "contradiction"])
        for (body, name) in [("", "empty-body"), ("  \n", "empty-body"), ("<html>oops</html>", "html-page"),
                             ("\"<html>\"", "html-page"), ("{\"a\":1}", "malformed"), ("\"not json\"", "malformed"),
                             ("nan", "malformed"), ("\"\"", "empty-body")] {
            #expect(throws: BridgeStateError.self, "\(name)") { try SDOTStateFeed.read(Data(body.utf8), knownBridgeIDs: Self.ids) }
            do { _ = try SDOTStateFeed.read(Data(body.utf8), knownBridgeIDs: Self.ids) } catch let error as BridgeStateError {
                #expect(error.name == name, "\(body)")
            }
        }
    }

    @Test("hostile bodies (deep nesting, huge numbers, 4,000 seeded mutations of the city's body) are read or refused by name, never crash")
    func hostileBodies() throws {
        let deep = Data((String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)).utf8)
        let deepString = try JSONSerialization.data(withJSONObject: String(repeating: "[", count: 50_000),
                                                    options: [.fragmentsAllowed])
        for body in [deep, deepString, Data("[{\"BridgeID\":1e400,\"Status\":\"Open\"}]".utf8),
                     Data("[{\"BridgeID\":-3,\"Status\":\"Open\"}]".utf8), Data("[{\"BridgeID\":3.5,\"Status\":\"Open\"}]".utf8),
                     Data("[{\"BridgeID\":\"3\\u0000\",\"Status\":\"Open\"}]".utf8), Data([0xFF, 0xFE, 0x00])] {
            do {
                let reading = try SDOTStateFeed.read(body, knownBridgeIDs: Self.ids)
                #expect(reading.positions.isEmpty, "\(String(decoding: body.prefix(60), as: UTF8.self))")
            } catch is BridgeStateError {}
        }
        var generator = SystemRandomNumberGenerator()
        var seed = UInt64.random(in: 1...UInt64.max, using: &generator)
        let base = Array(Self.cityBody)
        var refused = 0
        for _ in 0..<4_000 {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            var bytes = base
            var state = seed
            for _ in 0..<(1 + Int(seed >> 60)) {
                state = state &* 6_364_136_223_846_793_005 &+ 1
                let index = Int(state >> 33) % max(bytes.count, 1)
                switch state % 4 {
                case 0: bytes[index] = UInt8(truncatingIfNeeded: state >> 17)
                case 1: bytes.removeSubrange(index...)
                case 2: bytes.insert(contentsOf: Array("\\\"[{".utf8).shuffled(), at: index)
                default: bytes.remove(at: index)
                }
                if bytes.isEmpty { break }
            }
            do {
                let reading = try SDOTStateFeed.read(Data(bytes), knownBridgeIDs: Self.ids)
                #expect(Set(reading.positions.keys).isSubset(of: Self.ids), "seed \(seed)")
                #expect(!reading.positions.values.contains(.unknown), "seed \(seed)")
            } catch is BridgeStateError {
                refused += 1
            }
        }
        #expect(refused > 100, "the mutations mostly break the body: \(refused) of 4,000 were refused")
    }

    @Test("the SDOT feed keeps the state source's promises against the fixture server")
    func conformance() async throws {
        let server = try SocrataFixtureServer(dataset: .generate(rows: 10))
        let url = try await server.start()
        defer { Task { await server.stop() } }
        server.stateFeed.set("3", "Open")
        try await BridgeStateConformance.check(knownBridgeIDs: Self.ids) {
            SDOTStateFeed(url: url.appendingPathComponent(StateFeedFixture.path), knownBridgeIDs: Self.ids,
                          transport: URLSessionTransport(timeout: TestTime.seconds(30)), timeout: TestTime.seconds(30))
        }
    }

    // MARK: The tracker

    static let t0 = Date(timeIntervalSince1970: 1_795_723_200)
    static let tracker = LiveStateTracker(bridges: BridgeCatalog.seattle.bridges, clock: .seattle,
                                          settings: .init(pollSeconds: 20))

    static func reading(_ positions: [String: LiveFeedState.Position]) -> Result<BridgeStateReading, BridgeStateError> {
        .success(BridgeStateReading(positions: positions))
    }

    @Test("raised then lowered is one opening: opened after the poll before, closed after the last poll that saw it raised")
    func oneOpening() {
        var state = LiveFeedState(source: "s")
        var events: [BridgeEventDTO] = []
        for (second, position) in [(0, LiveFeedState.Position.lowered), (20, .raised), (40, .raised), (200, .raised),
                                   (220, .lowered), (240, .lowered)] {
            let outcome = Self.tracker.apply(Self.reading(["3": position]), to: state, at: Self.t0.addingTimeInterval(Double(second)))
            state = outcome.state
            events += outcome.events
        }
        #expect(events.count == 2)
        #expect(events.map(\.key) == [EventKey(bridgeID: "3", openedAt: Self.t0.addingTimeInterval(20)),
                                      EventKey(bridgeID: "3", openedAt: Self.t0.addingTimeInterval(20))])
        #expect(events[1].closedAt == Self.t0.addingTimeInterval(220))
        #expect(events[1].live == LiveWindow(openedAfter: Self.t0, closedAfter: Self.t0.addingTimeInterval(200)))
        #expect(events.allSatisfy { $0.status == .live })
        #expect(state.bridges["3"]?.position == .lowered && state.bridges["3"]?.openingAt == nil)
    }

    @Test("a failed poll, a missing bridge and an unknown status change no position; missing for a while is unknown")
    func badDaysChangeNothing() {
        var state = Self.tracker.apply(Self.reading(["3": .raised, "2": .lowered]), to: LiveFeedState(source: "s"),
                                       at: Self.t0).state
        let failures: [BridgeStateError] = [.init(.htmlPage), .init(.emptyBody), .init(.httpStatus(503, retryAfter: nil)),
                                            .init(.httpStatus(429, retryAfter: 5)), .init(.timeout), .init(.malformed("x"))]
        for (index, failure) in failures.enumerated() {
            let outcome = Self.tracker.apply(.failure(failure), to: state, at: Self.t0.addingTimeInterval(Double(index + 1)))
            #expect(outcome.events.isEmpty, "\(failure.name)")
            #expect(outcome.lines.map(\.name).contains(failure.name))
            #expect(outcome.state.bridges == state.bridges)
            #expect(outcome.state.lastGoodPollAt == Self.t0)
            state = outcome.state
        }
        // Bridge 3 left out of answers: kept raised with its opening, then unknown after a minute; never closed.
        let missing = Self.tracker.apply(Self.reading(["2": .lowered]), to: state, at: Self.t0.addingTimeInterval(30))
        #expect(missing.events.isEmpty && missing.state.bridges["3"]?.position == .raised)
        let gone = Self.tracker.apply(Self.reading(["2": .lowered]), to: missing.state, at: Self.t0.addingTimeInterval(90))
        #expect(gone.events.isEmpty && gone.state.bridges["3"]?.position == .unknown)
        #expect(gone.state.bridges["3"]?.openingAt == Self.t0 && gone.lines.map(\.name) == ["missing"])
        // Back raised: the same opening goes on; lowered: closed once.
        let back = Self.tracker.apply(Self.reading(["3": .raised, "2": .lowered]), to: gone.state, at: Self.t0.addingTimeInterval(100))
        #expect(back.events.isEmpty && back.state.bridges["3"]?.openingAt == Self.t0)
        let down = Self.tracker.apply(Self.reading(["3": .lowered, "2": .lowered]), to: back.state, at: Self.t0.addingTimeInterval(120))
        #expect(down.events.count == 1 && down.events[0].closedAt == Self.t0.addingTimeInterval(120))
    }

    @Test("an opening seen raised for over two hours is closed with its end unknown, and opens nothing more until lowered")
    func stuckIsClosed() {
        var state = Self.tracker.apply(Self.reading(["3": .lowered]), to: LiveFeedState(source: "s"), at: Self.t0).state
        var events: [BridgeEventDTO] = []
        for minute in stride(from: 1, through: 150, by: 1) {
            let outcome = Self.tracker.apply(Self.reading(["3": .raised]), to: state, at: Self.t0.addingTimeInterval(Double(minute * 60)))
            state = outcome.state
            events += outcome.events
        }
        #expect(events.count == 2)
        #expect(events[1].live?.endUnknown == true && events[1].closedAt != nil)
        let lowered = Self.tracker.apply(Self.reading(["3": .lowered]), to: state, at: Self.t0.addingTimeInterval(151 * 60))
        #expect(lowered.events.isEmpty)
    }

    @Test("the same answer for hours is named in the log once an hour, and changes nothing")
    func sameAnswerForHours() {
        var state = LiveFeedState(source: "s")
        var names: [String] = []
        for minute in stride(from: 0, through: 5 * 60, by: 1) {
            let outcome = Self.tracker.apply(Self.reading(["3": .lowered]), to: state, at: Self.t0.addingTimeInterval(Double(minute * 60)))
            state = outcome.state
            names += outcome.lines.map(\.name)
            #expect(outcome.events.isEmpty)
        }
        #expect(names == ["unchanged", "unchanged", "unchanged"])
    }

    // MARK: The poller

    /// A poller of the fixture's feed into `store`, as `holder`: its poll's timeout (`hangDetector`) is a hang
    /// detector, long enough for a busy machine (and stretched for a slow build, `TestTime`); the hang fault waits
    /// longer.
    static let hangDetector: TimeInterval = TestTime.seconds(30)

    static func poller(_ url: URL, _ store: any BridgeStore, holder: String, interval: TimeInterval = 1,
                       now: @escaping @Sendable () -> Date = { Date() },
                       log: @escaping @Sendable (LogLine) -> Void = { _ in }) -> LiveStatePoller {
        LiveStatePoller(
            source: SDOTStateFeed(url: url.appendingPathComponent(StateFeedFixture.path), knownBridgeIDs: ids,
                                  transport: URLSessionTransport(timeout: hangDetector), timeout: hangDetector),
            store: store, clock: .seattle, interval: interval, holder: holder, now: now, log: log)
    }

    /// Runs `body` with the fixture server (its state feed) and a SQLite store in a folder of its own with Seattle's
    /// catalog; both are gone after.
    static func withFeedAndStore(_ body: (SocrataFixtureServer, URL, SQLiteBridgeStore) async throws -> Void)
        async throws
    {
        let server = try SocrataFixtureServer(dataset: .generate(rows: 10))
        let url = try await server.start()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bridget-live-\(UUID().uuidString)").path
        defer {
            try? FileManager.default.removeItem(atPath: folder)
            Task { await server.stop() }
        }
        let store = try SQLiteBridgeStore(path: folder + "/bridget.sqlite")
        try await store.upsertBridges(BridgeCatalog.seattle.bridges)
        try await body(server, url, store)
    }

    @Test("every fault of a bad day, through the poller into a SQLite store: none opens or closes an opening")
    func faultsThroughThePoller() async throws {
        try await Self.withFeedAndStore { server, url, store in
            let lines = Locked<[String]>([])
            // The poller's clock moves a second a poll, whatever the machine's pace (a hang included).
            let clock = Locked(Date())
            let poller = Self.poller(url, store, holder: "test", now: {
                clock.withLock { moment in
                    moment = moment.addingTimeInterval(0.5)
                    return moment
                }
            }, log: { line in lines.withLock { $0.append(line.message) } })
            server.stateFeed.set("3", "Open")
            _ = try await poller.pollOnce()
            #expect(try await store.events(matching: EventQuery(status: .live)).count == 1)
            let logged = try await store.changeLogBounds().newest
            let plans = ["html", "empty", "single", "malformed", "unknown-id", "unknown-status:3", "missing:3", "503", "429",
                         "500", "hang:\(Int(Self.hangDetector) + 3)"]
            for plan in plans {
                server.stateFeed.inject([try #require(StateFeedFixture.Fault(plan: plan))])
                let turn = try await poller.pollOnce()
                guard case .polled = turn else { Issue.record("\(plan): not polled"); continue }
                #expect(try await store.changeLogBounds().newest == logged, "\(plan) changed an opening")
                let open = try await store.events(matching: EventQuery(status: .live))
                #expect(open.count == 1 && open.first?.closedAt == nil, "\(plan)")
            }
            let said = lines.withLock { $0 }.joined(separator: "\n")
            for name in ["html-page", "empty-body", "single-encoded", "malformed", "unknown-bridge", "unknown-status",
                         "http-503", "rate-limited", "http-500", "timeout"] {
                #expect(said.contains("state: \(name)"), "no log line for \(name)")
            }
            let state = try #require(try await store.liveFeedState())
            #expect(state.bridges["3"]?.position == .raised)
            // Lowered: closed once.
            server.stateFeed.set("3", "Closed")
            _ = try await poller.pollOnce()
            let closed = try await store.events(matching: EventQuery(status: .live))
            #expect(closed.count == 1 && closed.first?.closedAt != nil)
            #expect(try await store.changes(after: logged, bridgeIDs: nil, limit: 10).map(\.opening?.kind) == [.closed])
        }
    }

    @Test("a restart mid-opening goes on from the kept state (one opening); a second poller waits, then takes over")
    func restartAndTakeover() async throws {
        try await Self.withFeedAndStore { server, url, store in
            // The pollers' clock is the test's: the lease (5 s at 1 s polls) runs out when the test says, not when a
            // busy machine gets round to the next poll.
            let clock = Locked(Date())
            let now: @Sendable () -> Date = { clock.withLock { moment in moment } }
            func advance(_ seconds: TimeInterval) { clock.withLock { $0 = $0.addingTimeInterval(seconds) } }
            server.stateFeed.set("2", "Open")
            _ = try await Self.poller(url, store, holder: "first", now: now).pollOnce()
            // "first" dies without releasing: "second" waits while the lease runs, then takes over.
            let second = Self.poller(url, store, holder: "second", now: now)
            advance(1)
            guard case .heldBy(let holder) = try await second.pollOnce() else {
                Issue.record("the second poller polled while the first held the lease")
                return
            }
            #expect(holder == "first")
            advance(5)
            guard case .polled = try await second.pollOnce() else {
                Issue.record("the second poller did not take over after the lease ran out")
                return
            }
            let open = try await store.events(matching: EventQuery(status: .live))
            #expect(open.count == 1 && open.first?.closedAt == nil, "one opening, not two")
            server.stateFeed.set("2", "Closed")
            advance(1)
            _ = try await second.pollOnce()
            let closed = try await store.events(matching: EventQuery(status: .live))
            #expect(closed.count == 1 && closed.first?.closedAt != nil)
            // The old holder, back, waits: the lease is the second's now.
            advance(1)
            if case .polled = try await Self.poller(url, store, holder: "first", now: now).pollOnce() {
                Issue.record("the first poller polled while the second held the lease")
            }
        }
    }
}
