import BridgetAnswers
import BridgetCore
import BridgetDTOs
import BridgetWeb
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

/// Saved routes over HTTP, the metrics and the request log, in process.
@Suite("routes, metrics and the log, in process")
struct RoutesAPITests {
    static let body = #"{"crossings": [{"bridgeIDs": ["Fremont", "2"], "minutesFromStart": 8}, "#
        + #"{"bridgeIDs": ["Montlake"], "minutesFromStart": 20}]}"#

    @Test("PUT and DELETE need the bearer token; reads answer as the core does; bad bodies and names are 4xx")
    func routes() async throws {
        let token = "tok-\(UUID().uuidString)"
        let fixture = try await WebFixture.make(environment: ["BRIDGET_API_TOKEN": token])
        defer { fixture.remove() }
        let auth: HTTPFields = [.authorization: "Bearer \(token)", .contentType: "application/json"]
        try await fixture.withClient { client in
            let none = try await client.execute(uri: "/v1/routes/commute", method: .put, body: ByteBuffer(string: Self.body))
            #expect(none.status == .unauthorized && none.header("WWW-Authenticate")?.hasPrefix("Bearer") == true)
            let wrong = try await client.execute(uri: "/v1/routes/commute", method: .put,
                                                 headers: [.authorization: "Bearer \(token)x"],
                                                 body: ByteBuffer(string: Self.body))
            #expect(wrong.status == .unauthorized && !wrong.text.contains(token))
            let created = try await client.execute(uri: "/v1/routes/commute", method: .put, headers: auth,
                                                   body: ByteBuffer(string: Self.body))
            #expect(created.status == .created && created.header("Location") == "/v1/routes/commute")
            #expect(created.text.contains(#""3""#) && created.text.contains(#""4""#)) // names stored as ids
            let replaced = try await client.execute(uri: "/v1/routes/commute", method: .put, headers: auth,
                                                    body: ByteBuffer(string: Self.body))
            #expect(replaced.status == .ok)
            // A name with a space travels percent-encoded and is stored as written; a slash is encoded in Location.
            let spaced = try await client.execute(uri: "/v1/routes/school%20run", method: .put, headers: auth,
                                                  body: ByteBuffer(string: Self.body))
            #expect(spaced.status == .created && spaced.text.contains(#""id" : "school run""#))
            let slashed = try await client.execute(uri: "/v1/routes/a%2Fb", method: .put, headers: auth,
                                                   body: ByteBuffer(string: Self.body))
            #expect(slashed.status == .created && slashed.header("Location") == "/v1/routes/a%2Fb")
            #expect(try await client.execute(uri: "/v1/routes/a%2Fb", method: .get).status == .ok)

            for (body, fragment) in [(#"{"crossings": [{"bridgeIDs": ["Aurora"], "minutesFromStart": 1}]}"#, "Aurora"),
                                     ("crossings: none", "not JSON"),
                                     (#"{"crossings": []}"#, "at least one crossing"),
                                     (#"{"crossings": [{"bridgeIDs": ["3"], "minutesFromStart": 2000}]}"#, "1440")] {
                let response = try await client.execute(uri: "/v1/routes/x", method: .put, headers: auth,
                                                        body: ByteBuffer(string: body))
                let problem = try ProblemBody(response)
                #expect(response.status == .badRequest && problem.type.hasSuffix("/bad-body")
                        && problem.detail.contains(fragment), "\(body): \(response.text)")
            }
            let huge = try await client.execute(uri: "/v1/routes/x", method: .put, headers: auth,
                                                body: ByteBuffer(string: String(repeating: " ", count: 70_000) + Self.body))
            #expect(try huge.status == .contentTooLarge && (try ProblemBody(huge)).type.hasSuffix("/payload-too-large"))

            // Reads equal the core's answers.
            let file = try await fixture.context.routeFile(migratingFrom: fixture.store)
            let list = try await client.execute(uri: "/v1/routes", method: .get)
            #expect(list.status == .ok && list.header("Cache-Control") == "max-age=0")
            let saved = try WebFixture.json(try await file.routes())
            #expect(list.text == saved)
            let missing = try await client.execute(uri: "/v1/routes/nowhere", method: .get)
            #expect(try missing.status == .notFound && (try ProblemBody(missing)).detail.contains("commute"))
            let route = try await RouteAnswers.route("commute", in: file)
            let answers = RouteAnswers(context: fixture.context, store: fixture.store)
            let score = try await client.execute(uri: "/v1/routes/commute/score?depart=2026-06-30T17:40", method: .get)
            let scored = try await answers.score(route, depart: "2026-06-30T17:40", option: "depart").score
            #expect(try score.status == .ok && score.text == (try WebFixture.json(scored)))
            let best = try await client.execute(
                uri: "/v1/routes/commute/best-time?between=16:00&and=18:00&step=15m&date=2026-06-30&top=3", method: .get)
            let ranked = try await answers.bestTime(route, between: ("16:00", "18:00"), date: "2026-06-30",
                                                    stepMinutes: 15, top: 3).shown
            #expect(try best.status == .ok && best.text == (try WebFixture.json(ranked)))
            // Neither end: the day's departures from 6:00 to 21:00, as the CLI; a weekday's name as the date.
            let day = try await client.execute(uri: "/v1/routes/commute/best-time?date=mon&top=0&step=30m", method: .get)
            let monday = try await answers.bestTime(route, between: ("6:00", "21:00"), date: "mon", stepMinutes: 30,
                                                    top: 0).shown
            #expect(try day.status == .ok && day.text == (try WebFixture.json(monday)) && monday.count == 31)
            for (query, parameter) in [("between=16:00", "and"), ("and=18:00", "between"), ("between=16:00&and=25:00", "and"),
                                       ("between=16:00&and=18:00&date=someday", "date"),
                                       ("between=16:00&and=18:00&step=0", "step"),
                                       ("between=16:00&and=18:00&top=-1", "top")] {
                let response = try await client.execute(uri: "/v1/routes/commute/best-time?" + query, method: .get)
                #expect(try response.status == .badRequest
                        && (try ProblemBody(response)).title == "Bad query parameter '\(parameter)'",
                        "\(query): \(response.text)")
            }

            let deleted = try await client.execute(uri: "/v1/routes/commute", method: .delete, headers: auth)
            #expect(deleted.status == .noContent && deleted.body.readableBytes == 0)
            #expect(try await client.execute(uri: "/v1/routes/commute", method: .delete, headers: auth).status == .notFound)
            #expect(try await client.execute(uri: "/v1/routes/commute", method: .delete).status == .unauthorized)
        }
    }

    @Test("with no token configured, writes are off (403), whatever is sent")
    func writesOff() async throws {
        let fixture = try await WebFixture.make()
        defer { fixture.remove() }
        try await fixture.withClient { client in
            let forbidden = try await client.execute(uri: "/v1/routes/commute", method: .put,
                                                     headers: [.authorization: "Bearer anything"],
                                                     body: ByteBuffer(string: Self.body))
            let problem = try ProblemBody(forbidden)
            #expect(forbidden.status == .forbidden && problem.type.hasSuffix("/forbidden")
                    && problem.detail.contains("BRIDGET_API_TOKEN"))
        }
    }

    @Test("/metrics counts requests by route, method and status, in the server's own registry; the log has a line a request")
    func metricsAndLog() async throws {
        let token = "tok-\(UUID().uuidString)"
        let fixture = try await WebFixture.make(environment: ["BRIDGET_API_TOKEN": token])
        defer { fixture.remove() }
        let lines = LogLines()
        let logger = Logger(label: "bridget.test") { _ in lines }
        let requestID = try await fixture.application(logger: logger).test(.router) { client in
            for _ in 0..<2 {
                _ = try await client.execute(uri: "/v1/routes/commute", method: .put, body: ByteBuffer(string: Self.body))
            }
            let bridges = try await client.execute(uri: "/v1/bridges", method: .get)
            let metrics = try await client.execute(uri: "/metrics", method: .get)
            #expect(metrics.status == .ok && metrics.header("Content-Type")?.hasPrefix("text/plain; version=0.0.4") == true)
            #expect(metrics.text.contains(#"hb_requests{http_route="/v1/routes/{name}",http_request_method="PUT","#
                                          + #"http_response_status_code="401"} 2"#), "\(metrics.text)")
            #expect(metrics.text.contains("http_server_request_duration_bucket"))
            _ = try await client.execute(uri: "/v1/routes/commute", method: .put,
                                         headers: [.authorization: "Bearer \(token)"], body: ByteBuffer(string: Self.body))
            return bridges.header("X-Request-Id")
        }
        let log = lines.all.joined(separator: "\n")
        #expect(lines.all.filter { $0.contains("GET /") || $0.contains("PUT /") }.count == 5, "\(log)")
        #expect(log.contains("GET /v1/bridges 200") && requestID.map { log.contains("request=\($0)") } == true, "\(log)")
        #expect(log.contains("PUT /v1/routes/commute 401") && log.contains("PUT /v1/routes/commute 201"))
        #expect(!log.contains(token), "the token reached the log")
    }
}

/// A log handler that keeps every line it is given, with its metadata, for a test to read.
final class LogLines: LogHandler, Sendable {
    private let lines = Locked<[String]>([])
    var all: [String] { lines.withLock { $0 } }

    var metadata: Logger.Metadata {
        get { [:] }
        set {} // swiftlint:disable:this unused_setter_value
    }

    var logLevel: Logger.Level {
        get { .trace }
        set {} // swiftlint:disable:this unused_setter_value
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { nil }
        set {} // swiftlint:disable:this unused_setter_value
    }

    func log(event: LogEvent) {
        let fields = (event.metadata ?? [:]).sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
            .joined(separator: " ")
        lines.withLock { $0.append("\(event.level) \(event.message) \(fields)") }
    }
}
