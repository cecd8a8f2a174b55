import BridgetCore
import BridgetDTOs
import BridgetPersistence
import BridgetWeb
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import PropertyBased
import Testing

/// Every path's methods (405 with `Allow`, `OPTIONS`, `HEAD`), CORS as browsers read it, and pages of events whose
/// cursors keep their query.
@Suite("the API's methods, origins and pages")
struct MethodsAndOriginsTests {
    static let methods: [HTTPRequest.Method] = [.get, .head, .post, .put, .patch, .delete, .options]

    @Test("every path of the routes table answers its methods, 405 with Allow for the others, OPTIONS 204 with Allow")
    func routesTable() async throws {
        let fixture = try await WebFixture.make(days: 7)
        defer { fixture.remove() }
        var table: [String: Set<String>] = [:]
        for route in WebAPI.routeTable {
            let parts = route.split(separator: " ", maxSplits: 1).map(String.init)
            let path = parts[1].replacingOccurrences(of: "{id}", with: "3").replacingOccurrences(of: "{name}", with: "x")
            table[path, default: []].insert(parts[0])
        }
        let paths = table
        try await fixture.withClient { client in
            for (path, declared) in paths.sorted(by: { $0.key < $1.key }) {
                var allowed = declared.union(["OPTIONS"])
                if declared.contains("GET") { allowed.insert("HEAD") }
                for method in Self.methods {
                    let response = try await client.execute(uri: path, method: method)
                    let allow = Set((response.headers[.allow] ?? "").split(separator: ",").map {
                        $0.trimmingCharacters(in: .whitespaces)
                    })
                    if method == .options {
                        #expect(response.status == .noContent && allow == allowed, "OPTIONS \(path): \(response.status)")
                    } else if !allowed.contains(method.rawValue) {
                        #expect(response.status == .methodNotAllowed && allow == allowed,
                                "\(method) \(path): \(response.status) Allow \(allow)")
                        #expect(try ProblemBody(response).type.hasSuffix("/method-not-allowed"))
                    } else if response.status == .notFound && method != .head && path.hasPrefix("/v1/") {
                        // The endpoint's own 404 (no such route or alert), not the router's.
                        #expect(try !ProblemBody(response).type.hasSuffix("/not-found"), "\(method) \(path)")
                    } else {
                        #expect(response.status != .methodNotAllowed, "\(method) \(path): \(response.status)")
                    }
                }
            }
            // A path no route has is still 404, whatever the method.
            #expect(try await client.execute(uri: "/v1/nothing", method: .post).status == .notFound)
            let head = try await client.execute(uri: "/v1/bridges/3", method: .head)
            #expect(head.status == .ok && head.body.readableBytes == 0 && head.headers[.eTag] != nil)
        }
    }

    @Test("CORS: reads from any origin, writes only from listed ones; preflights answered or refused as browsers need")
    func crossOrigin() async throws {
        let fixture = try await WebFixture.make(days: 7, environment: [
            "BRIDGET_API_TOKEN": "secret-token", "BRIDGET_SERVE_CORS_WRITE_ORIGINS": "https://app.example",
        ])
        defer { fixture.remove() }
        @Sendable func preflight(_ client: any TestClientProtocol, _ path: String, origin: String, method: String,
                       headers: String? = nil) async throws -> TestResponse {
            var fields: HTTPFields = [.origin: origin, .accessControlRequestMethod: method]
            if let headers { fields[.accessControlRequestHeaders] = headers }
            return try await client.execute(uri: path, method: .options, headers: fields)
        }
        try await fixture.withClient { client in
            // A read from anywhere: preflight and answer carry `*`, never credentials.
            let read = try await preflight(client, "/v1/bridges/3/forecast", origin: "https://other.example",
                                           method: "GET", headers: "if-none-match, last-event-id")
            #expect(read.status == .noContent && read.headers[.accessControlAllowOrigin] == "*"
                    && read.headers[.accessControlMaxAge] == "600" && read.headers[.accessControlAllowCredentials] == nil)
            let answer = try await client.execute(uri: "/v1/bridges/3", method: .get,
                                                  headers: [.origin: "https://other.example"])
            #expect(answer.status == .ok && answer.headers[.accessControlAllowOrigin] == "*"
                    && (answer.headers[.accessControlExposeHeaders] ?? "").contains("Link"))
            // A problem carries them too, so the page can read it.
            let problem = try await client.execute(uri: "/v1/bridges/3/forecast?window=0", method: .get,
                                                   headers: [.origin: "https://other.example"])
            #expect(problem.status == .badRequest && problem.headers[.accessControlAllowOrigin] == "*")

            // A write from an origin not listed: the preflight is refused without CORS headers, and the write itself
            // is refused before anything changes.
            let refused = try await preflight(client, "/v1/routes/home", origin: "https://other.example", method: "PUT",
                                              headers: "authorization, content-type")
            #expect(refused.status == .forbidden && refused.headers[.accessControlAllowOrigin] == nil)
            let body = #"{"crossings": [{"bridgeIDs": ["Fremont"], "minutesFromStart": 8}]}"#
            let write = try await client.execute(uri: "/v1/routes/home", method: .put, headers: [
                .origin: "https://other.example", .authorization: "Bearer secret-token", .contentType: "application/json",
            ], body: ByteBuffer(string: body))
            #expect(try write.status == .forbidden && ProblemBody(write).type.hasSuffix("/origin-not-allowed"))
            #expect(try await client.execute(uri: "/v1/routes/home", method: .get).status == .notFound)

            // The listed origin: echoed, with Vary: Origin, and its write goes through.
            let listed = try await preflight(client, "/v1/routes/home", origin: "https://app.example", method: "PUT",
                                             headers: "authorization, content-type")
            #expect(listed.status == .noContent && listed.headers[.accessControlAllowOrigin] == "https://app.example"
                    && (listed.headers[.vary] ?? "").contains("Origin")
                    && (listed.headers[.accessControlAllowMethods] ?? "").contains("PUT"))
            let allowed = try await client.execute(uri: "/v1/routes/home", method: .put, headers: [
                .origin: "https://app.example", .authorization: "Bearer secret-token", .contentType: "application/json",
            ], body: ByteBuffer(string: body))
            #expect([200, 201].contains(allowed.status.code), "\(allowed.status) \(allowed.text)")
            #expect(allowed.headers[.accessControlAllowOrigin] == "https://app.example")

            // A header the API does not take, a method the path does not answer, an origin that is not one.
            #expect(try await preflight(client, "/v1/bridges/3", origin: "https://a.example", method: "GET",
                                        headers: "x-secret").status == .forbidden)
            #expect(try await preflight(client, "/v1/bridges/3", origin: "https://a.example", method: "DELETE")
                .status == .forbidden)
            #expect(try await preflight(client, "/v1/bridges/3", origin: "null", method: "GET")
                .headers[.accessControlAllowOrigin] == nil)
        }
    }

    @Test("following next from any filtered query never leaves its filters, and gives each matching event once",
          arguments: [false, true])
    func pagesKeepTheirQuery(oldestFirst: Bool) async throws {
        let fixture = try await WebFixture.make(days: 10)
        defer { fixture.remove() }
        let ids = ["1", "2", "3", "4", "6", "21", "29"]
        let all = try await fixture.store.events(matching: EventQuery())
        let first = try #require(all.first).openedAt, last = try #require(all.last).openedAt
        let span = last.timeIntervalSince(first)
        await propertyCheck(count: 40, input: Gen.bool.array(of: 7), Gen.int(in: 0...100), Gen.int(in: 0...100),
                            Gen.int(in: 1...40), Gen.bool) { chosen, a, b, limit, whole in
            let bridges = zip(ids, chosen).filter(\.1).map(\.0)
            let from = first.addingTimeInterval(span * Double(min(a, b)) / 100)
            let before = whole ? nil : first.addingTimeInterval(span * Double(max(a, b)) / 100 + 1)
            let format = Date.ISO8601FormatStyle()
            let start = "/v1/events?limit=\(limit)&order=\(oldestFirst ? "oldest" : "newest")"
                + "&since=\(from.formatted(format))" + (before.map { "&until=\($0.formatted(format))" } ?? "")
                + bridges.map { "&bridge=\($0)" }.joined()
            let expected = all.filter { event in
                (bridges.isEmpty || bridges.contains(event.bridgeID)) && event.openedAt >= from
                    && before.map { event.openedAt < $0 } ?? true
            }
            let seen = try await fixture.withClient { client in
                var seen: [EventKey] = []
                var path = start
                for _ in 0..<1_000 {
                    let response = try await client.execute(uri: path, method: .get)
                    #expect(response.status == .ok, "\(path): \(response.text)")
                    let page = try Self.decoder.decode(Page.self, from: Data(response.body.readableBytesView))
                    seen += page.events.map { EventKey(bridgeID: $0.bridgeID, openedAt: $0.openedAt) }
                    #expect(page.events.count <= limit)
                    guard let next = page.next else {
                        #expect(response.headers[.link] == nil)
                        break
                    }
                    #expect(response.headers[.link] == "<\(next)>; rel=\"next\"")
                    // Half the time the cursor alone: it carries the query.
                    path = limit % 2 == 0 ? next : "/v1/events?cursor=\(page.cursor ?? "")"
                }
                return seen
            }
            let ordered = expected.sorted { oldestFirst ? ($0.openedAt, $0.bridgeID) < ($1.openedAt, $1.bridgeID)
                                                        : ($0.openedAt, $0.bridgeID) > ($1.openedAt, $1.bridgeID) }
            #expect(seen == ordered.map(\.key), "\(start): \(seen.count) seen, \(ordered.count) match")
        }
    }

    @Test("a cursor sent with another query's filters is refused, naming what differs")
    func cursorWithOtherFilters() async throws {
        let fixture = try await WebFixture.make(days: 7)
        defer { fixture.remove() }
        try await fixture.withClient { client in
            let first = try await client.execute(uri: "/v1/events?bridge=3&limit=5&since=2026-06-25", method: .get)
            let page = try Self.decoder.decode(Page.self, from: Data(first.body.readableBytesView))
            let cursor = try #require(page.cursor)
            for (query, differs) in [("bridge=2", "bridge"), ("since=2026-06-26", "since"), ("limit=6", "limit"),
                                     ("order=oldest", "order"), ("until=2026-06-28", "until")] {
                let response = try await client.execute(uri: "/v1/events?\(query)&cursor=\(cursor)", method: .get)
                let problem = try ProblemBody(response)
                #expect(response.status == .badRequest && problem.title == "Bad query parameter 'cursor'"
                        && problem.detail.contains(differs), "\(query): \(problem.detail)")
            }
            // The same filters again are the same query.
            let same = try await client.execute(uri: "/v1/events?bridge=Fremont&limit=5&cursor=\(cursor)", method: .get)
            #expect(same.status == .ok, "\(same.text)")
        }
    }

    static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }

    struct Page: Decodable {
        let events: [Event]
        let next: String?
        let cursor: String?
        struct Event: Decodable {
            let bridgeID: String
            let openedAt: Date
        }
    }
}

extension HTTPField.Name {
    static var link: Self { Self("Link")! }
}
