import BridgetDTOs
@testable import BridgetNetworking
import Foundation
import Testing

/// Seattle's state feed: what its reader takes as a bridge id, and what the feed does with redirects and
/// `Retry-After`, against real servers on 127.0.0.1.
@Suite("SDOT state feed")
struct StateFeedTests {
    static let ids: Set<String> = ["1", "2", "3", "4", "6", "21", "29"]
    static let now = Date(timeIntervalSince1970: 784_111_777) // Sun, 06 Nov 1994 08:49:37 GMT

    static func read(_ items: String) throws -> BridgeStateReading {
        try SDOTStateFeed.read(Data("[\(items)]".utf8), knownBridgeIDs: ids)
    }

    @Test("a BridgeID that is a JSON boolean is no bridge: a bad item, no position", arguments: ["true", "false"])
    func booleanIDs(_ literal: String) throws {
        let reading = try Self.read(#"{"BridgeID":\#(literal),"Status":"Open"},{"BridgeID":3,"Status":"Closed"}"#)
        #expect(reading.positions == ["3": .lowered])
        #expect(reading.notes == [.singleEncoded, .badItem(index: 0)])
    }

    @Test("ids and statuses that are not what they claim are bad items", arguments: [
        #"{"BridgeID":1.5,"Status":"Open"}"#, #"{"BridgeID":-1,"Status":"Open"}"#, #"{"BridgeID":" 2","Status":"Open"}"#,
        #"{"BridgeID":"2 ","Status":"Open"}"#, #"{"BridgeID":"+2","Status":"Open"}"#, #"{"BridgeID":"1e0","Status":"Open"}"#,
        #"{"BridgeID":100000,"Status":"Open"}"#, #"{"BridgeID":null,"Status":"Open"}"#, #"{"BridgeID":[1],"Status":"Open"}"#,
        #"{"BridgeID":1,"Status":true}"#, #"{"BridgeID":1,"Status":1}"#, #"{"BridgeID":1}"#, #""BridgeID""#,
    ])
    func badItems(_ item: String) throws {
        let reading = try Self.read(item)
        #expect(reading.positions.isEmpty, "\(item)")
        #expect(reading.notes == [.singleEncoded, .badItem(index: 0)], "\(item)")
    }

    @Test("whole numbers and their digits stay ids")
    func wholeIDs() throws {
        let reading = try Self.read(#"{"BridgeID":1,"Status":"Open"},{"BridgeID":2.0,"Status":"Closed"},"#
                                    + #"{"BridgeID":"03","Status":"Open"},{"BridgeID":"21","Status":"Closed"}"#)
        #expect(reading.positions == ["1": .raised, "2": .lowered, "3": .raised, "21": .lowered])
        #expect(reading.notes == [.singleEncoded])
    }

    static let cityBody = Data(#""[{\"BridgeID\":3,\"Status\":\"Open\"}]""#.utf8)

    @Test("the feed follows a redirect on its own origin")
    func followsItsOwnOrigin() async throws {
        let (server, url) = try await LocalHTTPServer.started { path in
            path == "/Travelers/api/Map/GetBridgeData" ? .init(status: 301, headers: ["Location": "/v2/GetBridgeData"])
                : .init(status: 200, headers: ["Content-Type": "application/json"], body: Self.cityBody)
        }
        defer { Task { await server.stop() } }
        let feed = SDOTStateFeed(url: url.appendingPathComponent("Travelers/api/Map/GetBridgeData"), knownBridgeIDs: Self.ids,
                                 transport: URLSessionTransport(), timeout: 60)
        let reading = try await feed.currentStates()
        #expect(reading.positions == ["3": .raised])
        #expect(server.requests.map(\.path) == ["/Travelers/api/Map/GetBridgeData", "/v2/GetBridgeData"])
    }

    @Test("the feed refuses a redirect to any other origin by name, and nothing reaches it")
    func refusesOtherOrigins() async throws {
        let (elsewhere, elsewhereURL) = try await LocalHTTPServer.started { _ in
            .init(status: 200, headers: ["Content-Type": "application/json"], body: Self.cityBody)
        }
        let target = "http://127.0.0.1:\(elsewhereURL.port ?? 0)/GetBridgeData"
        let (origin, originURL) = try await LocalHTTPServer.started { _ in .init(status: 302, headers: ["Location": target]) }
        defer { Task { await origin.stop(); await elsewhere.stop() } }
        let feed = SDOTStateFeed(url: originURL, knownBridgeIDs: Self.ids, transport: URLSessionTransport(), timeout: 60)
        do {
            let reading = try await feed.currentStates()
            Issue.record("read \(reading.positions) through the redirect")
        } catch let error as BridgeStateError {
            #expect(error.name == "redirect-refused")
            guard case .redirectRefused(let refusal) = error.kind else { Issue.record("\(error)"); return }
            #expect(refusal.reason == .leavesOrigin)
            #expect(refusal.to == "http://127.0.0.1:\(elsewhereURL.port ?? 0)")
            #expect(error.description.contains("pointed elsewhere"))
        }
        #expect(elsewhere.requests.isEmpty)
    }

    @Test("Retry-After is read as seconds or an HTTP date against the feed's clock, and refused when hostile",
          arguments: [("90", 90.0), ("Sun, 06 Nov 1994 08:51:07 GMT", 90), ("Sunday, 06-Nov-94 08:51:07 GMT", 90),
                      ("nan", nil), ("99999999999", nil), ("Sun, 06 Nov 1994 08:00:00 GMT", 0),
                      ("Mon, 06 Nov 1995 08:49:37 GMT", 86_400)] as [(String, Double?)])
    func retryAfter(_ header: String, _ expected: Double?) async throws {
        let (server, url) = try await LocalHTTPServer.started { _ in
            .init(status: 503, headers: ["Retry-After": header, "Content-Type": "text/plain"], body: Data("busy".utf8))
        }
        defer { Task { await server.stop() } }
        let feed = SDOTStateFeed(url: url, knownBridgeIDs: Self.ids, transport: URLSessionTransport(), timeout: 60,
                                 now: { Self.now })
        do {
            _ = try await feed.currentStates()
            Issue.record("a 503 was read")
        } catch let error as BridgeStateError {
            #expect(error.kind == .httpStatus(503, retryAfter: expected), "\(header)")
        }
    }
}
