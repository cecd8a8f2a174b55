import BridgetContext
import BridgetDTOs
import BridgetPersistence
import BridgetSQLite
import BridgetTestSupport
import BridgetWeb
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
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
        let relay = try PostgresUnderTest.relay()
        defer { relay.cut() }
        // The deadline `bridget serve` has by default (the fixture's is a hang detector): without it a request waits
        // in the pool until the pool gives up, which is a minute of failed connections.
        let fixture = try await WebFixture.make(
            days: 7, environment: PostgresUnderTest.environment.merging(
                ["BRIDGET_SERVE_STORE_TIMEOUT_SECONDS": String(Int(TestTime.seconds(3)))]) { $1 },
            storeYAML: PostgresUnderTest.storeYAML(through: relay))
        defer { fixture.remove() }
        try await fixture.withClient { client in
            #expect(try await client.execute(uri: "/v1/stats", method: .get).status == .ok)
            relay.cut()
            try await Self.expectUnavailable(Self.paths.filter { $0 != "/v1/stats" }, client, naming: String(relay.port))
            try relay.resume()
            var recovered = false
            let until = ContinuousClock.now + TestTime.duration(.seconds(120)) // a hang detector, not a timing
            while !recovered, ContinuousClock.now < until {
                recovered = try await client.execute(uri: "/readyz", method: .get).status == .ok
                if !recovered { try await Task.sleep(for: .milliseconds(100)) }
            }
            #expect(recovered, "the store did not come back after PostgreSQL did")
            #expect(try await client.execute(uri: "/v1/bridges/3/events", method: .get).status == .ok)
        }
    }

    @Test("PostgreSQL hanging (nothing answers, new connections wait): every endpoint is a 503 with Retry-After at the store deadline, not the connect timeout; then it recovers")
    func postgresHanging() async throws {
        let deadline = Int(TestTime.seconds(1))
        let relay = try PostgresUnderTest.relay()
        defer { relay.cut() }
        let fixture = try await WebFixture.make(
            days: 7, environment: PostgresUnderTest.environment.merging(["BRIDGET_SERVE_STORE_TIMEOUT_SECONDS": String(deadline)]) { $1 },
            storeYAML: PostgresUnderTest.storeYAML(through: relay, connectTimeout: 600))
        defer { fixture.remove() }
        let lines = LogLines()
        try await fixture.application(logger: Logger(label: "bridget.test") { _ in lines }).test(.router) { client in
            // The first answer computes the statistics within the short store deadline: a busy machine may need a
            // second try (each within the deadline), so the pool is connected before PostgreSQL stalls.
            #expect(try await Self.eventually { try await client.execute(uri: "/v1/stats", method: .get).status == .ok })
            relay.stall()
            try await Self.expectUnavailable(Self.paths + Self.pages, client, naming: String(relay.port))
            // The deadline answered them (a connect timeout of 600 s could not have), and the log says which call.
            let log = lines.all.joined(separator: "\n")
            #expect(log.contains(" within \(deadline) s"), "\(log)")
            relay.flow()
            #expect(try await Self.eventually { try await client.execute(uri: "/readyz", method: .get).status == .ok },
                    "the store did not come back after PostgreSQL did")
            #expect(try await client.execute(uri: "/v1/bridges/3/events", method: .get).status == .ok)
        }
    }

    @Test("the store file deleted under the server: readyz and every endpoint 503; a new sync's file is then served")
    func deletedAndSyncedAgain() async throws {
        let fixture = try await WebFixture.make(days: 7)
        defer { fixture.remove() }
        let path = fixture.folder + "/store.sqlite"
        try await fixture.withClient { client in
            let before = try await Self.openings(of: "3", client)
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
            #expect(try await Self.eventually { try await client.execute(uri: "/readyz", method: .get).status != .ok },
                    "readyz still says ready with the file deleted")
            try await Self.expectUnavailable(Self.paths, client, naming: fixture.folder)
            #expect(!FileManager.default.fileExists(atPath: path), "the server made an empty store in its place")

            // `bridget sync` makes the file again, from another source: the server serves it.
            let expected = try await Self.syncAnew(fixture, seed: 12, days: 3)
            #expect(expected != before)
            #expect(try await Self.eventually { try await Self.openings(of: "3", client) == expected },
                    "the new file's openings were not served")
            #expect(try await client.execute(uri: "/readyz", method: .get).status == .ok)
        }
    }

    @Test("the store file replaced by another whole file (old one removed, new one moved in): the new one is served, cached answers and ETags of the old one are not")
    func replacedByAnotherFile() async throws {
        let fixture = try await WebFixture.make(days: 7)
        defer { fixture.remove() }
        let path = fixture.folder + "/store.sqlite"
        let other = try await Self.closedStore(seed: 13, days: 2)
        defer { try? FileManager.default.removeItem(atPath: other.folder) }
        try await fixture.withClient { client in
            let first = try await client.execute(uri: "/v1/bridges/3/events?limit=1000", method: .get)
            let tag = try #require(first.header("ETag"))
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
            #expect(rename(other.path, path) == 0)
            #expect(try await Self.eventually { try await Self.openings(of: "3", client) == other.openings },
                    "the new file's openings were not served")
            let again = try await client.execute(uri: "/v1/bridges/3/events?limit=1000", method: .get,
                                                 headers: [.ifNoneMatch: tag])
            #expect(again.status == .ok && again.header("ETag") != tag, "the old file's ETag still matched")
        }
    }

    @Test("the store file cut short under the server: readyz and every endpoint 503, no path named; made whole, 200")
    func truncatedStore() async throws {
        let fixture = try await WebFixture.make(days: 7)
        defer { fixture.remove() }
        let path = fixture.folder + "/store.sqlite"
        // Everything in the main file, so cutting it cuts the history.
        _ = try await fixture.store.integrityCheck()
        let whole = try await Self.checkpointed(path, store: fixture.store)
        try await fixture.withClient { client in
            #expect(try await client.execute(uri: "/readyz", method: .get).status == .ok)
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
            try handle.truncate(atOffset: UInt64(whole.count / 2))
            try handle.close()
            #expect(try await Self.eventually { try await client.execute(uri: "/readyz", method: .get).status != .ok },
                    "readyz still says ready with the file cut short")
            try await Self.expectUnavailable(Self.paths, client, naming: fixture.folder)
            try whole.write(to: URL(fileURLWithPath: path))
            #expect(try await Self.eventually { try await client.execute(uri: "/readyz", method: .get).status == .ok })
        }
    }

    // MARK: Helpers

    /// Every one of `paths` answers 503 with `Retry-After`, and no answer names `secret` (a path, a port).
    static func expectUnavailable(_ paths: [String], _ client: any TestClientProtocol, naming secret: String) async throws {
        for path in paths {
            let response = try await client.execute(uri: path, method: .get)
            #expect(response.status == .serviceUnavailable && response.header("Retry-After") != nil,
                    "\(path): \(response.status) \(response.text)")
            #expect(!response.text.contains(secret), "\(path) names \(secret): \(response.text)")
        }
    }

    /// Whether `condition` holds within two minutes (a hang detector: it is asked again every 100 ms).
    static func eventually(_ condition: () async throws -> Bool) async throws -> Bool {
        let until = ContinuousClock.now + TestTime.duration(.seconds(120))
        while ContinuousClock.now < until {
            if try await condition() { return true }
            try await Task.sleep(for: .milliseconds(100))
        }
        return false
    }

    /// The opening times of a bridge the server lists (at most 1,000), or nil when it does not answer 200.
    static func openings(of bridge: String, _ client: any TestClientProtocol) async throws -> [String]? {
        struct Page: Decodable {
            struct Event: Decodable { let openedAt: String }
            let events: [Event]
        }
        let response = try await client.execute(uri: "/v1/bridges/\(bridge)/events?limit=1000", method: .get)
        guard response.status == .ok else { return nil }
        return try JSONDecoder().decode(Page.self, from: Data(response.body.readableBytesView)).events.map(\.openedAt)
    }

    /// Syncs the fixture's store path anew from the sample provider with another `seed`, as `bridget sync` would;
    /// the bridge 3 openings it stored, newest first (as the server lists them).
    static func syncAnew(_ fixture: WebFixture, seed: Int, days: Int) async throws -> [String] {
        let context = try AppContext.load(
            configPath: fixture.folder + "/bridget.yaml",
            environment: ["BRIDGET_PROVIDER_SAMPLE_SEED": String(seed), "BRIDGET_PROVIDER_SAMPLE_DAYS": String(days)],
            notes: { _ in })
        let store = try await context.assembly.makeStore()
        _ = try await context.assembly.makeSyncPipeline(store: store).run(full: true)
        let formatter = ISO8601DateFormatter()
        return try await store.events(matching: EventQuery(bridgeID: "3", newestFirst: true))
            .map { formatter.string(from: $0.openedAt) }
    }

    /// A store file written whole and closed (no log beside it) in a folder of its own, and its bridge 3 openings.
    static func closedStore(seed: Int, days: Int) async throws -> (folder: String, path: String, openings: [String]) {
        let fixture = try await WebFixture.make(days: days, environment: ["BRIDGET_PROVIDER_SAMPLE_SEED": String(seed)])
        let path = fixture.folder + "/store.sqlite"
        let formatter = ISO8601DateFormatter()
        let openings = try await fixture.store.events(matching: EventQuery(bridgeID: "3", newestFirst: true))
            .map { formatter.string(from: $0.openedAt) }
        let whole = try await checkpointed(path, store: fixture.store)
        let copy = NSTemporaryDirectory() + "bridget-web-copy-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: copy, withIntermediateDirectories: true)
        try whole.write(to: URL(fileURLWithPath: copy + "/store.sqlite"))
        fixture.remove()
        return (copy, copy + "/store.sqlite", openings)
    }

    /// The store file's bytes once its log is copied into it (so the file alone holds every row).
    static func checkpointed(_ path: String, store: any BridgeStore) async throws -> Data {
        let sqlite = try #require(store as? SQLiteBridgeStore)
        try await sqlite.checkpoint()
        return try Data(contentsOf: URL(fileURLWithPath: path))
    }
}

/// The test command's PostgreSQL, reached through a relay a test can cut or stall.
enum PostgresUnderTest {
    static var environment: [String: String] {
        ["WEB_TEST_PG_PASSWORD": ProcessInfo.processInfo.environment["TEST_POSTGRES_PASSWORD"] ?? ""]
    }

    /// A relay in front of the server; fails the test, saying why, when there is no server.
    static func relay() throws -> TCPRelay {
        let environment = ProcessInfo.processInfo.environment
        guard let url = environment["TEST_POSTGRES_URL"], environment["TEST_POSTGRES_PASSWORD"] != nil,
              let port = URLComponents(string: url)?.port
        else {
            throw PostgresMissing()
        }
        return try TCPRelay(upstreamPort: UInt16(port))
    }

    struct PostgresMissing: Error, CustomStringConvertible {
        var description: String { "no PostgreSQL server: TEST_POSTGRES_URL and _PASSWORD are unset (Scripts/test starts one)" }
    }

    /// A new schema's name, so tests share the server and nothing else.
    static func schema() -> String {
        "web_" + String(UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(16))
    }

    /// The store section for PostgreSQL through `relay` (or straight, without one), in `schema`.
    static func storeYAML(through relay: TCPRelay?, schema: String = schema(),
                          connectTimeout: Int = Int(TestTime.seconds(2))) -> String {
        let url = ProcessInfo.processInfo.environment["TEST_POSTGRES_URL"] ?? ""
        var components = URLComponents(string: url)
        if let relay {
            components?.host = "127.0.0.1"
            components?.port = Int(relay.port)
        }
        return """
            store:
              kind: postgres
              postgres:
                url: \(components?.string ?? url)
                password_env: WEB_TEST_PG_PASSWORD
                sslmode: disable
                schema: \(schema)
                connect_timeout_seconds: \(connectTimeout)
            """
    }
}
