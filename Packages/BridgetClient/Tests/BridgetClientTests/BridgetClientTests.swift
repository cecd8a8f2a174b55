import BridgetClient
import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The client against a real `bridget serve`: `Scripts/test` starts one over a synced sample store and names it in
/// `BRIDGET_CLIENT_SERVER_URL`. Without it every test fails, saying so.
@Suite("BridgetClient against bridget serve")
struct BridgetClientTests {
    static func server() throws -> URL {
        guard let text = ProcessInfo.processInfo.environment["BRIDGET_CLIENT_SERVER_URL"], let url = URL(string: text)
        else {
            throw Missing(reason: "BRIDGET_CLIENT_SERVER_URL is not set: these tests run against a `bridget serve` "
                          + "that Scripts/test starts (or start one and set it to its http://127.0.0.1:PORT)")
        }
        return url
    }

    struct Missing: Error, CustomStringConvertible {
        let reason: String
        var description: String { reason }
    }

    @Test("status: the store's status and every bridge's state now, decoded from the contract's types")
    func status() async throws {
        let bridget = BridgetAPI(serverURL: try Self.server())
        let store = try await bridget.client.getStatus().ok.body.json
        #expect(store.provider == .sample && store.historyVersion > 0 && store.newestOpening != nil)
        let now = try await bridget.client.getBridgesStatus().ok.body.json
        #expect(now.bridges.count >= 7, "\(now.bridges.map(\.bridgeName))")
        let fremont = try #require(now.bridges.first { $0.bridgeID == "3" })
        #expect(fremont.bridgeName == "Fremont")
    }

    @Test("a forecast: Fremont at a fixed moment, a chance between 0 and 1 with its reasons")
    func forecast() async throws {
        let bridget = BridgetAPI(serverURL: try Self.server())
        let answer = try await bridget.client.getBridgeForecast(path: .init(id: "Fremont"),
                                                                query: .init(at: "2026-06-30T17:40", window: "20m"))
            .ok.body.json
        #expect(answer.forecast.bridgeID == "3" && answer.forecast.windowMinutes == 20)
        #expect((0...1).contains(answer.forecast.chanceOfOpening), "\(answer.forecast.chanceOfOpening)")
        #expect(answer.atLocal == "2026-06-30T17:40:00")
        // A bad parameter is the contract's problem, not a crash.
        let refused = try await bridget.client.getBridgeForecast(path: .init(id: "3"), query: .init(window: "0"))
        guard case .badRequest(let problem) = refused else {
            Issue.record("window=0 should be refused: \(refused)")
            return
        }
        #expect(try problem.body.applicationProblemJson.value1.title == "Bad query parameter 'window'")
    }

    @Test("pages of events: followed to the last, every event once, in order, inside the filters")
    func eventPages() async throws {
        let bridget = BridgetAPI(serverURL: try Self.server())
        let query = EventQuery(bridges: ["3", "Ballard"], since: "2026-06-10", until: "2026-06-25", limit: 7)
        var seen: [Components.Schemas.Event] = []
        var pages = 0
        for try await page in bridget.eventPages(query) {
            pages += 1
            #expect(page.events.count <= 7)
            seen += page.events
        }
        let whole = try await bridget.client.listEvents(query: .init(
            bridge: ["3", "2"], since: "2026-06-10", until: "2026-06-25", limit: 1_000)).ok.body.json
        #expect(whole.next == nil && !whole.events.isEmpty)
        #expect(pages == (whole.events.count + 6) / 7 && seen.map(\.openedAt) == whole.events.map(\.openedAt)
                && seen.map(\.bridgeID) == whole.events.map(\.bridgeID))
        #expect(seen.allSatisfy { ["2", "3"].contains($0.bridgeID) && $0.openLocal >= "2026-06-10" && $0.openLocal < "2026-06-25" })
        // Oldest first: the same events, reversed.
        var oldest: [Date] = []
        for try await page in bridget.eventPages(EventQuery(bridges: ["3", "2"], since: "2026-06-10", until: "2026-06-25",
                                                            oldestFirst: true, limit: 50)) {
            oldest += page.events.map(\.openedAt)
        }
        #expect(oldest == whole.events.map(\.openedAt).reversed())
    }

    @Test("a stream the server refuses (an unknown bridge) ends at once with the server's status, not after retries")
    func streamRefused() async throws {
        let server = try Self.server()
        let relay = try Relay(upstreamPort: UInt16(server.port ?? 80))
        let bridget = BridgetAPI(serverURL: URL(string: "http://127.0.0.1:\(relay.port)")!)
        do {
            for try await change in bridget.changes(bridges: ["Aurora"], reconnectDelay: .milliseconds(10)) {
                Issue.record("a stream of an unknown bridge gave \(change)")
            }
            Issue.record("the stream ended without an error")
        } catch BridgetClientError.status(let code, _) {
            #expect(code == 400)
        }
        #expect(relay.connections == 1, "a refusal is final: it was asked \(relay.connections) times")
    }

    @Test("the change stream, dropped mid-way by the network, resumes with Last-Event-ID: every change once, in order")
    func streamResumes() async throws {
        let server = try Self.server()
        // The log as a poller reads it: what the stream must give, from the start.
        var request = URLRequest(url: server.appendingPathComponent("v1/stream"))
        request.url = URL(string: request.url!.absoluteString + "?after=0&limit=1000")
        let (data, _) = try await URLSession.shared.data(for: request)
        struct Page: Decodable {
            let changes: [Change]
            struct Change: Decodable { let sequence: Int }
        }
        let expected = try JSONDecoder().decode(Page.self, from: data).changes.map { Int64($0.sequence) }
        try #require(expected.count >= 4, "the server's store should hold several changes; it holds \(expected.count)")

        // The first connection is cut after 1,500 bytes: the stream's greeting and a few changes, then part of one.
        let relay = try Relay(upstreamPort: UInt16(server.port ?? 80), cutFirstAfter: 1_500)
        let bridget = BridgetAPI(serverURL: URL(string: "http://127.0.0.1:\(relay.port)")!)
        // A stream that never resumes would wait for ever: two minutes is a hang detector.
        let (received, names) = try await withThrowingTaskGroup(of: ([Int64], [String])?.self) { group in
            group.addTask {
                var received: [Int64] = []
                var names: [String] = []
                for try await change in bridget.changes(after: 0, reconnectDelay: .milliseconds(100)) {
                    if let sequence = change.sequence { received.append(sequence) }
                    if case .opening(let opening) = change { names.append(opening.bridgeName) }
                    if received.count >= expected.count { break }
                }
                return (received, names)
            }
            group.addTask {
                try await Task.sleep(for: .seconds(120))
                return nil
            }
            let first = try await group.next() ?? nil
            group.cancelAll()
            return first ?? ([], [])
        }
        #expect(received == expected, "received \(received), the log holds \(expected)")
        #expect(relay.connections >= 2, "the stream should have been opened again after the drop")
        #expect(names.allSatisfy { !$0.isEmpty && Int($0) == nil }, "changes carry their bridge's name: \(names)")
    }
}
