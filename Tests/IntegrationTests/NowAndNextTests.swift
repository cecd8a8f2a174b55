import BridgetAlerts
import BridgetDTOs
import BridgetPersistence
import BridgetSQLite
import BridgetTestSupport
import Foundation
import SocrataFixtureServer
import Testing

/// What is happening now and what comes next, through the built executable over a Dutch feed that changes between
/// refreshes, served by a test server on 127.0.0.1: `status`, the change log (`events --follow`), the stream and a
/// webhook receiver see exactly the expected sequence.
@Suite("bridget executable: status, the change log, the stream and alerts")
struct NowAndNextTests {
    typealias Record = NDWFeedFixture.Record
    typealias Bridge = NDWFeedFixture.Bridge

    struct Change: Decodable, Equatable {
        let sequence: Int64
        let kind: String
        let bridgeID: String
        let status: String
        let recordVersion: Int?
    }

    struct StatusAnswer: Decodable {
        struct Line: Decodable {
            let bridgeID: String
            let state: String
            let basis: String?
            let opensInMinutes: Int?
            let nextPlanned: Opening?
            let unknownBecause: String?
        }

        struct Opening: Decodable { let openedAt: String }

        let asOf: String
        let lastSync: String?
        let bridges: [Line]

        func line(_ bridge: Bridge) -> Line? { bridges.first { $0.bridgeID == bridge.id } }
    }

    /// The feed server and the config of a store that reads it.
    struct Setup {
        let bridget: BridgetProcess
        let feedServer: SocrataFixtureServer
        let config: String

        /// Publishes `records`, their windows in minutes from `moment`: by default the moment of publishing, so what
        /// a test asks right after the sync ("opens in 10 minutes", "under way") holds however slow the machine was
        /// before it. The same records published again keep their windows only when given the same moment.
        func publish(_ records: [Record], moment: Date = Date()) async throws {
            feedServer.serve(file: try await NDWFeedFixture(moment: moment).gzip(records), at: "/brugopeningen.xml.gz",
                             contentType: "application/x-gzip")
        }

        func sync() async throws -> ProcessResult {
            let result = try await bridget.run(["sync", "--config", config, "--format", "json"])
            #expect(result.status == 0, "\(result.stderr)")
            return result
        }

        func status() async throws -> StatusAnswer {
            let result = try await bridget.run(["status", "--config", config, "--format", "json"])
            #expect(result.status == 0, "\(result.stderr)")
            return try decodeJSON(StatusAnswer.self, result.stdout)
        }
    }

    /// A store on the feed: a SQLite file in the test's home, or the store section `store` gives.
    static func setup(extra: String = "", store: String? = nil) async throws -> Setup {
        let bridget = BridgetProcess()
        let server = try SocrataFixtureServer(dataset: .generate(rows: 1, seed: 1), port: 0)
        let base = try await server.start()
        let config = try bridget.write("ndw.yaml", """
            provider:
              kind: ndw
              ndw:
                source: \(base.absoluteString)/brugopeningen.xml.gz
                timeout_seconds: 10
            \(store ?? "store:\n  path: \(bridget.home)/store.sqlite")
            cache:
              path: \(bridget.home)/cache
              policy: network-first
            refresh:
              enabled: false
            stream:
              poll_ms: 50
              heartbeat_seconds: 1
            alerts:
              allow_private: true
              backoff_initial_seconds: 0.2
              backoff_max_seconds: 1
              timeout_seconds: 5
            \(extra)
            """)
        return Setup(bridget: bridget, feedServer: server, config: config)
    }

    // The feed's three versions: A announced in 10 min and B in an hour; then A under way (a newer version), B moved
    // (a newer version) and C announced; then B gone from the feed (withdrawn).
    static let v1 = [Record(id: "1", version: 1, underWay: false, start: 10, end: 16, bridge: .a),
                     Record(id: "2", version: 1, underWay: false, start: 60, end: 66, bridge: .b)]
    // A's opening under way ends 3 hours on: the tests ask for its state after syncs, servers and deliveries, which
    // take minutes on a busy machine, and it must still be under way then.
    static let v2 = [Record(id: "1", version: 2, underWay: true, start: -1, end: 180, bridge: .a),
                     Record(id: "2", version: 2, underWay: false, start: 70, end: 76, bridge: .b),
                     Record(id: "3", version: 1, underWay: false, start: 120, end: 126, bridge: .b)]
    static let v3 = [Record(id: "1", version: 2, underWay: true, start: -1, end: 180, bridge: .a),
                     Record(id: "3", version: 1, underWay: false, start: 120, end: 126, bridge: .b)]

    @Test("a feed that changes between refreshes: status, events --follow, the stream and a webhook see exactly what changed")
    func changingFeed() async throws {
        let setup = try await Self.setup()
        defer { Task { await setup.feedServer.stop() } }
        let bridget = setup.bridget
        let receiver = try WebhookReceiver()
        try await setup.publish(Self.v1)
        _ = try await setup.sync()

        // Status after the first reading: A opens soon, B is closed with its announced opening next; as of now.
        let first = try await setup.status()
        #expect(first.line(.a)?.state == "opening soon" && (1...10).contains(first.line(.a)?.opensInMinutes ?? 0),
                "\(first.bridges)")
        #expect(first.line(.b)?.state == "closed" && first.line(.b)?.nextPlanned != nil)
        #expect(first.lastSync != nil)
        // Two hours on, with no new reading of the feed, closed is no longer known: B is unknown, saying since when.
        let later = try await bridget.run(["status", "--config", setup.config, "--at", "+2h", "--format", "json"])
        let stale = try decodeJSON(StatusAnswer.self, later.stdout)
        #expect(stale.line(.b)?.state == "unknown" && stale.line(.b)?.unknownBecause?.hasPrefix("feed last read ") == true,
                "\(later.stdout.prefix(800))")

        // An alert on both bridges, to the receiver; the server (which sends it) and a stream from the log's start.
        let add = try await bridget.run(["alert", "add", "both", "--config", setup.config, "--bridge", Bridge.a.id,
                                         "--bridge", Bridge.b.id, "--webhook", "http://127.0.0.1:\(receiver.port)/hook",
                                         "--secret-env", "BRIDGET_ALERT_SECRET_HOOK"])
        #expect(add.status == 0, "\(add.stderr)")
        let secret = "s3cret-\(UUID().uuidString)"
        let server = try await ServeTests.Server(bridget, config: setup.config,
                                                 environment: ["BRIDGET_ALERT_SECRET_HOOK": secret])
        defer { server.terminate() }
        let port = try #require(server.base.port)
        let stream = try StreamClient(port: port, lastEventID: "0")
        defer { stream.hangUp() }
        let follow = Process()
        follow.executableURL = URL(fileURLWithPath: BridgetProcess.executable)
        follow.arguments = ["events", "--config", setup.config, "--follow", "--format", "json"]
        follow.environment = ["HOME": bridget.home, "PATH": "/usr/bin:/bin"]
        let followOut = bridget.home + "/follow.out", followErr = bridget.home + "/follow.err"
        _ = FileManager.default.createFile(atPath: followOut, contents: nil)
        _ = FileManager.default.createFile(atPath: followErr, contents: nil)
        follow.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: followOut))
        follow.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: followErr))
        try follow.run()
        defer { if follow.isRunning { follow.terminate() } }
        // The follower says it follows once it has read where the log stands: the changes after that are its.
        for _ in 0..<2_400 { // two minutes: a hang detector
            if ((try? String(contentsOfFile: followErr, encoding: .utf8)) ?? "").contains("following the changes") { break }
            try await Task.sleep(for: .milliseconds(50))
        }

        let secondMoment = Date()
        try await setup.publish(Self.v2, moment: secondMoment)
        let second = try decodeJSON(SyncSummary.self, try await setup.sync().stdout)
        #expect(second.inserted == 1 && second.updated == 2, "\(second)")
        let now = try await setup.status()
        #expect(now.line(.a)?.state == "open" && now.line(.a)?.basis == "observed", "\(now.bridges)")
        #expect(now.line(.b)?.state == "closed", "B's next opening is 70 min away, past status.soon_minutes")
        try await setup.publish(Self.v3, moment: secondMoment) // A's opening as v2 had it: not a change
        let third = try await setup.sync()
        #expect(third.stdout.contains("\"withdrawn\" : 1"), "\(third.stdout)")

        // The log, the stream and the follower: exactly these changes, in this order.
        let expected = [
            (1, "announced", Bridge.a.id), (2, "announced", Bridge.b.id), (3, "replaced", Bridge.a.id),
            (4, "replaced", Bridge.b.id), (5, "announced", Bridge.b.id), (6, "withdrawn", Bridge.b.id),
        ].map { "\($0.0) \($0.1) \($0.2)" }
        let events = await stream.next(6)
        #expect(events.map(\.event) == Array(repeating: "change", count: 6))
        let streamed = try events.map { try decodeJSON(Change.self, $0.data) }
        #expect(streamed.map { "\($0.sequence) \($0.kind) \($0.bridgeID)" } == expected)
        #expect(events.map(\.id) == ["1", "2", "3", "4", "5", "6"])
        #expect(streamed[2].status == "observed" && streamed[2].recordVersion == 2)
        let page = try await server.get("/v1/stream?after=0")
        #expect(page.0 == 200 && page.2.contains("\"next\" : 6"), "\(page.2)")
        var followed: [Change] = []
        for _ in 0..<2_400 where followed.count < 4 { // two minutes: a hang detector
            let text = (try? String(contentsOfFile: followOut, encoding: .utf8)) ?? ""
            followed = text.split(separator: "\n").compactMap { try? JSONDecoder().decode(Change.self, from: Data($0.utf8)) }
            if followed.count < 4 { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(followed.map { "\($0.sequence) \($0.kind) \($0.bridgeID)" } == Array(expected.dropFirst(2)))

        // The webhook: one message per change that names an opening under way or to come (not the withdrawal, not
        // the changes before the alert), each signed, its id stable.
        var deliveries: [WebhookReceiver.Delivery] = []
        for _ in 0..<2_400 where deliveries.count < 3 {
            deliveries = receiver.deliveries
            if deliveries.count < 3 { try await Task.sleep(for: .milliseconds(50)) }
        }
        // Sent side by side: in any order (a receiver orders by the body's sequence).
        #expect(deliveries.map { $0.headers["bridget-event-id"] ?? "" }.sorted() == ["both:3", "both:4", "both:5"])
        for delivery in deliveries {
            // Standard Webhooks: the id, the timestamp and the signature over "id.timestamp.body".
            let signature = delivery.headers["webhook-signature"] ?? ""
            let id = delivery.headers["webhook-id"] ?? ""
            let timestamp = Int(delivery.headers["webhook-timestamp"] ?? "") ?? 0
            #expect(id == delivery.headers["bridget-event-id"] && abs(timestamp - Int(Date().timeIntervalSince1970)) < 600)
            #expect(WebhookSignature.verify(signature, key: Array(secret.utf8), id: id, timestamp: timestamp,
                                            body: delivery.body), "\(signature)")
            #expect(!WebhookSignature.verify(signature, key: Array("another-secret-of-24-bytes".utf8), id: id,
                                             timestamp: timestamp, body: delivery.body))
            #expect(delivery.headers["content-type"] == "application/json")
            #expect(!String(decoding: delivery.body, as: UTF8.self).contains(secret))
        }
        let log = try await bridget.run(["alert", "log", "both", "--config", setup.config, "--format", "json"])
        #expect(log.stdout.components(separatedBy: "\"delivered\"").count - 1 == 3, "\(log.stdout)")
        let (_, serverLog) = await server.stop()
        #expect(!serverLog.contains(secret) && !serverLog.contains("/hook"), "a secret or the hook's path reached the log")
    }

    @Test("a stream client that reconnects with Last-Event-ID 20 times under a steady flow of changes gets exactly the log, in order")
    func reconnects() async throws {
        let setup = try await Self.setup()
        defer { Task { await setup.feedServer.stop() } }
        try await setup.publish(Self.v1)
        _ = try await setup.sync()
        let server = try await ServeTests.Server(setup.bridget, config: setup.config)
        defer { server.terminate() }
        let port = try #require(server.base.port)
        // The flow: another writer of the same SQLite file stores a change every few milliseconds.
        let store = try SQLiteBridgeStore(path: setup.bridget.home + "/store.sqlite")
        let bridge = try #require(try await store.bridges().first { $0.id == Bridge.a.id })
        let writer = Task {
            var minute = 200
            while !Task.isCancelled {
                let opened = Date().addingTimeInterval(Double(minute * 60))
                _ = try await store.upsertEvents([BridgeEventDTO(
                    bridgeID: bridge.id, bridgeName: bridge.name, openedAt: opened, openLocal: "2030-01-01T00:00:00",
                    closedAt: nil, closeLocal: nil, minutesOpen: nil, latitude: nil, longitude: nil, status: .planned,
                    recordID: "flow-\(minute)", recordVersion: 1)])
                minute += 1
                try await Task.sleep(for: .milliseconds(15))
            }
        }
        var received: [Int64] = []
        var last = "2" // the two announcements of the first reading
        for round in 0..<20 {
            let client = try StreamClient(port: port, lastEventID: last)
            let events = await client.next(3 + round % 5)
            client.hangUp()
            for event in events where event.event == "change" {
                received.append(Int64(event.id ?? "") ?? -1)
                last = event.id ?? last
            }
            #expect(!events.contains { $0.event == "resync" || $0.event == "dropped" })
        }
        writer.cancel()
        _ = await writer.result
        // Caught up: the rest of the log through a last connection, to its newest change.
        let newest = try await store.changeLogBounds().newest
        let tail = try StreamClient(port: port, lastEventID: last)
        let rest = await tail.next(Int(newest) - (Int(last) ?? 0))
        tail.hangUp()
        received += rest.compactMap { $0.id.flatMap { Int64($0) } }
        #expect(received == Array(3...newest), "gaps or repeats: \(received)")
        let logged = try await store.changes(after: 2, bridgeIDs: nil, limit: 100_000).map(\.sequence)
        #expect(received == logged)
        // A number from the future, or one the log no longer holds, is told to resync; a bad one is refused.
        let future = try StreamClient(port: port, lastEventID: String(newest + 1_000))
        #expect(await future.next(1).first?.event == "resync")
        future.hangUp()
        let bad = try await server.get("/v1/stream", headers: ["Accept": "text/event-stream", "Last-Event-ID": "x1"])
        #expect(bad.0 == 400)
    }
}

/// The pages say what is happening now: a "now" column, announced openings on a bridge's page, open and soon bridges
/// ringed on the map; and the map's basemap from a tile server (a local one here) or, without one, the waterways.
@Suite("pages in a browser: now, and the map")
struct NowPageTests {
    func count(_ needle: String, in text: String) -> Int { text.components(separatedBy: needle).count - 1 }

    @Test("the overview marks an open and an opening-soon bridge, a bridge page lists its announcements, tiles load in Chromium")
    func nowAndTiles() async throws {
        let browser = try Browser()
        let tiles = try WebhookReceiver(getBody: (WebhookReceiver.pixel, "image/png"))
        let setup = try await NowAndNextTests.setup(extra: """
            pages:
              tiles_url: http://127.0.0.1:\(tiles.port)/tiles/{z}/{x}/{y}.png
              tiles_attribution: "© Test tiles"
            """)
        defer { Task { await setup.feedServer.stop() } }
        // A under way now; B announced in 10 minutes and again in 3 hours.
        try await setup.publish([
            NDWFeedFixture.Record(id: "1", version: 2, underWay: true, start: -2, end: 30, bridge: .a),
            NDWFeedFixture.Record(id: "2", version: 1, underWay: false, start: 10, end: 16, bridge: .b),
            NDWFeedFixture.Record(id: "3", version: 1, underWay: false, start: 180, end: 186, bridge: .b),
        ])
        _ = try await setup.sync()
        let server = try await ServeTests.Server(setup.bridget, config: setup.config, log: "now-pages")
        defer { server.terminate() }
        let overview = try await browser.load(server.base.absoluteString + "/", home: setup.bridget.home)
        #expect(overview.console.isEmpty, "the console said \(overview.console)")
        let dom = overview.dom
        #expect(dom.contains("data-state=\"open\"") && dom.contains("data-state=\"soon\""), "\(dom.prefix(3_000))")
        #expect(count("class=\"ring ring-open\"", in: dom) == 1 && count("class=\"ring ring-soon\"", in: dom) == 1)
        #expect(dom.contains("Status as of"))
        // The basemap: tiles placed in the SVG, fetched by the browser from the tile server, with its attribution.
        #expect(count("class=\"tile\"", in: dom) >= 1 && dom.contains("© Test tiles"))
        let fetched = tiles.deliveries.map(\.path).filter { $0.hasPrefix("/tiles/") && $0.hasSuffix(".png") }
        #expect(!fetched.isEmpty, "the browser fetched no tile")
        #expect(fetched.allSatisfy { $0.split(separator: "/").count == 4 }, "\(fetched)")
        #expect(!dom.contains("class=\"waterway\""), "tiles replace the schematic")
        let shot = setup.bridget.home + "/now.png"
        try await browser.screenshot(server.base.absoluteString + "/", to: shot, home: setup.bridget.home)
        #expect(try await Browser.distinctColours(shot) >= 12)

        // B's page: its announced openings, in order, and its state now.
        let page = try await browser.load(server.base.absoluteString + "/bridges/" + NDWFeedFixture.Bridge.b.id,
                                          home: setup.bridget.home)
        #expect(page.console.isEmpty)
        let announced = page.dom.components(separatedBy: "class=\"announced\"").last ?? ""
        #expect(count("<tr><td>", in: announced.components(separatedBy: "</table>")[0]) == 2, "\(page.dom.prefix(4_000))")
        #expect(page.dom.contains("opens in"))

        // A's page, open now: the first thing it says is that it is open and until when, before the next 20 minutes;
        // it and the overview with its map pass a phone's and a desk's checks. BRIDGET_SCREENSHOTS names a folder to
        // keep the screenshots in (Scripts/screenshots: Docs/screenshots).
        let open = try await browser.load(server.base.absoluteString + "/bridges/" + NDWFeedFixture.Bridge.a.id,
                                          home: setup.bridget.home)
        let fact = try #require(open.dom.components(separatedBy: "class=\"key-fact now now-open\">").dropFirst().first)
        #expect(fact.hasPrefix("Open since ") && fact.prefix { $0 != "<" }.contains(", until "), "\(fact.prefix(200))")
        let order = ["key-fact now now-open", "The next 20 minutes", "By hour of the week"].map {
            open.dom.range(of: $0)?.lowerBound
        }
        #expect(order.allSatisfy { $0 != nil } && order == order.sorted { ($0 ?? open.dom.endIndex) < ($1 ?? open.dom.endIndex) },
                "the open state comes first")
        let shots = ProcessInfo.processInfo.environment["BRIDGET_SCREENSHOTS"] ?? setup.bridget.home + "/sizes"
        let checked = try await Browser.checkPages(
            [("overview-open", server.base.absoluteString + "/"),
             ("bridge-open", server.base.absoluteString + "/bridges/" + NDWFeedFixture.Bridge.a.id)], shots: shots)
        #expect(checked.status == 0 && checked.checks == 4 && checked.failures.isEmpty, "\(checked.output)")
    }

    @Test("without tiles the map draws the waterways through their bridges in order: the Ship Canal and the Duwamish")
    func waterways() async throws {
        let bridget = BridgetProcess()
        let config = try bridget.sampleConfig(days: 30)
        #expect(try await bridget.run(["sync", "--config", config]).status == 0)
        let out = bridget.home + "/report"
        #expect(try await bridget.run(["report", "--out", out, "--config", config]).status == 0)
        let html = try String(contentsOfFile: out + "/index.html", encoding: .utf8)
        let map = html.components(separatedBy: "id=\"map\"").last ?? ""
        #expect(count("class=\"waterway\"", in: map) == 2)
        #expect(map.contains(">Ship Canal<") && map.contains(">Duwamish<"))
        #expect(!map.contains("class=\"tile\""))
        // The Ship Canal's line runs west to east through Ballard, Fremont, University, Montlake: its x rises.
        let canal = try #require(map.components(separatedBy: "class=\"waterway\" d=\"").dropFirst()
            .first { $0.contains("<title>Ship Canal</title>") })
        let path = canal.components(separatedBy: "\"")[0]
        let xs = path.dropFirst().components(separatedBy: " L").compactMap { Double($0.components(separatedBy: ",")[0]) }
        #expect(xs == xs.sorted() || xs == xs.sorted().reversed(), "\(path)")
    }
}

/// Several hosts on one PostgreSQL store: each streams every change, whoever stored it, and each alert message is
/// sent by one of them.
@Suite("status, the stream and alerts on a PostgreSQL store two servers share")
struct SharedStoreNowTests {
    @Test("two servers on one PostgreSQL store: a change synced by neither reaches both streams; each message is sent once")
    func twoHosts() async throws {
        let (url, password, _) = try PostgresExecutableTests.server()
        let schema = PostgresExecutableTests.freshSchema()
        let setup = try await NowAndNextTests.setup(
            store: PostgresExecutableTests.storeYAML(url: url, schema: schema))
        defer { Task { await setup.feedServer.stop() } }
        let receiver = try WebhookReceiver()
        let environment = ["PGPASSWORD": password]
        try await setup.publish(NowAndNextTests.v1)
        let first = try await setup.bridget.run(["sync", "--config", setup.config], environment: environment)
        #expect(first.status == 0, "\(first.stderr)")
        let add = try await setup.bridget.run(["alert", "add", "both", "--config", setup.config, "--bridge",
                                               NDWFeedFixture.Bridge.b.id, "--webhook",
                                               "http://127.0.0.1:\(receiver.port)/hook"], environment: environment)
        #expect(add.status == 0, "\(add.stderr)")
        let hostA = try await ServeTests.Server(setup.bridget, config: setup.config, environment: environment, log: "a")
        defer { hostA.terminate() }
        let hostB = try await ServeTests.Server(setup.bridget, config: setup.config, environment: environment, log: "b")
        defer { hostB.terminate() }
        let streamA = try StreamClient(port: try #require(hostA.base.port), lastEventID: "2")
        let streamB = try StreamClient(port: try #require(hostB.base.port), lastEventID: "2")
        defer { streamA.hangUp(); streamB.hangUp() }
        try await setup.publish(NowAndNextTests.v2)
        let second = try await setup.bridget.run(["sync", "--config", setup.config], environment: environment)
        #expect(second.status == 0, "\(second.stderr)")
        let a = await streamA.next(3), b = await streamB.next(3)
        #expect(a.map(\.id) == ["3", "4", "5"] && b.map(\.id) == ["3", "4", "5"], "\(a) \(b)")
        #expect(a.map(\.data) == b.map(\.data))
        // B's two changes that name an opening to come (replaced, announced): each sent once, by one host.
        var deliveries: [WebhookReceiver.Delivery] = []
        for _ in 0..<2_400 where deliveries.count < 2 {
            deliveries = receiver.deliveries
            if deliveries.count < 2 { try await Task.sleep(for: .milliseconds(50)) }
        }
        try await Task.sleep(for: .seconds(2)) // time for a second send, if one were coming
        #expect(receiver.deliveries.map { $0.headers["bridget-event-id"] ?? "" }.sorted() == ["both:4", "both:5"])
        let status = try await hostB.get("/v1/bridges/\(NDWFeedFixture.Bridge.a.id)/status")
        #expect(status.0 == 200 && status.2.contains(#""state" : "open""#), "\(status.2)")
        try await PostgresExecutableTests.psql("DROP SCHEMA \(schema) CASCADE")
    }
}

/// `bridget alert` as a person uses it.
@Suite("bridget executable: alert")
struct AlertCommandTests {
    @Test("add checks what it is given (exit 64 or 65 saying why), list and show hide the URL's path, test delivers now, log shows it, remove")
    func alertCommands() async throws {
        let bridget = BridgetProcess()
        let config = try bridget.sampleConfig(days: 20)
        #expect(try await bridget.run(["sync", "--config", config]).status == 0)
        let receiver = try WebhookReceiver(script: [503])
        let hook = "http://127.0.0.1:\(receiver.port)/hooks/PATH-SECRET"
        func run(_ arguments: [String], _ environment: [String: String] = [:]) async throws -> ProcessResult {
            try await bridget.run(["alert"] + arguments + ["--config", config],
                                  environment: environment.merging(["BRIDGET_ALERTS_ALLOW_PRIVATE": "true"]) { a, _ in a })
        }
        let secret = ["BRIDGET_ALERT_SECRET_HOOK": "whsec_" + Data(repeating: 7, count: 32).base64EncodedString()]
        for (arguments, why) in [
            (["add", "x", "--bridge", "Nowhere", "--webhook", hook], "Nowhere"),
            (["add", "x", "--bridge", "3"], "destination"),
            (["add", "x", "--bridge", "3", "--webhook", "https://192.0.2.7/x"], "never post to"),
            (["add", "x", "--bridge", "3", "--webhook", hook, "--ntfy", hook], "one destination"),
            (["add", "x y", "--bridge", "3", "--webhook", hook], "alert name"),
            (["add", "x", "--bridge", "3", "--days", "funday", "--webhook", hook], "funday"),
            (["add", "x", "--bridge", "3", "--between", "9", "--webhook", hook], "window"),
            (["add", "x", "--bridge", "3", "--webhook", hook, "--secret-env", "not a name"], "variable"),
            // Secrets come only from their own variables: never the API token's, never a short one.
            (["add", "x", "--bridge", "3", "--webhook", hook, "--secret-env", "BRIDGET_API_TOKEN"], "BRIDGET_ALERT_SECRET_"),
            (["add", "x", "--bridge", "3", "--webhook", hook, "--secret-env", "BRIDGET_ALERT_SECRET_SHORT"], "24"),
            (["add", "x", "--bridge", "3", "--between", "07:00-7:00", "--webhook", hook], "same time"),
            (["add", String(repeating: "n", count: 10_000), "--bridge", "3", "--webhook", hook], "alert name"),
            (["add", "x", "--route", "none", "--webhook", hook], "route"),
            (["show", "nope"], "no alert"),
        ] {
            let result = try await run(arguments, ["BRIDGET_ALERT_SECRET_SHORT": "too-short"])
            #expect([64, 65].contains(result.status) && result.stderr.contains(why), "\(arguments): \(result.stderr)")
            #expect(result.stderr.count < 2_000 && !result.stderr.contains("too-short"), "\(result.stderr.prefix(300))")
        }
        let add = try await run(["add", "fremont", "--bridge", "Fremont", "--days", "weekdays", "--between", "07:00-09:30",
                                 "--webhook", hook, "--secret-env", "BRIDGET_ALERT_SECRET_HOOK"])
        #expect(add.status == 0 && add.stdout.contains("fremont") && !add.stdout.contains("PATH-SECRET"), "\(add.stderr)")
        #expect(add.stderr.contains("BRIDGET_ALERT_SECRET_HOOK that holds the webhook's secret is not set"),
                "a missing secret is said: \(add.stderr)")
        // The store keeps alerts.max_alerts at most: a new one past it is refused, the same one replaced.
        let capped = try await run(["add", "other", "--bridge", "3", "--webhook", hook], ["BRIDGET_ALERTS_MAX_ALERTS": "1"])
        #expect(capped.status == 64 && capped.stderr.contains("alerts.max_alerts"), "\(capped.stderr)")
        #expect(try await run(["add", "fremont", "--bridge", "Fremont", "--days", "weekdays", "--between", "07:00-09:30",
                               "--webhook", hook, "--secret-env", "BRIDGET_ALERT_SECRET_HOOK"],
                              ["BRIDGET_ALERTS_MAX_ALERTS": "1"]).status == 0)
        let list = try await run(["list", "--format", "json"])
        #expect(list.stdout.contains(#""days" : "mon,tue,wed,thu,fri""#) && !list.stdout.contains("PATH-SECRET"))
        // The receiver answers the first post 503: the test says it was not delivered (69); the next is delivered.
        let failed = try await run(["test", "fremont"], secret)
        #expect(failed.status == 69 && failed.stderr.contains("HTTP 503"), "\(failed.stderr)")
        let test = try await run(["test", "fremont"], secret)
        #expect(test.status == 0 && test.stderr.contains("delivered"), "\(test.stderr)")
        #expect(receiver.deliveries.count == 2 && receiver.deliveries.allSatisfy { $0.path == "/hooks/PATH-SECRET" })
        let log = try await run(["log", "fremont", "--format", "json"])
        #expect(log.stdout.contains(#""outcome" : "retry""#) && log.stdout.contains(#""outcome" : "delivered""#))
        let show = try await run(["show", "fremont"])
        #expect(show.status == 0 && show.stdout.contains("fremont:test-") && !show.stdout.contains("PATH-SECRET"))
        // With a server running, which sends due messages too, each test message is sent once: whichever claims it.
        let server = try await ServeTests.Server(
            bridget, config: config, environment: secret.merging(["BRIDGET_ALERTS_ALLOW_PRIVATE": "true"]) { a, _ in a },
            log: "alert-serve")
        defer { server.terminate() }
        let before = receiver.deliveries.count
        for _ in 0..<3 {
            let sent = try await run(["test", "fremont"], secret)
            #expect(sent.status == 0, "\(sent.stderr)")
        }
        // The first test message, refused with 503, is retried by the server once its backoff (30 s) is over: on a
        // slow machine that falls inside this wait, so only the three new messages' deliveries are counted.
        let earlier = Set(receiver.deliveries.prefix(before).map { $0.headers["webhook-id"] ?? "" })
        func new() -> [String] {
            receiver.deliveries.dropFirst(before).map { $0.headers["webhook-id"] ?? "" }.filter { !earlier.contains($0) }
        }
        for _ in 0..<2_400 where new().count < 3 { try await Task.sleep(for: .milliseconds(50)) }
        try await Task.sleep(for: .seconds(3)) // a second sender would have claimed by now (it looks every second)
        let ids = new()
        #expect(ids.count == 3 && Set(ids).count == 3, "\(ids)")
        #expect(try await run(["remove", "fremont"]).status == 0)
        let again = try await run(["remove", "fremont"])
        #expect([64, 65].contains(again.status) && again.stderr.contains("no alert is named 'fremont'"), "\(again.stderr)")
    }
}

/// A stream client that stops reading is dropped, told to come back, instead of being buffered without bound.
@Suite("the stream and a client that stops reading")
struct SlowStreamClientTests {
    @Test("a client that reads nothing while thousands of changes are stored is cut off (a dropped event with a retry hint where it can be written); a client that reads gets every change through bursts larger than its queue; the server's memory stays bounded")
    func slowClientDropped() async throws {
        let setup = try await NowAndNextTests.setup()
        defer { Task { await setup.feedServer.stop() } }
        try await setup.publish(NowAndNextTests.v1)
        _ = try await setup.sync()
        // A small queue per client (every burst of the writer's overflows it: the readers catch up from the store),
        // and a client that takes nothing for a second is not reading.
        var text = try String(contentsOfFile: setup.config, encoding: .utf8)
        text = text.replacingOccurrences(of: "  heartbeat_seconds: 1\n",
                                         with: "  heartbeat_seconds: 1\n  client_buffer: 20\n  stall_seconds: 1\n")
        try text.write(toFile: setup.config, atomically: true, encoding: .utf8)
        let server = try await ServeTests.Server(setup.bridget, config: setup.config, log: "slow")
        defer { server.terminate() }
        let port = try #require(server.base.port)
        let stalled = try RawConnection(port: port)
        stalled.send("GET /v1/stream HTTP/1.1\r\nHost: bridget\r\nAccept: text/event-stream\r\n\r\n")
        // From the log's number 2 (the first reading's two announcements), however late it joins.
        let reader = try StreamClient(port: port, lastEventID: "2")
        defer { reader.hangUp() }
        // 40 batches of 1,000 changes (about 10 MB of events), stored by another writer of the file.
        let store = try SQLiteBridgeStore(path: setup.bridget.home + "/store.sqlite")
        let bridge = try #require(try await store.bridges().first)
        let base = Date().addingTimeInterval(86_400)
        for batch in 0..<40 {
            let events = (0..<1_000).map { index in
                BridgeEventDTO(bridgeID: bridge.id, bridgeName: bridge.name,
                               openedAt: base.addingTimeInterval(Double(batch * 1_000 + index) * 60),
                               openLocal: "2030-01-01T00:00:00", closedAt: nil, closeLocal: nil, minutesOpen: nil,
                               latitude: nil, longitude: nil, status: .planned,
                               recordID: "slow-\(batch)-\(index)", recordVersion: 1)
            }
            _ = try await store.upsertEvents(events)
        }
        let newest = try await store.changeLogBounds().newest
        // The reading client gets every change; the stalled one, once it reads, finds its stream ended with a
        // dropped event naming the last change it was sent.
        let got = await reader.next(Int(newest) - 2)
        #expect(got.compactMap { $0.id.flatMap { Int64($0) } } == Array(3...newest), "a gap or a repeat")
        let (data, closed) = await stalled.receiveUntilClosed()
        let body = String(decoding: data, as: UTF8.self)
        #expect(closed, "the server ended the stalled client's stream")
        // Its socket did not drain: the connection was closed (a `dropped` event goes only where it can be written).
        if body.contains("event: dropped") { #expect(body.contains("retry: 5000"), "\(body.suffix(500))") }
        let sentIDs = body.components(separatedBy: "\nid: ").count - 1
        #expect(sentIDs < Int(newest) - 2, "the stalled client was not sent everything")
        // Its resident memory stayed within reach of its start: nothing was kept for the stalled client.
        let status = try String(contentsOfFile: "/proc/\(server.process.processIdentifier)/status", encoding: .utf8)
        let rss = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") }
            .flatMap { Int($0.split(separator: " ").dropFirst().first ?? "") } ?? 0
        #expect(rss > 0 && rss < 400_000, "VmRSS \(rss) kB")
    }
}

/// What `status --at` and `events --follow` say when the time or the store is not what it seems.
@Suite("bridget executable: status and follow on a bad day")
struct StatusAndFollowEdgeTests {
    @Test("status --at a local time the clocks skip or repeat says which instant it answers for, as predict does")
    func statusInDaylightSavingTransitions() async throws {
        let bridget = BridgetProcess()
        let config = try bridget.sampleConfig(days: 20)
        #expect(try await bridget.run(["sync", "--config", config]).status == 0)
        let gap = try await bridget.run(["status", "--config", config, "--at", "2027-03-14 02:30"])
        #expect(gap.status == 0 && gap.stderr.contains("does not exist"), "\(gap.stderr)")
        let overlap = try await bridget.run(["status", "--config", config, "--at", "2026-11-01 01:30"])
        #expect(overlap.status == 0 && overlap.stderr.contains("occurs twice"), "\(overlap.stderr)")
        let plain = try await bridget.run(["status", "--config", config, "--at", "2026-11-01 12:30"])
        #expect(plain.status == 0 && !plain.stderr.contains("--at:"), "\(plain.stderr)")
    }

    @Test("status without a state feed says unknown, with the age of what is known, when nothing recent is on record; closed within hours of it; one name per bridge")
    func unknownWhenNothingRecent() async throws {
        let bridget = BridgetProcess()
        let config = try bridget.sampleConfig(days: 20) // ends 2026-06-30, long before now
        #expect(try await bridget.run(["sync", "--config", config]).status == 0)
        let now = try await bridget.run(["status", "--config", config, "--format", "json"])
        let answer = try #require(try JSONSerialization.jsonObject(with: Data(now.stdout.utf8)) as? [String: Any])
        let lines = try #require(answer["bridges"] as? [[String: Any]])
        #expect(lines.count == 7 && lines.allSatisfy { $0["state"] as? String == "unknown" }, "\(now.stdout.prefix(600))")
        #expect(lines.allSatisfy { ($0["unknownBecause"] as? String)?.hasPrefix("newest opening on record ") == true })
        #expect(lines.contains { $0["bridgeName"] as? String == "Fremont" })
        let table = try await bridget.run(["status", "--config", config])
        #expect(table.stdout.contains("not known: newest opening on record") && !table.stdout.contains("Fremont Bridge"))
        // An hour after the newest opening, the history is recent: closed is said again.
        let then = try await bridget.run(["status", "--config", config, "--at", "2026-06-30 23:59", "--format", "json"])
        #expect(then.status == 0 && !then.stdout.contains("unknownBecause") && then.stdout.contains("\"closed\""),
                "\(then.stdout.prefix(600))")
    }

    @Test("events --follow ends with an error, not silence, when its store file is deleted and another synced in its place")
    func followOfAReplacedStore() async throws {
        let bridget = BridgetProcess()
        let config = try bridget.sampleConfig(days: 20)
        #expect(try await bridget.run(["sync", "--config", config]).status == 0)
        let follow = Process()
        follow.executableURL = URL(fileURLWithPath: BridgetProcess.executable)
        follow.arguments = ["events", "--config", config, "--follow", "--limit", "1"]
        follow.environment = ["HOME": bridget.home, "PATH": "/usr/bin:/bin"]
        let errors = bridget.home + "/follow.err"
        _ = FileManager.default.createFile(atPath: errors, contents: nil)
        follow.standardOutput = FileHandle.nullDevice
        follow.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errors))
        try follow.run()
        defer { if follow.isRunning { follow.terminate() } }
        for _ in 0..<2_400 { // two minutes: a hang detector
            if ((try? String(contentsOfFile: errors, encoding: .utf8)) ?? "").contains("following the changes") { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: bridget.storePath + suffix) }
        #expect(try await bridget.run(["sync", "--config", config]).status == 0)
        for _ in 0..<2_400 where follow.isRunning { try await Task.sleep(for: .milliseconds(50)) }
        #expect(!follow.isRunning, "the follower ended")
        let said = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
        #expect(follow.terminationStatus != 0 && said.contains("was deleted"), "\(follow.terminationStatus): \(said)")
    }
}
