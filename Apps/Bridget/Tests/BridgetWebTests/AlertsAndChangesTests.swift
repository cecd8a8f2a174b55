import BridgetAlerts
import BridgetCore
import BridgetDTOs
import BridgetPersistence
import BridgetRuntime
import BridgetTestSupport
import BridgetWeb
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// A transport that records each post and answers from a script (then 204); a thrown error stands for a network
/// failure.
final class ScriptedTransport: AlertTransport {
    struct Post: Sendable {
        let url: URL
        /// Where the attempt connected: the address the destination check passed.
        let address: String
        let headers: [String: String]
        let body: Data
    }

    enum Answer: Sendable {
        case status(Int, [String: String])
        case failure
    }

    private let state = Locked<(posts: [Post], script: [Answer])>(([], []))

    init(_ script: [Answer] = []) { state.withLock { $0.script = script } }

    var posts: [Post] { state.withLock { $0.posts } }

    func post(_ destination: DestinationPolicy.Checked, headers: [(String, String)], body: Data, timeout: TimeInterval)
        async throws -> AlertReply
    {
        let fields = Dictionary(headers, uniquingKeysWith: { _, last in last })
        let answer = state.withLock { state in
            state.posts.append(Post(url: destination.url, address: destination.address, headers: fields, body: body))
            return state.script.isEmpty ? .status(204, [:]) : state.script.removeFirst()
        }
        switch answer {
        case .status(let status, let headers): return AlertReply(status: status, headers: headers)
        case .failure: throw AlertTransportError.unreachable
        }
    }
}

@Suite("alerts and the change log, in process")
struct AlertsAndChangesTests {
    static let settings = AlertDeliverer.Settings(BridgetConfiguration.AlertSettings(
        retryWindow: 3_600, timeout: TestTime.seconds(5), backoffInitial: 10, backoffMaximum: 100, allowPrivate: true))
    /// A webhook secret as Standard Webhooks writes one (24 bytes of "k").
    static let secret = "whsec_" + Data(repeating: UInt8(ascii: "k"), count: 24).base64EncodedString()
    static let secrets = ["BRIDGET_ALERT_SECRET_HOOK": secret]

    static func message(_ id: String, alert: String = "a", at now: Date) -> AlertMessageDTO {
        AlertMessageDTO(id: id, alert: alert, type: "opening.announced", bridgeID: "3", bridgeName: "Fremont Bridge",
                        openedAt: now.addingTimeInterval(600), closedAt: now.addingTimeInterval(900), status: .planned,
                        sequence: 1, chance: nil, createdAt: now)
    }

    static func rule(_ name: String = "a", url: String = "http://127.0.0.1:9/hook", kind: AlertDestination.Kind = .webhook,
                     secret: String? = "BRIDGET_ALERT_SECRET_HOOK") -> AlertRuleDTO {
        AlertRuleDTO(name: name, bridgeIDs: ["3"], timeZone: "America/Los_Angeles",
                     destination: AlertDestination(kind: kind, url: url, secretEnvironment: secret))
    }

    @Test("each answer of a receiver becomes its outcome: 2xx delivered, 410 gone, 429 waits its Retry-After, 5xx and a failure back off with jitter, a missing secret or a refused address is retried, an old message expires")
    func outcomes() async throws {
        let store = InMemoryBridgeStore()
        let now = Date(timeIntervalSince1970: 1_782_850_000)
        let transport = ScriptedTransport([.status(200, [:]), .status(410, [:]), .status(429, ["retry-after": "42"]),
                                           .status(500, [:]), .failure])
        let deliverer = AlertDeliverer(store: store, settings: Self.settings, holder: "test", environment: Self.secrets,
                                       clock: LocalClock.seattle, transport: transport, now: { now }, log: { _ in })
        let entry = { (attempts: Int) in
            AlertOutboxEntryDTO(id: 1, eventID: "a:1", alert: "a", createdAt: now, body: "{}", state: .pending,
                                attempts: attempts, nextAttemptAt: now)
        }
        #expect(await deliverer.attempt(entry(0), rule: Self.rule()) == .delivered(httpStatus: 200))
        #expect(await deliverer.attempt(entry(0), rule: Self.rule()) == .gone(httpStatus: 410))
        #expect(await deliverer.attempt(entry(0), rule: Self.rule())
                == .retry(httpStatus: 429, detail: "HTTP 429", next: now.addingTimeInterval(42)))
        guard case .retry(500, _, let next) = await deliverer.attempt(entry(2), rule: Self.rule()) else {
            Issue.record("a 500 is retried")
            return
        }
        #expect((20...40).contains(next.timeIntervalSince(now)), "backoff 10 × 2², with jitter 0.5…1")
        guard case .retry(nil, let detail, _) = await deliverer.attempt(entry(9), rule: Self.rule()) else {
            Issue.record("a network failure is retried")
            return
        }
        #expect(detail == "the receiver cannot be reached")
        // The signature, as Standard Webhooks says: HMAC-SHA256 over "id.timestamp.body" with the secret's key.
        let signed = try #require(transport.posts.first)
        let header = try #require(signed.headers["webhook-signature"])
        let timestamp = Int(now.timeIntervalSince1970)
        #expect(signed.headers["webhook-id"] == "a:1" && signed.headers["webhook-timestamp"] == String(timestamp))
        #expect(WebhookSignature.verify(header, key: Array(repeating: UInt8(ascii: "k"), count: 24), id: "a:1",
                                        timestamp: timestamp, body: signed.body))
        #expect(!WebhookSignature.verify(header, key: Array(repeating: UInt8(ascii: "j"), count: 24), id: "a:1",
                                         timestamp: timestamp, body: signed.body))
        #expect(header.hasPrefix("v1,") && signed.headers["Bridget-Event-Id"] == "a:1")
        // Against Python's hmac: base64(hmac.new(b"k" * 24, b'a:1.1700000000.{"id":"a:1"}', sha256).digest()).
        #expect(WebhookSignature.signature(key: Array(repeating: UInt8(ascii: "k"), count: 24), id: "a:1",
                                           timestamp: 1_700_000_000, body: Data(#"{"id":"a:1"}"#.utf8))
                == "wiwFTTzWi/ePMPBCtYEyuqKja5J/QEGxExRgzVnfeXg=")
        let posted = transport.posts.count
        let unsigned = AlertDeliverer(store: store, settings: Self.settings, holder: "test", environment: [:],
                                      clock: LocalClock.seattle, transport: transport, now: { now }, log: { _ in })
        guard case .retry(nil, let missing, _) = await unsigned.attempt(entry(0), rule: Self.rule()) else {
            Issue.record("a missing secret is retried")
            return
        }
        #expect(missing.contains("BRIDGET_ALERT_SECRET_HOOK") && !missing.contains(Self.secret))
        var strict = Self.settings
        strict.allowPrivate = false
        let guarded = AlertDeliverer(store: store, settings: strict, holder: "test", environment: Self.secrets,
                                     clock: LocalClock.seattle, transport: transport, now: { now }, log: { _ in })
        guard case .retry(nil, let refused, _) = await guarded.attempt(entry(0), rule: Self.rule(url: "https://10.1.2.3/x"))
        else {
            Issue.record("a private address is refused")
            return
        }
        #expect(refused.contains("private"), "\(refused)")
        #expect(transport.posts.count == posted, "nothing was sent without its secret or to a refused address")
        let later = AlertDeliverer(store: store, settings: Self.settings, holder: "test", environment: Self.secrets,
                                   clock: LocalClock.seattle, transport: transport, now: { now.addingTimeInterval(7_200) },
                                   log: { _ in })
        guard case .expired = await later.attempt(entry(3), rule: Self.rule()) else {
            Issue.record("a message older than the retry window expires")
            return
        }
        guard case .expired(let removed) = await deliverer.attempt(entry(0), rule: AlertRuleDTO?.none) else {
            Issue.record("a removed alert's message expires")
            return
        }
        #expect(removed.contains("removed"))
    }

    @Test("a receiver that takes the request and never answers is given up at the deadline and tried again; one that refuses connections too")
    func hangingReceiver() async throws {
        let receiver = try WebhookReceiver(script: [WebhookReceiver.hang])
        var settings = Self.settings
        settings.timeout = TestTime.seconds(0.5)
        let now = Date()
        let deliverer = AlertDeliverer(store: InMemoryBridgeStore(), settings: settings, holder: "test", environment: [:],
                                       clock: LocalClock.seattle, now: { now }, log: { _ in })
        let entry = AlertOutboxEntryDTO(id: 1, eventID: "a:1", alert: "a", createdAt: now, body: "{}", state: .pending,
                                        attempts: 0, nextAttemptAt: now)
        let rule = Self.rule(url: "http://127.0.0.1:\(receiver.port)/hook", secret: nil)
        guard case .retry(nil, let detail, let next) = await deliverer.attempt(entry, rule: rule) else {
            Issue.record("a receiver that hangs is retried")
            return
        }
        #expect(detail == "no answer within the deadline" && next > now)
        #expect(receiver.deliveries.count == 1, "the request reached it")
        // The next attempt reaches it again; a receiver gone (connections refused) is retried too.
        #expect(await deliverer.attempt(entry, rule: rule) == .delivered(httpStatus: 204))
        receiver.down()
        guard case .retry(nil, let refused, _) = await deliverer.attempt(entry, rule: rule) else {
            Issue.record("a receiver that refuses connections is retried")
            return
        }
        #expect(refused == "the receiver cannot be reached")
    }

    @Test("the destination policy: https to the internet; loopback, private and link-local (http or https) only where allowed; special-purpose ranges never")
    func destinations() async throws {
        let strict = DestinationPolicy(allowPrivate: false)
        let open = DestinationPolicy(allowPrivate: true)
        for refused in ["http://127.0.0.1:9/hook", "https://[::1]/hook", "https://10.0.0.1/x", "https://192.168.1.5/x",
                        "https://172.20.0.1/x", "https://169.254.169.254/x", "https://[fe80::1]/x", "https://[fd00::1]/x",
                        "http://8.8.8.8/x", "https://0.0.0.0/x", "https://224.0.0.1/x", "ftp://example.org/x",
                        "https://user:pw@example.org/x", "not a url"] {
            await #expect(throws: DestinationPolicy.Refusal.self, "\(refused)") { try await strict.check(refused) }
        }
        #expect(try await strict.check("https://8.8.8.8/x").address == "8.8.8.8")
        #expect(try await open.check("http://127.0.0.1:9/hook").address == "127.0.0.1")
        #expect(try await open.check("http://10.0.0.1/x").address == "10.0.0.1")
        #expect(try await open.check("https://169.254.169.254/x").address == "169.254.169.254")
        await #expect(throws: DestinationPolicy.Refusal.self) { try await open.check("http://8.8.8.8/x") }
        await #expect(throws: DestinationPolicy.Refusal.self) { try await open.check("https://0.0.0.0/x") }
        #expect(DestinationPolicy.redacted("https://hooks.example.org/services/T0/B0/SECRET?token=x") == "https://hooks.example.org/…")
        #expect(DestinationPolicy.kind("::ffff:10.0.0.1") == .privateNetwork)
    }

    @Test("a forecast alert puts one message a day in the outbox when the chance at its departure is over its threshold")
    func forecast() async throws {
        let fixture = try await WebFixture.make(days: 60)
        defer { fixture.remove() }
        let context = fixture.context
        let routes = try await context.savedRoutes(fixture.store)
        try await routes.saveRoute(RouteDTO(id: "commute", crossings: [RouteCrossingDTO(bridgeIDs: ["3"], minutesFromStart: 5)],
                                            isFavorite: false))
        let now = context.assembly.now() // 2026-06-30 13:06 PDT
        let departure = 13 * 60 + 20 // 13:20, 14 minutes on
        func rule(_ threshold: Double, days: [Int] = []) -> AlertRuleDTO {
            AlertRuleDTO(name: "f\(Int(threshold * 100))", route: "commute", bridgeIDs: ["3"], weekdays: days,
                         timeZone: "America/Los_Angeles",
                         trigger: .forecast(departureMinute: departure, threshold: threshold, leadMinutes: 30),
                         destination: AlertDestination(kind: .ntfy, url: "http://127.0.0.1:9/topic"))
        }
        try await fixture.store.saveAlert(rule(0))        // any chance
        try await fixture.store.saveAlert(rule(1))        // never
        try await fixture.store.saveAlert(AlertRuleDTO(name: "sunday", route: "commute", bridgeIDs: ["3"], weekdays: [7],
                                                       timeZone: "America/Los_Angeles",
                                                       trigger: .forecast(departureMinute: departure, threshold: 0, leadMinutes: 30),
                                                       destination: AlertDestination(kind: .ntfy, url: "http://127.0.0.1:9/topic")))
        let forecasts = ForecastAlerts(context: context, store: fixture.store)
        #expect(try await forecasts.enqueueDue(now: now.addingTimeInterval(-3_600)) == 0, "not yet due: an hour early")
        #expect(try await forecasts.enqueueDue(now: now) == 1)
        #expect(try await forecasts.enqueueDue(now: now.addingTimeInterval(60)) == 0, "once a day")
        let messages = try await fixture.store.outboxMessages(alert: nil, limit: 10)
        #expect(messages.map(\.eventID) == ["f0:forecast-2026-06-30"])
        let body = try #require(messages.first?.body)
        #expect(body.contains("\"type\":\"forecast\"") && body.contains("\"chance\":"))
        // The ntfy text says it in words.
        let transport = ScriptedTransport()
        let deliverer = AlertDeliverer(store: fixture.store, settings: Self.settings, holder: "t", environment: [:],
                                       clock: context.clock, transport: transport, now: { now }, log: { _ in })
        #expect(try await deliverer.deliverDue() == 1)
        let text = String(decoding: try #require(transport.posts.first).body, as: UTF8.self)
        #expect(text.hasPrefix("Fremont: likely to open at 2026-06-30 13:20 PDT, chance ") && text.hasSuffix("%"), "\(text)")
        #expect(transport.posts.first?.headers["Title"] == "Bridget: f0")
    }

    @Test("alerts over HTTP: every call needs the token; PUT checks the words, the bridges and the destination; answers hide the URL's path")
    func api() async throws {
        let token = "tok-\(UUID().uuidString)"
        let fixture = try await WebFixture.make(environment: ["BRIDGET_API_TOKEN": token, "BRIDGET_ALERTS_ALLOW_PRIVATE": "true"])
        defer { fixture.remove() }
        let auth: HTTPFields = [.authorization: "Bearer \(token)", .contentType: "application/json"]
        let body = #"{"bridges": ["Fremont", "2"], "days": "mon-fri", "between": "07:00-09:30", "#
            + #""webhook": "http://127.0.0.1:9/hooks/SECRET-PATH", "secretEnv": "BRIDGET_ALERT_SECRET_HOOK"}"#
        try await fixture.withClient { client in
            #expect(try await client.execute(uri: "/v1/alerts", method: .get).status == .unauthorized)
            #expect(try await client.execute(uri: "/v1/alerts/a", method: .put, body: ByteBuffer(string: body)).status
                    == .unauthorized)
            let created = try await client.execute(uri: "/v1/alerts/commute", method: .put, headers: auth,
                                                   body: ByteBuffer(string: body))
            #expect(created.status == .created && created.header("Location") == "/v1/alerts/commute", "\(created.text)")
            #expect(created.text.contains(#""days" : "mon,tue,wed,thu,fri""#) && created.text.contains(#""07:00-09:30""#))
            #expect(!created.text.contains("SECRET-PATH") && created.text.contains("http://127.0.0.1:9/…"))
            #expect(try await client.execute(uri: "/v1/alerts/commute", method: .put, headers: auth,
                                             body: ByteBuffer(string: body)).status == .ok)
            let listed = try await client.execute(uri: "/v1/alerts", method: .get, headers: auth)
            #expect(listed.status == .ok && listed.text.contains(#""name" : "commute""#))
            for (bad, why) in [(#"{"bridges": ["Nowhere"], "webhook": "https://example.org/x"}"#, "Nowhere"),
                               (#"{"bridges": ["3"]}"#, "destination"),
                               (#"{"bridges": ["3"], "webhook": "https://198.18.0.1/x"}"#, "never post to"),
                               (#"{"bridges": ["3"], "webhook": "https://example.org/x", "extra": 1}"#, "extra"),
                               (#"{"bridges": ["3"], "days": "someday", "webhook": "https://example.org/x"}"#, "someday"),
                               (#"{"bridges": ["3"], "between": "7-9", "webhook": "https://example.org/x"}"#, "7-9"),
                               (#"{"route": "nope", "webhook": "https://example.org/x"}"#, "nope"),
                               (#"["not", "an", "object"]"#, "object")] {
                let refused = try await client.execute(uri: "/v1/alerts/bad", method: .put, headers: auth,
                                                       body: ByteBuffer(string: bad))
                #expect(refused.status == .badRequest && refused.text.contains(why), "\(bad): \(refused.text)")
            }
            #expect(try await client.execute(uri: "/v1/alerts/bad%20name", method: .put, headers: auth,
                                             body: ByteBuffer(string: body)).status == .badRequest)
            #expect(try await client.execute(uri: "/v1/alerts/commute", method: .delete, headers: auth).status == .noContent)
            #expect(try await client.execute(uri: "/v1/alerts/commute", method: .delete, headers: auth).status == .notFound)
        }
    }

    @Test("status and the change log over HTTP: the status of every bridge as of when, a bad bridge is a 400, a page of the log for a poller")
    func statusAndLog() async throws {
        let fixture = try await WebFixture.make(days: 30)
        defer { fixture.remove() }
        try await fixture.withClient { client in
            let status = try await client.execute(uri: "/v1/bridges/status", method: .get)
            #expect(status.status == .ok && status.text.contains(#""asOf" : "2026-06-30T20:06:40Z""#), "\(status.text.prefix(300))")
            #expect(status.text.components(separatedBy: #""state" : ""#).count - 1 == 7)
            let one = try await client.execute(uri: "/v1/bridges/Fremont/status", method: .get)
            #expect(one.status == .ok && one.text.components(separatedBy: #""bridgeID""#).count - 1 == 1)
            #expect(try await client.execute(uri: "/v1/bridges/status?bridge=Nowhere", method: .get).status == .badRequest)
            #expect(try await client.execute(uri: "/v1/bridges/Nowhere/status", method: .get).status == .notFound)
            // The sync of an older month logged a summary a batch, not a change an opening: the page walks the log,
            // `next` says where to go on.
            let page = try await client.execute(uri: "/v1/stream?after=0&limit=5", method: .get)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(page.text.utf8)) as? [String: Any])
            let entries = try #require(object["changes"] as? [[String: Any]])
            #expect(page.status == .ok && object["resync"] as? Bool == false, "\(page.text.prefix(300))")
            #expect(!entries.isEmpty && entries.allSatisfy { $0["kind"] as? String == "bulk" && ($0["total"] as? Int ?? 0) > 100 })
            #expect(object["next"] as? Int == entries.count && object["newest"] as? Int == entries.count)
            #expect(entries.compactMap { $0["total"] as? Int }.reduce(0, +) == (try await fixture.store.eventCount(bridgeID: nil)))
            #expect(try await client.execute(uri: "/v1/stream?after=x", method: .get).status == .badRequest)
            #expect(try await client.execute(uri: "/v1/stream?limit=0", method: .get).status == .badRequest)
            let future = try await client.execute(uri: "/v1/stream?after=99999999", method: .get)
            #expect(future.text.contains(#""resync" : true"#))
        }
    }
}
