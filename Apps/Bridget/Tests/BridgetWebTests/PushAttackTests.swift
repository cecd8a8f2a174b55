import BridgetAlerts
import BridgetCore
import BridgetDTOs
import BridgetPersistence
import BridgetRuntime
import BridgetSQLite
import BridgetTestSupport
import BridgetWeb
import Foundation
import Hummingbird
import HummingbirdTesting
import Synchronization
import Testing

/// The stream and alert delivery against what a stranger or a misbehaving receiver sends: each test drives one class
/// of hostile input through the real parts (the HTTP client against a receiver on 127.0.0.x, real SQLite stores, the
/// server on a socket).
@Suite("push under attack: receivers and clients that misbehave")
struct PushAttackTests {
    static let now = Date(timeIntervalSince1970: 1_782_850_000)

    static func entry(attempts: Int = 0, createdAt: Date = now, id: Int64 = 1) -> AlertOutboxEntryDTO {
        AlertOutboxEntryDTO(id: id, eventID: "a:\(id)", alert: "a", createdAt: createdAt, body: #"{"id":"a:1"}"#,
                            state: .pending, attempts: attempts, nextAttemptAt: createdAt)
    }

    static func deliverer(store: any AlertStore = InMemoryBridgeStore(), transport: any AlertTransport,
                          timeout: TimeInterval = TestTime.seconds(5), batch: Int = 20,
                          environment: [String: String] = AlertsAndChangesTests.secrets,
                          resolver: @escaping @Sendable (String) throws -> [String] = DestinationPolicy.resolve,
                          now: @escaping @Sendable () -> Date = { PushAttackTests.now }) -> AlertDeliverer {
        var settings = AlertsAndChangesTests.settings
        settings.timeout = timeout
        settings.batch = batch
        return AlertDeliverer(store: store, settings: settings, holder: "test", environment: environment,
                              clock: LocalClock.seattle, transport: transport, resolver: resolver, now: now, log: { _ in })
    }

    @Test("Retry-After is a bounded fact: nan, inf, 1e300, negative, past, garbage and three centuries give a finite next attempt no sooner than the backoff and no later than the expiry, and each is recorded in a real store")
    func retryAfter() async throws {
        let folder = NSTemporaryDirectory() + "bridget-retry-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try SQLiteBridgeStore(path: folder + "/store.sqlite")
        let expiry = Self.now.addingTimeInterval(3_600)
        for value in ["nan", "inf", "-inf", "1e300", "-5", "0x10", "", "soon", "12.5", "99999999999",
                      "Wed, 21 Oct 2015 07:28:00 GMT", "Fri, 31 Dec 9999 23:59:59 GMT", "9999999999", "120"] {
            let transport = ScriptedTransport([.status(503, ["retry-after": value])])
            let deliverer = Self.deliverer(store: store, transport: transport)
            let outcome = await deliverer.attempt(Self.entry(), rule: AlertsAndChangesTests.rule())
            guard case .retry(503, let detail, let next) = outcome else {
                Issue.record("\(value): \(outcome)")
                continue
            }
            let wait = next.timeIntervalSince(Self.now)
            #expect(wait.isFinite && wait >= 5 && next <= expiry.addingTimeInterval(-10), "\(value): \(wait)")
            switch value {
            case "120": #expect(wait == 120)
            case "9999999999", "Fri, 31 Dec 9999 23:59:59 GMT": #expect(next == expiry.addingTimeInterval(-10), "\(value)")
            case "Wed, 21 Oct 2015 07:28:00 GMT": #expect(wait <= 10 && !detail.contains("ignored"), "a past date waits the backoff")
            default: #expect(detail.contains("ignored") && detail.count < 200, "\(value): \(detail)")
            }
            // The store takes the outcome (the message's state is written, nothing traps).
            let message = AlertsAndChangesTests.message("a:\(UUID().uuidString)", at: Self.now)
            #expect(try await store.enqueueAlertMessage(message, at: Self.now))
            let stored = try #require(try await store.claimMessage(eventID: message.id, holder: "t", now: Self.now,
                                                                   leaseUntil: Self.now.addingTimeInterval(60)))
            try await store.recordAttempt(outboxID: stored.id, holder: "t", at: Self.now, outcome: outcome)
        }
        // Within ten seconds of its expiry, a message is tried once more at the expiry, then given up.
        let late = Self.deliverer(store: store, transport: ScriptedTransport([.status(503, [:])]))
        guard case .retry(_, _, let next) = await late.attempt(Self.entry(createdAt: Self.now.addingTimeInterval(-3_599.5)),
                                                               rule: AlertsAndChangesTests.rule()) else {
            Issue.record("a message at its expiry is retried once more")
            return
        }
        #expect(next == Self.now.addingTimeInterval(0.5))
        #expect(AlertDeliverer.retryAfter("7", now: Self.now) == 7)
        #expect(AlertDeliverer.retryAfter("nan", now: Self.now) == nil && AlertDeliverer.retryAfter("1e300", now: Self.now) == nil)
    }

    @Test("the attempt's deadline holds while a body drips or stops mid-way, and the next attempt goes through: nothing waits on a lock the cancelled request holds")
    func deadlineMidBody() async throws {
        let receiver = try WebhookReceiver()
        receiver.reply([.drip(200, every: TestTime.duration(.milliseconds(50))),
                        .stops(200, declared: 1_000_000, sent: Array("{".utf8))])
        let rule = AlertsAndChangesTests.rule(url: "http://127.0.0.1:\(receiver.port)/hook")
        let deliverer = Self.deliverer(transport: HTTPClientAlertTransport(), timeout: TestTime.seconds(0.5),
                                       now: { Date() })
        for _ in 0..<2 {
            let started = ContinuousClock.now
            let outcome = await deliverer.attempt(Self.entry(createdAt: Date()), rule: rule)
            guard case .retry(nil, let detail, _) = outcome else {
                Issue.record("a body cut short by the deadline is retried: \(outcome)")
                continue
            }
            #expect(detail == "no answer within the deadline")
            #expect(ContinuousClock.now - started < TestTime.duration(.seconds(120)), "a hang detector")
        }
        #expect(await deliverer.attempt(Self.entry(createdAt: Date()), rule: rule) == .delivered(httpStatus: 204))
        #expect(receiver.deliveries.count == 3)
    }

    @Test("an answer's body is read to 64 KiB at most and never decompressed: a 1 GB body and a gzip bomb end with the connection, and Accept-Encoding asks for none")
    func boundedAnswers() async throws {
        let receiver = try WebhookReceiver()
        // A gzip member of a megabyte of zeros and more (a decompressor would inflate it; this client must not).
        let gzipHead: [UInt8] = [0x1F, 0x8B, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0xFF]
        receiver.reply([
            .body(500, headers: [("Content-Type", "application/octet-stream")], bytes: 1 << 30, prefix: []),
            .body(500, headers: [("Content-Encoding", "gzip"), ("Content-Type", "application/json")],
                  bytes: 1 << 20, prefix: gzipHead),
        ])
        let url = URL(string: "http://127.0.0.1:\(receiver.port)/hook")!
        let checked = DestinationPolicy.Checked(url: url, host: "127.0.0.1", address: "127.0.0.1")
        let transport = HTTPClientAlertTransport()
        for _ in 0..<2 {
            let reply = try await transport.post(checked, headers: [("Content-Type", "application/json")], body: Data("{}".utf8),
                                                 timeout: 60)
            #expect(reply.status == 500 && reply.bodyBytes <= HTTPClientAlertTransport.bodyLimit, "\(reply)")
        }
        #expect(receiver.deliveries.allSatisfy { $0.headers["accept-encoding"] == "identity" })
        let sent = receiver.bodyBytesSent
        #expect(sent.count == 2 && sent[0] < 64 << 20, "the gigabyte stopped once the client closed: \(sent)")
    }

    @Test("DNS rebinding: a name flipping between an allowed address and a refused one is connected to only at the address its check passed; a canary on the refused address hears nothing")
    func rebinding() async throws {
        let receiver = try WebhookReceiver(host: "127.0.0.2")
        // 0.0.0.0 is refused ("this network"); connected to, it reaches 127.0.0.1 on the same port: the canary.
        let canary = try WebhookReceiver(host: "127.0.0.1", port: receiver.port)
        let flips = Atomic<Int>(0)
        let flipping: @Sendable (String) throws -> [String] = { host in
            guard host == "flip.bridget.test" else { return try DestinationPolicy.resolve(host) }
            return flips.add(1, ordering: .relaxed).newValue % 2 == 0 ? ["0.0.0.0"] : ["127.0.0.2"]
        }
        let deliverer = Self.deliverer(transport: HTTPClientAlertTransport(), resolver: flipping, now: { Date() })
        let rule = AlertsAndChangesTests.rule(url: "http://flip.bridget.test:\(receiver.port)/hook")
        var (delivered, refused) = (0, 0)
        for index in 0..<40 {
            switch await deliverer.attempt(Self.entry(createdAt: Date(), id: Int64(index + 1)), rule: rule) {
            case .delivered: delivered += 1
            case .retry(nil, let detail, _) where detail.contains("never post to"): refused += 1
            case let other: Issue.record("\(other)")
            }
        }
        #expect(delivered == 20 && refused == 20)
        #expect(receiver.deliveries.count == 20 && canary.deliveries.isEmpty)
        #expect(receiver.deliveries.allSatisfy { $0.headers["host"]?.hasPrefix("flip.bridget.test") == true },
                "the request still names the host it was made for")
    }

    @Test("one table of refused ranges, address by address: the IANA special-purpose blocks are refused or private, never global")
    func specialRanges() {
        let expected: [(String, DestinationPolicy.AddressKind)] = [
            ("8.8.8.8", .global), ("1.1.1.1", .global), ("2606:4700::1111", .global), ("192.0.1.255", .global),
            ("198.20.0.1", .global), ("100.128.0.1", .global), ("172.32.0.1", .global), ("2003::1", .global),
            ("127.0.0.1", .loopback), ("127.255.255.254", .loopback), ("::1", .loopback), ("::ffff:127.0.0.1", .loopback),
            ("10.1.2.3", .privateNetwork), ("172.16.0.1", .privateNetwork), ("172.31.255.255", .privateNetwork),
            ("192.168.0.1", .privateNetwork), ("100.64.0.1", .privateNetwork), ("fd12:3456::1", .privateNetwork),
            ("fec0::1", .privateNetwork), ("::ffff:10.0.0.1", .privateNetwork),
            ("169.254.169.254", .linkLocal), ("fe80::1", .linkLocal),
            ("0.0.0.0", .forbidden), ("0.1.2.3", .forbidden), ("192.0.0.8", .forbidden), ("192.0.2.1", .forbidden),
            ("198.18.0.1", .forbidden), ("198.19.255.255", .forbidden), ("198.51.100.7", .forbidden),
            ("203.0.113.9", .forbidden), ("224.0.0.1", .forbidden), ("239.255.255.250", .forbidden),
            ("240.0.0.1", .forbidden), ("255.255.255.255", .forbidden), ("192.88.99.1", .forbidden),
            ("::", .forbidden), ("::7f00:1", .forbidden), ("::10.0.0.1", .forbidden), ("64:ff9b::7f00:1", .forbidden),
            ("64:ff9b:1::1", .forbidden), ("100::1", .forbidden), ("2001::1", .forbidden), ("2001:db8::1", .forbidden),
            ("2002:7f00:1::", .forbidden), ("3fff::1", .forbidden), ("5f00::1", .forbidden), ("ff02::1", .forbidden),
            ("not an address", .forbidden), ("127.1", .forbidden),
        ]
        for (address, kind) in expected {
            #expect(DestinationPolicy.kind(address) == kind, "\(address)")
        }
    }

    @Test("a webhook's secret comes only from BRIDGET_ALERT_SECRET_* (or the secrets file), at least 24 bytes; two secrets sign with both while one rotates; a rule naming another variable signs nothing and sends nothing")
    func secrets() async throws {
        let key = Data(repeating: 1, count: 32), old = Data(repeating: 2, count: 32)
        let file = NSTemporaryDirectory() + "bridget-secrets-" + UUID().uuidString
        try "# rotated 2026-11\nBRIDGET_ALERT_SECRET_FILE = whsec_\(key.base64EncodedString())\n".write(
            toFile: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let secrets = WebhookSecrets(environment: [
            "BRIDGET_API_TOKEN": "the-api-token-which-is-long-enough",
            "BRIDGET_ALERT_SECRET_ROTATING": "whsec_\(key.base64EncodedString()) whsec_\(old.base64EncodedString())",
            "BRIDGET_ALERT_SECRET_SHORT": "whsec_\(Data(repeating: 3, count: 16).base64EncodedString())",
            "BRIDGET_ALERT_SECRET_BAD": "whsec_%%%",
        ], file: file)
        #expect(throws: WebhookSecrets.Problem.self) { try secrets.keys(named: "BRIDGET_API_TOKEN") }
        #expect(throws: WebhookSecrets.Problem.self) { try secrets.keys(named: "BRIDGET_ALERT_SECRET_SHORT") }
        #expect(throws: WebhookSecrets.Problem.self) { try secrets.keys(named: "BRIDGET_ALERT_SECRET_BAD") }
        #expect(throws: WebhookSecrets.Problem.self) { try secrets.keys(named: "BRIDGET_ALERT_SECRET_NONE") }
        #expect(try secrets.keys(named: "BRIDGET_ALERT_SECRET_FILE") == [Array(key)])
        let rotating = try secrets.keys(named: "BRIDGET_ALERT_SECRET_ROTATING")
        #expect(rotating == [Array(key), Array(old)])
        let header = WebhookSignature.header(keys: rotating, id: "a:1", timestamp: 1_700_000_000, body: Data("{}".utf8))
        #expect(header.split(separator: " ").count == 2)
        for verifier in [Array(key), Array(old)] {
            #expect(WebhookSignature.verify(header, key: verifier, id: "a:1", timestamp: 1_700_000_000, body: Data("{}".utf8)))
        }
        // A rule stored naming another variable (before this rule existed) is never signed with it, never sent.
        let transport = ScriptedTransport()
        let deliverer = Self.deliverer(transport: transport, environment: ["BRIDGET_API_TOKEN": "the-api-token-which-is-long-enough"])
        let outcome = await deliverer.attempt(Self.entry(), rule: AlertsAndChangesTests.rule(secret: "BRIDGET_API_TOKEN"))
        guard case .retry(nil, let detail, _) = outcome else {
            Issue.record("\(outcome)")
            return
        }
        #expect(detail.contains("BRIDGET_ALERT_SECRET_") && !detail.contains("the-api-token"))
        #expect(transport.posts.isEmpty)
        // The configuration's override check leaves the secrets' variables alone.
        let loader = ConfigurationLoader(environment: ["BRIDGET_ALERT_SECRET_COMMUTE": "x", "BRIDGET_NOT_A_KEY": "y"])
        #expect(throws: BridgetError.self) { _ = try loader.resolve(yaml: "", origin: "test") }
        #expect(throws: Never.self) {
            _ = try ConfigurationLoader(environment: ["BRIDGET_ALERT_SECRET_COMMUTE": "x"]).resolve(yaml: "", origin: "test")
        }
    }

    @Test("a receiver that answers 410, or 404 three times in a row, turns its alert off: the alert says so, its other messages are given up, no change enqueues more; a single 404 is only retried")
    func goneTurnsAlertOff() async throws {
        for script in [[410], [404, 404, 404], [404, 500, 404]] {
            let store: any AlertStore = InMemoryBridgeStore()
            try await store.saveAlert(AlertsAndChangesTests.rule())
            var clock = Self.now
            for index in 0..<3 {
                let message = AlertsAndChangesTests.message("a:\(index)", at: clock)
                #expect(try await store.enqueueAlertMessage(message, at: clock))
            }
            let transport = ScriptedTransport(script.map { .status($0, [:]) })
            for _ in script {
                let now = clock
                #expect(try await Self.deliverer(store: store, transport: transport, batch: 1, now: { now }).deliverDue() == 1)
                clock = clock.addingTimeInterval(10_000 / 10)
            }
            let rule = try #require(try await store.alerts().first)
            if script == [404, 500, 404] {
                #expect(rule.disabled == nil, "404s with another answer between are not gone")
                continue
            }
            let reason = AlertRuleDTO.goneReason(httpStatus: script[0])
            #expect(rule.disabled?.reason == reason && AlertOutput(rule).disabled == reason)
            let now = clock
            let last = Self.deliverer(store: store, transport: transport, batch: 1, now: { now })
            while try await last.deliverDue() > 0 {}
            let states = try await store.outboxMessages(alert: "a", limit: 10).map(\.state)
            #expect(states.contains(.gone) && !states.contains(.pending), "\(script): \(states)")
            #expect(transport.posts.count == script.count, "nothing more was sent to a gone receiver")
        }
    }

    @Test("the alerts API: the cap holds under 60 saves at once, a secret's variable must be the alerts' own, a 10 KB name is not echoed, an alert that is off says so")
    func alertsAPI() async throws {
        let token = "tok-\(UUID().uuidString)"
        let fixture = try await WebFixture.make(environment: [
            "BRIDGET_API_TOKEN": token, "BRIDGET_ALERTS_MAX_ALERTS": "20", "BRIDGET_ALERTS_ALLOW_PRIVATE": "true",
        ])
        defer { fixture.remove() }
        let auth: HTTPFields = [.authorization: "Bearer \(token)", .contentType: "application/json"]
        let body = #"{"bridges": ["3"], "webhook": "http://127.0.0.1:9/hook"}"#
        for index in 0..<10 {
            var rule = AlertsAndChangesTests.rule("pre-\(index)")
            rule.destination.secretEnvironment = nil
            try await fixture.store.saveAlert(rule)
        }
        try await fixture.withClient { client in
            let statuses = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for index in 0..<60 {
                    group.addTask {
                        try await client.execute(uri: "/v1/alerts/new-\(index)", method: .put, headers: auth,
                                                 body: ByteBuffer(string: body)).status
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == .created }.count == 10)
            #expect(statuses.filter { $0 == .unprocessableContent }.count == 50)
            #expect(try await fixture.store.alerts().count == 20)
            let token = try await client.execute(uri: "/v1/alerts/leak", method: .put, headers: auth, body: ByteBuffer(
                string: #"{"bridges": ["3"], "webhook": "https://example.org/x", "secretEnv": "BRIDGET_API_TOKEN"}"#))
            #expect(token.status == .badRequest && token.text.contains("BRIDGET_ALERT_SECRET_"), "\(token.text)")
            let long = String(repeating: "n", count: 10_000)
            let named = try await client.execute(uri: "/v1/alerts/\(long)", method: .put, headers: auth,
                                                 body: ByteBuffer(string: body))
            #expect(named.status == .badRequest && named.text.count < 2_000, "\(named.text.count) bytes")
        }
        // An alert its receiver turned off says so, with when.
        var off = AlertsAndChangesTests.rule("pre-0")
        off.destination.secretEnvironment = nil
        off.disabled = AlertDisabling(reason: AlertRuleDTO.goneReason(httpStatus: 410), at: Self.now)
        try await fixture.store.saveAlert(off)
        try await fixture.withClient { client in
            let shown = try await client.execute(uri: "/v1/alerts/pre-0", method: .get, headers: auth)
            #expect(shown.text.contains(#""disabled" : "the receiver answered HTTP 410 Gone""#), "\(shown.text)")
        }
    }

    @Test("the stream's door: Accept with q=0 gets the JSON page, a 10 KB Last-Event-ID is refused without being echoed, clients past stream.max_clients or the per-address cap get 503 with Retry-After")
    func streamDoor() async throws {
        let fixture = try await WebFixture.make(environment: [
            "BRIDGET_STREAM_MAX_CLIENTS": "3", "BRIDGET_STREAM_MAX_CLIENTS_PER_ADDRESS": "2",
            "BRIDGET_STREAM_HEARTBEAT_SECONDS": "1",
            // The door's clients hold their slots while the test opens the next, however slow the machine: none is
            // closed for not reading (that is another test's).
            "BRIDGET_STREAM_STALL_SECONDS": "3600", "BRIDGET_SERVE_IDLE_TIMEOUT_SECONDS": "3600",
        ])
        defer { fixture.remove() }
        try await fixture.withClient { client in
            let refused = try await client.execute(uri: "/v1/stream", method: .get,
                                                   headers: [.accept: "text/event-stream;q=0, application/json"])
            #expect(refused.status == .ok && refused.text.contains(#""changes""#))
            let long = String(repeating: "9x", count: 5_000)
            let bad = try await client.execute(uri: "/v1/stream", method: .get, headers: [.init("Last-Event-ID")!: long])
            #expect(bad.status == .badRequest && bad.text.count < 1_000, "\(bad.text.count) bytes")
        }
        try await fixture.withServer { port in
            var open: [RawConnection] = []
            for _ in 0..<2 {
                let connection = try RawConnection(port: port)
                _ = connection.send("GET /v1/stream HTTP/1.1\r\nHost: t\r\nAccept: text/event-stream\r\n\r\n")
                #expect(await connection.hasNews(within: 60_000))
                open.append(connection)
            }
            let third = try RawConnection(port: port)
            _ = third.send("GET /v1/stream HTTP/1.1\r\nHost: t\r\nAccept: text/event-stream\r\n\r\n")
            let answer = await third.receiveResponse()
            #expect(answer?.status == 503 && answer?.headers["retry-after"] != nil, "\(String(describing: answer))")
            #expect(fixture.web.changes.slots.count == 2)
            for connection in open { connection.hangUp() }
            // The slots come back when the clients leave.
            for _ in 0..<1_200 where fixture.web.changes.slots.count > 0 { try await Task.sleep(for: .milliseconds(50)) }
            #expect(fixture.web.changes.slots.count == 0)
        }
    }

    @Test("stream clients that never read under thousands of changes: the server closes them once their sockets stop draining for stream.stall_seconds, the bytes queued for them stay within the budget and are given back, and a client that reads gets every change")
    func sleepingClients() async throws {
        let fixture = try await WebFixture.make(environment: [
            "BRIDGET_STREAM_STALL_SECONDS": String(TestTime.seconds(1)), "BRIDGET_STREAM_CLIENT_BUFFER": "100", "BRIDGET_STREAM_MEMORY_MB": "1",
            "BRIDGET_STREAM_POLL_MS": "20", "BRIDGET_STREAM_MAX_CLIENTS_PER_ADDRESS": "50",
        ])
        defer { fixture.remove() }
        let budget = fixture.web.changes.budget
        try await fixture.withServer { port in
            let start = try await fixture.store.changeLogBounds().newest
            let reader = try StreamClient(port: port, lastEventID: String(start))
            defer { reader.hangUp() }
            var sleepers: [RawConnection] = []
            for _ in 0..<20 {
                let connection = try RawConnection(port: port, receiveBuffer: 4_096)
                _ = connection.send("GET /v1/stream HTTP/1.1\r\nHost: t\r\nAccept: text/event-stream\r\n\r\n")
                sleepers.append(connection)
            }
            for _ in 0..<1_200 where fixture.web.changes.slots.count < 21 { try await Task.sleep(for: .milliseconds(50)) }
            #expect(fixture.web.changes.slots.count == 21)
            let bridge = try #require(try await fixture.store.bridges().first)
            let base = Self.now.addingTimeInterval(86_400)
            var peak = 0
            for batch in 0..<20 {
                let events = (0..<500).map { index in
                    BridgeEventDTO(bridgeID: bridge.id, bridgeName: bridge.name,
                                   openedAt: base.addingTimeInterval(Double(batch * 500 + index) * 60),
                                   openLocal: "2030-01-01T00:00:00", closedAt: nil, closeLocal: nil, minutesOpen: nil,
                                   latitude: nil, longitude: nil, status: .planned,
                                   recordID: "sleep-\(batch)-\(index)", recordVersion: 1)
                }
                _ = try await fixture.store.upsertEvents(events)
                peak = max(peak, budget.inUse)
                try await Task.sleep(for: .milliseconds(20))
            }
            let newest = try await fixture.store.changeLogBounds().newest
            let got = await reader.next(Int(newest - start))
            #expect(got.compactMap { $0.id.flatMap { Int64($0) } } == Array((start + 1)...newest), "a gap or a repeat")
            // Every sleeper is cut off, its slot and its bytes given back.
            for _ in 0..<2_400 where fixture.web.changes.slots.count > 1 { try await Task.sleep(for: .milliseconds(50)) }
            #expect(fixture.web.changes.slots.count == 1, "only the reader is left")
            #expect(peak <= budget.maximum)
            for sleeper in sleepers {
                let (_, closed) = await sleeper.receiveUntilClosed()
                #expect(closed)
            }
        }
        for _ in 0..<1_200 where budget.inUse > 0 { try await Task.sleep(for: .milliseconds(50)) }
        #expect(budget.inUse == 0)
    }
}
