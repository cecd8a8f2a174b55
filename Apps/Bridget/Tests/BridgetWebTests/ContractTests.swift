import BridgetAnswers
import BridgetDTOs
import BridgetPersistence
import BridgetWeb
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// What the API promises beyond the happy path: bounded work, strict bodies, cursors only it gave, routes that
/// follow the store, and errors that name the right thing.
@Suite("the API's contract at its edges, in process")
struct ContractTests {
    static let token = "tok-contract"
    static let auth: HTTPFields = [.authorization: "Bearer \(token)", .contentType: "application/json"]

    /// A route body of `crossings` crossings, each naming `bridges` of the catalog's bridges.
    static func route(crossings: Int, bridges: Int) -> String {
        let names = ["1", "2", "3", "4", "6", "21", "29"]
        let list = (0..<bridges).map { "\"\(names[$0 % names.count])\"" }.joined(separator: ", ")
        let items = (0..<crossings).map { #"{"bridgeIDs": [\#(list)], "minutesFromStart": \#($0)}"# }
        return #"{"crossings": [\#(items.joined(separator: ", "))]}"#
    }

    @Test("a route over the size limits is a 400 at PUT; best-time over the work or answer limits is a 422 that says them")
    func workLimits() async throws {
        let fixture = try await WebFixture.make(days: 7, environment: ["BRIDGET_API_TOKEN": Self.token])
        defer { fixture.remove() }
        try await fixture.withClient { client in
            for (body, fragment) in [(Self.route(crossings: 21, bridges: 1), "at most 20 crossings"),
                                     (Self.route(crossings: 1, bridges: 11), "more than 10 bridges")] {
                let response = try await client.execute(uri: "/v1/routes/big", method: .put, headers: Self.auth,
                                                        body: ByteBuffer(string: body))
                #expect(try response.status == .badRequest && (try ProblemBody(response)).detail.contains(fragment),
                        "\(response.status) \(response.text)")
            }
            // The largest route allowed: 20 crossings of 7 bridges (every bridge of the catalog).
            let wide = try await client.execute(uri: "/v1/routes/wide", method: .put, headers: Self.auth,
                                                body: ByteBuffer(string: Self.route(crossings: 20, bridges: 7)))
            #expect(wide.status == .created, "\(wide.text)")
            for (query, fragment) in [("between=00:00&and=23:59&step=1", "to score, over the limit of 20000"),
                                      ("between=16:00&and=18:59&step=5&top=0", "to answer, over the limit of 2000")] {
                let response = try await client.execute(uri: "/v1/routes/wide/best-time?" + query, method: .get)
                let problem = try ProblemBody(response)
                #expect(response.status == .unprocessableContent && problem.type.hasSuffix("/over-limit")
                        && problem.detail.contains(fragment), "\(query): \(response.status) \(response.text)")
            }
            let allowed = try await client.execute(uri: "/v1/routes/wide/best-time?between=17:00&and=17:30&step=5&top=3",
                                                   method: .get)
            #expect(allowed.status == .ok, "\(allowed.text)")
        }
    }

    @Test("route bodies are read strictly: a key twice, an unknown field, a value of the wrong type are 400s naming it")
    func strictBodies() async throws {
        let fixture = try await WebFixture.make(days: 2, environment: ["BRIDGET_API_TOKEN": Self.token])
        defer { fixture.remove() }
        let crossing = #"{"bridgeIDs": ["3"], "minutesFromStart": 4}"#
        try await fixture.withClient { client in
            for (body, fragment) in [
                (#"{"crossings": [\#(crossing)], "crossings": []}"#, "'crossings' twice"),
                (#"{"crossings": [\#(crossing)], "isFavourite": true}"#, "'isFavourite'"),
                (#"{"crossings": [{"bridgeIDs": ["3"], "minutesFromStart": 4, "minutesFromStart": 9}]}"#, "twice"),
                (#"{"crossings": [{"bridgeIDs": ["3"], "minutesFromStart": 4, "speed": 9}]}"#, "'speed'"),
                (#"{"crossings": [\#(crossing)], "isFavorite": "yes"}"#, "isFavorite"),
                (#"[\#(crossing)]"#, "object"),
            ] {
                let response = try await client.execute(uri: "/v1/routes/strict", method: .put, headers: Self.auth,
                                                        body: ByteBuffer(string: body))
                let problem = try ProblemBody(response)
                #expect(response.status == .badRequest && problem.type.hasSuffix("/bad-body")
                        && problem.detail.contains(fragment), "\(body): \(response.text)")
            }
            let good = try await client.execute(uri: "/v1/routes/strict", method: .put, headers: Self.auth,
                                                body: ByteBuffer(string: #"{"id": "strict", "crossings": [\#(crossing)], "isFavorite": true}"#))
            #expect(good.status == .created, "\(good.text)")
        }
    }

    @Test("a well-formed cursor the server did not give is refused; a path segment is blamed as one; years run to 2999")
    func namesAndBounds() async throws {
        let fixture = try await WebFixture.make(days: 7)
        defer { fixture.remove() }
        try await fixture.withClient { client in
            let first = try await fixture.store.events(matching: EventQuery(bridgeID: "3", limit: 1))
            let opened = try #require(first.first).openedAt
            let query = EventPageQuery(bridgeIDs: ["3"], from: nil, before: nil, oldestFirst: false, limit: 100)
            for forged in [EventCursor(key: EventKey(bridgeID: "3", openedAt: opened.addingTimeInterval(17)), query: query),
                           EventCursor(key: EventKey(bridgeID: "3", openedAt: Date(timeIntervalSince1970: 0)), query: query),
                           EventCursor(key: EventKey(bridgeID: "2", openedAt: opened), query: query),
                           // An instant past the years a store keeps, bridges the catalog does not hold.
                           EventCursor(key: EventKey(bridgeID: "3", openedAt: Date(timeIntervalSince1970: 9e13)), query: query),
                           EventCursor(key: EventKey(bridgeID: "3", openedAt: opened), query: EventPageQuery(
                               bridgeIDs: ["3"] + (0..<50).map { "x\($0)" }, from: nil, before: nil, oldestFirst: false,
                               limit: 100))] {
                let response = try await client.execute(uri: "/v1/bridges/3/events?cursor=\(forged.text)", method: .get)
                #expect(try response.status == .badRequest
                        && (try ProblemBody(response)).title == "Bad query parameter 'cursor'", "\(response.text)")
            }
            let given = EventCursor(key: EventKey(bridgeID: "3", openedAt: opened), query: query)
            #expect(try await client.execute(uri: "/v1/bridges/3/events?cursor=\(given.text)", method: .get).status == .ok)

            let segment = try await client.execute(uri: "/v1/bridges/%FF%FE", method: .get)
            #expect(try segment.status == .badRequest && (try ProblemBody(segment)).title == "Bad path segment '{id}'",
                    "\(segment.text)")
            let late = try await client.execute(uri: "/v1/bridges/3/forecast?at=2999-12-31T23:59", method: .get)
            #expect(late.status == .ok, "\(late.text)")
            let later = try await client.execute(uri: "/v1/bridges/3/forecast?at=3000-01-01T00:00", method: .get)
            #expect(try later.status == .badRequest && (try ProblemBody(later)).detail.contains("1900 to 2999"))
        }
    }

    @Test("routes.storage: a folder the routes file cannot be written in is a 503 naming no path; the reads still answer")
    func unwritableRoutesFolder() async throws {
        let folder = NSTemporaryDirectory() + "bridget-routes-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Data("a file, not a folder".utf8).write(to: URL(fileURLWithPath: folder + "/file"))
        let fixture = try await WebFixture.make(days: 2, environment: [
            "BRIDGET_API_TOKEN": Self.token, "BRIDGET_ROUTES_PATH": folder + "/file/routes.yaml",
        ])
        defer { fixture.remove() }
        try await fixture.withClient { client in
            let put = try await client.execute(uri: "/v1/routes/commute", method: .put, headers: Self.auth,
                                               body: ByteBuffer(string: RoutesAPITests.body))
            let problem = try ProblemBody(put)
            #expect(put.status == .serviceUnavailable && put.header("Retry-After") != nil
                    && problem.type.hasSuffix("/routes-unavailable"), "\(put.status) \(put.text)")
            #expect(!put.text.contains(folder), "the answer names the server's path: \(put.text)")
            let delete = try await client.execute(uri: "/v1/routes/commute", method: .delete, headers: Self.auth)
            #expect(delete.status == .notFound || delete.status == .serviceUnavailable, "\(delete.status)")
            #expect(!delete.text.contains(folder))
            #expect(try await client.execute(uri: "/v1/routes", method: .get).status == .ok)
        }
    }

    @Test("two servers on one PostgreSQL store share their routes: saved through one, read and removed through the other; the store keeps at most 1,000")
    func routesFollowTheStore() async throws {
        _ = try PostgresUnderTest.relay() // fails the test, saying why, without a server
        let schema = PostgresUnderTest.schema()
        let environment = PostgresUnderTest.environment.merging(["BRIDGET_API_TOKEN": Self.token]) { $1 }
        let first = try await WebFixture.make(days: 2, environment: environment,
                                              storeYAML: PostgresUnderTest.storeYAML(through: nil, schema: schema))
        defer { first.remove() }
        let second = try await WebFixture.make(days: 2, environment: environment,
                                               storeYAML: PostgresUnderTest.storeYAML(through: nil, schema: schema),
                                               sync: false)
        defer { second.remove() }
        #expect(first.context.configuration.routesInStore, "routes.storage auto keeps routes in PostgreSQL")
        try await first.withClient { one in
            try await second.withClient { other in
                let saved = try await one.execute(uri: "/v1/routes/commute", method: .put, headers: Self.auth,
                                                  body: ByteBuffer(string: RoutesAPITests.body))
                #expect(saved.status == .created)
                let read = try await other.execute(uri: "/v1/routes/commute", method: .get)
                #expect(read.status == .ok && read.text == saved.text, "\(read.status) \(read.text)")
                #expect(try await other.execute(uri: "/v1/routes/commute", method: .delete, headers: Self.auth).status
                        == .noContent)
                #expect(try await one.execute(uri: "/v1/routes/commute", method: .get).status == .notFound)
                #expect(!FileManager.default.fileExists(atPath: first.folder + "/routes.yaml"), "a routes file was written")

                let crossing = RouteCrossingDTO(bridgeIDs: ["3"], minutesFromStart: 5)
                for index in 0..<1_000 {
                    try await first.store.saveRoute(RouteDTO(id: "r\(index)", crossings: [crossing], isFavorite: false))
                }
                let over = try await other.execute(uri: "/v1/routes/one-more", method: .put, headers: Self.auth,
                                                   body: ByteBuffer(string: RoutesAPITests.body))
                #expect(try over.status == .unprocessableContent && (try ProblemBody(over)).type.hasSuffix("/over-limit"))
                let replaced = try await other.execute(uri: "/v1/routes/r7", method: .put, headers: Self.auth,
                                                       body: ByteBuffer(string: RoutesAPITests.body))
                #expect(replaced.status == .ok, "replacing a route is not adding one: \(replaced.text)")
            }
        }
    }
}
