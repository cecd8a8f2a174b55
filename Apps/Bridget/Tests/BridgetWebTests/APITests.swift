import BridgetAnalysis
import BridgetAnswers
import BridgetDTOs
import BridgetPersistence
import BridgetWeb
import CompressNIO
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// The JSON API in process: the router built as `bridget serve` builds it, over a real SQLite store, asked through
/// HummingbirdTesting. Each answer is compared with the app core's own answer, which the CLI's `--format json`
/// prints too.
@Suite("the HTTP API, in process")
struct APITests {
    @Test("bridges: answers as the core's, with ETags, 304s, GeoJSON, names and ids, and problems for the unknown")
    func bridges() async throws {
        let fixture = try await WebFixture.make()
        defer { fixture.remove() }
        let listing = try await HistoryAnswers(context: fixture.context, store: fixture.store).bridges()
        let statistics = try await HistoryAnswers(context: fixture.context, store: fixture.store).statistics(in: .everything)
        // "Openings" are the statistics' openings here too; the stored rows are `rows`.
        #expect(listing.map(\.openings) == statistics.bridges.map(\.openings))
        #expect(listing.map(\.rows) == (try await fixture.store.bridgeActivity()).map(\.openings))
        let expected = try WebFixture.json(listing)
        let geo = try WebFixture.json(BridgeFeatureCollection(listing))
        try await fixture.withClient { client in
            let all = try await client.execute(uri: "/v1/bridges", method: .get)
            #expect(all.status == .ok && all.header("Content-Type") == "application/json" && all.text == expected)
            // A random UUID in lowercase, another for each request.
            let id = try #require(all.header("X-Request-Id"))
            #expect(UUID(uuidString: id) != nil && id == id.lowercased() && Array(id)[14] == "4", "\(id)")
            let etag = try #require(all.header("ETag"))
            let again = try await client.execute(uri: "/v1/bridges", method: .get, headers: [.ifNoneMatch: etag])
            #expect(again.status == .notModified && again.body.readableBytes == 0)
            #expect(again.header("X-Request-Id").map { $0 != id && UUID(uuidString: $0) != nil } == true)

            let geojson = try await client.execute(uri: "/v1/bridges?format=geojson", method: .get)
            #expect(geojson.status == .ok && geojson.header("Content-Type") == "application/geo+json" && geojson.text == geo)
            let kml = try await client.execute(uri: "/v1/bridges?format=kml", method: .get)
            #expect(try kml.status == .badRequest && (try ProblemBody(kml)).title == "Bad query parameter 'format'")

            // By name, by id, percent-encoded.
            let byName = try await client.execute(uri: "/v1/bridges/Lower%20Spokane%20St", method: .get)
            #expect(byName.status == .ok && byName.text.contains(#""id" : "6""#))
            #expect(try await client.execute(uri: "/v1/bridges/%33", method: .get).status == .ok)

            let unknown = try await client.execute(uri: "/v1/bridges/Aurora", method: .get)
            let problem = try ProblemBody(unknown)
            #expect(unknown.status == .notFound && problem.type.hasSuffix("/unknown-bridge")
                    && problem.detail.contains("Fremont (3)"))
            let badEscape = try await client.execute(uri: "/v1/bridges/%FF%FE", method: .get)
            #expect(try badEscape.status == .badRequest && (try ProblemBody(badEscape)).title == "Bad path segment '{id}'")
            // `If-None-Match: *` matches an answer that exists, not an error.
            #expect(try await client.execute(uri: "/v1/bridges/nosuch", method: .get, headers: [.ifNoneMatch: "*"]).status
                    == .notFound)
            #expect(try await client.execute(uri: "/v1/bridges/3", method: .get, headers: [.ifNoneMatch: "*"]).status
                    == .notModified)
            let nowhere = try await client.execute(uri: "/v1/nothing", method: .get)
            #expect(try nowhere.status == .notFound && (try ProblemBody(nowhere)).type.hasSuffix("/not-found"))
        }
    }

    @Test("gzip for a client that takes it and an answer worth it, compressed once; the same bytes after gunzip")
    func compression() async throws {
        let fixture = try await WebFixture.make(days: 7)
        defer { fixture.remove() }
        try await fixture.withClient { client in
            let path = "/v1/bridges/3/events?limit=200"
            let plain = try await client.execute(uri: path, method: .get)
            #expect(plain.status == .ok && plain.header("Content-Encoding") == nil
                    && plain.header("Vary") == "Accept-Encoding" && plain.body.readableBytes > AnswerEncoding.minimumBytes)
            let cachedBefore = fixture.web.answers.bytes
            var cachedAfterFirst: Int?
            for field in ["gzip", "br, gzip;q=0.5", "*", "deflate, X-GZIP"] {
                let zipped = try await client.execute(uri: path, method: .get, headers: [.acceptEncoding: field])
                #expect(zipped.status == .ok && zipped.header("Content-Encoding") == "gzip"
                        && zipped.header("Vary") == "Accept-Encoding" && zipped.header("ETag") == plain.header("ETag"),
                        "\(field)")
                var body = zipped.body
                let unzipped = try body.decompress(with: .gzip())
                #expect(unzipped == plain.body, "\(field)")
                #expect(zipped.body.readableBytes * 4 < plain.body.readableBytes, "\(field): \(zipped.body.readableBytes) bytes")
                // Compressed once: the cache holds the answer's two forms, however many asked for gzip.
                if let cachedAfterFirst {
                    #expect(fixture.web.answers.bytes == cachedAfterFirst, "\(field)")
                } else {
                    cachedAfterFirst = fixture.web.answers.bytes
                    #expect(fixture.web.answers.bytes >= cachedBefore + zipped.body.readableBytes)
                }
            }
            // Refused, or not offered: as it is.
            for field in ["gzip;q=0", "identity", "br", "*, gzip;q=0", "*;q=0"] {
                let response = try await client.execute(uri: path, method: .get, headers: [.acceptEncoding: field])
                #expect(response.status == .ok && response.header("Content-Encoding") == nil && response.body == plain.body,
                        "\(field)")
            }
            // A small answer is not worth it.
            let small = try await client.execute(uri: "/v1/bridges/3/events?limit=1", method: .get,
                                                 headers: [.acceptEncoding: "gzip"])
            #expect(small.status == .ok && small.header("Content-Encoding") == nil
                    && small.body.readableBytes < AnswerEncoding.minimumBytes)
            // A 304 is the same for either encoding.
            let etag = try #require(plain.header("ETag"))
            let unchanged = try await client.execute(uri: path, method: .get,
                                                     headers: [.acceptEncoding: "gzip", .ifNoneMatch: etag])
            #expect(unchanged.status == .notModified && unchanged.body.readableBytes == 0)
        }
    }

    @Test("a forecast's evidence from the history in memory is what the store holds, recent or further back")
    func evidenceFromMemory() async throws {
        let fixture = try await WebFixture.make(days: 120)
        defer { fixture.remove() }
        let forecasts = Forecasts(context: fixture.context, store: fixture.store)
        let clock = fixture.context.clock
        for bridge in BridgeCatalog.seattle.bridges.prefix(3) {
            let model = try await forecasts.model(of: bridge)
            // Recent (in memory) and months back (read from the store), on the hour and between.
            for at in ["2026-06-30T17:40", "2026-06-26T07:05", "2026-04-02T12:00", "2026-03-10T23:55"] {
                let resolved = try fixture.context.timeGrammar.resolve(at, option: "at", direction: .ahead)
                let answer = try await forecasts.answer(model: model, bridge: bridge, at: resolved, minutes: 45,
                                                        evidence: true)
                #expect(answer.lastSimilarSlots.count == 5)
                for slot in answer.lastSimilarSlots {
                    let start = try #require(FloatingTimestamp(slot.from + ".000"))
                    let from = clock.openingInstant(for: start)
                    let stored = try await fixture.store.events(matching: EventQuery(
                        bridgeID: bridge.id, openedFrom: from, openedBefore: from.addingTimeInterval(45 * 60)))
                    #expect(slot.openings.count == stored.count, "\(bridge.id) \(at) \(slot.from)")
                    #expect(slot.openings.map { String($0.prefix(5)) } == stored.map { String($0.openLocal.dropFirst(11).prefix(5)) })
                }
            }
        }
        // Evidence was found at all (the check above is not of empty lists only).
        let resolved = try fixture.context.timeGrammar.resolve("2026-06-30T17:40", option: "at", direction: .ahead)
        var cited = 0
        for bridge in BridgeCatalog.seattle.bridges {
            guard let model = try? await forecasts.model(of: bridge) else { continue }
            let answer = try await forecasts.answer(model: model, bridge: bridge, at: resolved, minutes: 240, evidence: true)
            cited += answer.lastSimilarSlots.reduce(0) { $0 + $1.openings.count }
        }
        #expect(cited > 0)
    }

    @Test("a forecast at a past moment says what moved it: a neighbour's opening before it, never one after")
    func forecastReasons() async throws {
        let fixture = try await WebFixture.make(days: 120)
        defer { fixture.remove() }
        let forecasts = Forecasts(context: fixture.context, store: fixture.store)
        let fremont = try #require(BridgeCatalog.seattle.bridge(id: "3"))
        let model = try await forecasts.model(of: fremont)
        #expect(model.dynamics.followers.contains { $0.fromBridgeID == "2" }, "Fremont follows Ballard in the sample")
        // Every Ballard opening of a week in the history: a minute after it, Fremont's forecast names Ballard when
        // Fremont did not open between; a minute before it, never.
        let ballard = try await fixture.store.events(matching: EventQuery(
            bridgeID: "2", openedFrom: Date(timeIntervalSince1970: 1_782_000_000),
            openedBefore: Date(timeIntervalSince1970: 1_782_000_000 + 7 * 86_400)))
        var named = 0
        for event in ballard {
            for (offset, expectNamed) in [(60.0, true), (-60.0, false)] {
                let at = event.openedAt.addingTimeInterval(offset)
                let resolved = try fixture.context.timeGrammar.resolve(
                    fixture.context.clock.reading(for: at).localText, option: "at", direction: .ahead)
                let answer = try await forecasts.answer(model: model, bridge: fremont, at: resolved, minutes: 20,
                                                        evidence: false)
                let names = answer.forecast.reasons.contains { $0.kind == "follows" && $0.bridgeID == "2" }
                // Named a minute before an opening only for an earlier one whose vessel may still come (the curfew
                // holds it: its lag counts the minutes Fremont lets vessels through), within the evidence's hours.
                let lookback = TimeInterval(NowcastEvidence.lookbackMinutes * 60)
                if !expectNamed {
                    #expect(!names || ballard.contains { $0.openedAt < at && $0.openedAt > at.addingTimeInterval(-lookback) },
                            "\(answer.forecast.reasons.map(\.text))")
                }
                if expectNamed && names { named += 1 }
            }
        }
        #expect(!ballard.isEmpty && named > 0, "\(ballard.count) Ballard openings, Ballard named after \(named)")
    }

    @Test("health, readiness and status; a sync that stores nothing still changes the status's tag")
    func operations() async throws {
        let fixture = try await WebFixture.make()
        defer { fixture.remove() }
        try await fixture.withClient { client in
            let health = try await client.execute(uri: "/healthz", method: .get)
            #expect(health.status == .ok && health.text == "ok\n")
            #expect(try await client.execute(uri: "/readyz", method: .get).text == "ready\n")
            let status = try await client.execute(uri: "/v1/status", method: .get)
            struct Status: Decodable {
                struct Run: Decodable { let status: String }
                let provider: String
                let lastSync: Run?
            }
            let state = try JSONDecoder().decode(Status.self, from: Data(status.body.readableBytesView))
            #expect(state.provider == "sample" && state.lastSync?.status == "succeeded")
            let tag = try #require(status.header("ETag"))
            #expect(try await client.execute(uri: "/v1/status", method: .get, headers: [.ifNoneMatch: tag]).status
                    == .notModified)
            _ = try await fixture.context.assembly.makeSyncPipeline(store: fixture.store).run(full: false)
            let after = try await client.execute(uri: "/v1/status", method: .get, headers: [.ifNoneMatch: tag])
            #expect(after.status == .ok)
        }
    }

    @Test("events in pages with a cursor, stats and a forecast answer as the core does; bad input names its parameter")
    func answers() async throws {
        let fixture = try await WebFixture.make()
        defer { fixture.remove() }
        let fremont = try #require(BridgeCatalog.seattle.bridge(id: "3"))
        let everyEvent = try await fixture.store.events(matching: EventQuery(bridgeID: "3", newestFirst: true))
            .map { EventOutput($0, clock: fixture.context.clock) }
        var scope = HistoryScope()
        scope.bridgeIDs = ["3", "2"]
        scope.from = try fixture.context.timeGrammar.instant("2026-06-15", option: "since", direction: .back)
        let statistics = try WebFixture.json(
            try await HistoryAnswers(context: fixture.context, store: fixture.store).stats(in: scope))
        let forecasts = Forecasts(context: fixture.context, store: fixture.store)
        let at = try fixture.context.timeGrammar.resolve("2026-06-30T17:40", option: "at", direction: .ahead)
        let forecast = try WebFixture.json(try await forecasts.answer(
            model: try await forecasts.model(of: fremont), bridge: fremont, at: at, minutes: 20, evidence: true))
        try await fixture.withClient { client in
            var collected: [String] = []
            var path = "/v1/bridges/Fremont/events?limit=50"
            var pages = 0
            struct Page: Decodable {
                let events: [Event]
                let next: String?
                struct Event: Decodable { let openedAt: String }
            }
            while true {
                let response = try await client.execute(uri: path, method: .get)
                #expect(response.status == .ok, "\(path): \(response.text)")
                let page = try JSONDecoder().decode(Page.self, from: Data(response.body.readableBytesView))
                collected += page.events.map(\.openedAt)
                pages += 1
                guard let next = page.next else { break }
                #expect(page.events.count == 50)
                #expect(next.hasPrefix("/v1/bridges/3/events?") && next.contains("limit=50"), "\(next)")
                path = next
            }
            let formatter = ISO8601DateFormatter()
            #expect(pages > 1 && collected == everyEvent.map { formatter.string(from: $0.openedAt) })

            let stats = try await client.execute(uri: "/v1/stats?bridge=3&bridge=Ballard&since=2026-06-15", method: .get)
            #expect(stats.status == .ok && Self.withoutGeneratedAt(stats.text) == Self.withoutGeneratedAt(statistics))
            let predicted = try await client.execute(uri: "/v1/bridges/3/forecast?at=2026-06-30T17:40&window=20m",
                                                     method: .get)
            #expect(predicted.status == .ok && predicted.text == forecast, "\(predicted.text)")

            for (query, parameter) in [("/v1/bridges/3/events?limit=5000", "limit"),
                                       ("/v1/bridges/3/events?since=soon", "since"),
                                       ("/v1/bridges/3/events?cursor=zzz", "cursor"),
                                       ("/v1/bridges/3/forecast?window=0", "window"),
                                       ("/v1/bridges/3/forecast?at=whenever", "at"),
                                       ("/v1/stats?bridge=Aurora", "bridge"), ("/v1/stats?until=never", "until")] {
                let response = try await client.execute(uri: query, method: .get)
                let problem = try ProblemBody(response)
                #expect(response.status == .badRequest && problem.title == "Bad query parameter '\(parameter)'",
                        "\(query): \(response.status) \(response.text)")
            }
        }
    }

    /// A statistics answer without the moment it was made.
    static func withoutGeneratedAt(_ text: String) -> String {
        text.split(separator: "\n").filter { !$0.contains("\"generatedAt\"") }.joined(separator: "\n")
    }

    @Test("an empty store: lists are empty, a forecast or a route score is a 404 no-history, never a 500")
    func emptyStore() async throws {
        let token = "t-\(UUID().uuidString)"
        let fixture = try await WebFixture.make(environment: ["BRIDGET_API_TOKEN": token], sync: false)
        defer { fixture.remove() }
        try await fixture.withClient { client in
            let bridges = try await client.execute(uri: "/v1/bridges", method: .get)
            #expect(bridges.text == "[\n\n]\n", "\(bridges.status) \(bridges.text)")
            let forecast = try await client.execute(uri: "/v1/bridges/3/forecast", method: .get)
            #expect(try forecast.status == .notFound && (try ProblemBody(forecast)).type.hasSuffix("/no-history"))
            let saved = try await client.execute(
                uri: "/v1/routes/r", method: .put, headers: [.authorization: "Bearer \(token)"],
                body: ByteBuffer(string: #"{"crossings": [{"bridgeIDs": ["3"], "minutesFromStart": 5}]}"#))
            #expect(saved.status == .created)
            for path in ["/v1/routes/r/score", "/v1/routes/r/best-time?between=7:00&and=8:00"] {
                let response = try await client.execute(uri: path, method: .get)
                #expect(try response.status == .notFound && (try ProblemBody(response)).type.hasSuffix("/no-history"),
                        "\(path): \(response.text)")
            }
        }
    }

    @Test("Docs/openapi.yaml documents exactly the endpoints the router registers, no more, no fewer")
    func openAPIMatchesTheRoutes() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let text = try String(contentsOf: root.appendingPathComponent("Docs/openapi.yaml"), encoding: .utf8)
        var documented: [String] = []
        var path: String?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("  /"), line.hasSuffix(":") { path = String(line.dropFirst(2).dropLast()) }
            else if line.hasPrefix("paths:") { path = nil }
            else if let current = path, line.hasPrefix("    "), !line.hasPrefix("     "), line.hasSuffix(":") {
                let method = line.trimmingCharacters(in: .whitespaces).dropLast()
                if ["get", "put", "post", "delete", "patch", "head", "options"].contains(String(method)) {
                    documented.append(method.uppercased() + " " + current)
                }
            } else if !line.hasPrefix(" "), !line.isEmpty { path = nil }
        }
        #expect(documented.sorted() == WebAPI.routeTable.sorted())
    }
}
