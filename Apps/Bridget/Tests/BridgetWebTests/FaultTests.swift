import BridgetApp
import BridgetWeb
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// Errors keep their meaning over HTTP (the one error table): a store that cannot answer is a 503 with
/// `Retry-After` on every endpoint, its facts (paths, hosts) in the log and not in the answer.
@Suite("faults, in process")
struct FaultTests {
    /// Every data endpoint, and the pages.
    static let paths = ["/v1/bridges", "/v1/bridges/3", "/v1/bridges/3/events", "/v1/bridges/3/forecast?at=17:40",
                        "/v1/stats", "/v1/stats/heatmap", "/v1/status", "/readyz"]
    static let pages = ["/", "/bridges/3", "/quality"]

    @Test("a store file damaged under the server: 503 with Retry-After everywhere, no path in the answer, the page too")
    func damagedStore() async throws {
        let fixture = try await WebFixture.make(days: 7)
        defer { fixture.remove() }
        let path = fixture.folder + "/store.sqlite"
        try Data(repeating: 0x41, count: 65_536).write(to: URL(fileURLWithPath: path))
        for side in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + side) }
        try await fixture.withClient { client in
            for path in Self.paths {
                let response = try await client.execute(uri: path, method: .get)
                let problem = try ProblemBody(response)
                #expect(response.status == .serviceUnavailable && response.header("Retry-After") != nil,
                        "\(path): \(response.status) \(response.text)")
                #expect(!response.text.contains(fixture.folder), "\(path) names the store's path: \(response.text)")
                #expect(problem.type.hasSuffix("/store-unavailable"), "\(path): \(problem.type)")
            }
            for page in Self.pages {
                let response = try await client.execute(uri: page, method: .get)
                #expect(response.status == .serviceUnavailable && response.header("Retry-After") != nil
                        && response.header("Content-Type")?.hasPrefix("text/html") == true, "\(page): \(response.status)")
                #expect(!response.text.contains(fixture.folder) && response.text.contains("The store is not available"))
            }
        }
    }

    @Test("PostgreSQL gone (its connections reset, new ones refused): data endpoints answer 503 with Retry-After; back, 200")
    func postgresGone() async throws {
        let environment = ProcessInfo.processInfo.environment
        guard let url = environment["TEST_POSTGRES_URL"], let password = environment["TEST_POSTGRES_PASSWORD"],
              let parsed = URLComponents(string: url), let port = parsed.port
        else {
            Issue.record("no PostgreSQL server: TEST_POSTGRES_URL and _PASSWORD are unset (Scripts/test starts one)")
            return
        }
        let relay = try TCPRelay(upstreamPort: UInt16(port))
        defer { relay.cut() }
        var relayed = parsed
        relayed.host = "127.0.0.1"
        relayed.port = Int(relay.port)
        let schema = "web_" + String(UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(16))
        let fixture = try await WebFixture.make(
            days: 7, environment: ["WEB_TEST_PG_PASSWORD": password],
            storeYAML: """
                store:
                  kind: postgres
                  postgres:
                    url: \(relayed.string ?? url)
                    password_env: WEB_TEST_PG_PASSWORD
                    sslmode: disable
                    schema: \(schema)
                    connect_timeout_seconds: 2
                """)
        defer { fixture.remove() }
        try await fixture.withClient { client in
            #expect(try await client.execute(uri: "/v1/stats", method: .get).status == .ok)
            relay.cut()
            for path in Self.paths where path != "/v1/stats" {
                let response = try await client.execute(uri: path, method: .get)
                #expect(response.status == .serviceUnavailable && response.header("Retry-After") != nil,
                        "\(path): \(response.status) \(response.text)")
                #expect(!response.text.contains(String(relay.port)), "\(path) names the database's address")
            }
            try relay.resume()
            var recovered = false
            let until = ContinuousClock.now + .seconds(120) // a hang detector, not a timing
            while !recovered, ContinuousClock.now < until {
                recovered = try await client.execute(uri: "/readyz", method: .get).status == .ok
                if !recovered { try await Task.sleep(for: .milliseconds(100)) }
            }
            #expect(recovered, "the store did not come back after PostgreSQL did")
            #expect(try await client.execute(uri: "/v1/bridges/3/events", method: .get).status == .ok)
        }
    }
}
