import BridgetTestSupport
import Foundation
import SocrataFixtureServer
import Testing

/// A store knows whose openings it holds: the first sync or import records its source, and a sync or import of any
/// other source is refused before it writes (exit 78, `config.store-source`), with both named. Every ordered pair of
/// five sources, on SQLite files and on PostgreSQL schemas, through the built executable.
@Suite("a store knows its source", .serialized)
struct SourceIdentityTests {
    /// A source as a configuration's `provider:` section.
    struct Source: Sendable {
        let name: String
        /// The identity the store is expected to record (as `config show` prints it).
        let identity: String
        let yaml: String
    }

    static func sources(seattle rawSeattle: String, otherOrigin rawOther: String) -> [Source] {
        let snapshot = NDWExecutableTests.snapshot.path
        // An origin is recorded without a trailing slash, however it was written.
        let seattle = rawSeattle.hasSuffix("/") ? String(rawSeattle.dropLast()) : rawSeattle
        let otherOrigin = rawOther.hasSuffix("/") ? String(rawOther.dropLast()) : rawOther
        return [
            Source(name: "sample seed 1", identity: "sample seed 1, rate scale 1", yaml: """
                provider: {kind: sample, sample: {seed: 1, days: 8, end_date: 2026-06-30}}
                """),
            Source(name: "sample seed 2", identity: "sample seed 2, rate scale 1", yaml: """
                provider: {kind: sample, sample: {seed: 2, days: 8, end_date: 2026-06-30}}
                """),
            Source(name: "socrata", identity: "socrata dataset gm8h-9449 at \(seattle)", yaml: """
                provider: {kind: live, live: {base_url: "\(seattle)/", page_size: 1000, state_url: null}}
                """),
            Source(name: "socrata elsewhere", identity: "socrata dataset gm8h-9449 at \(otherOrigin)", yaml: """
                provider: {kind: live, live: {base_url: "\(otherOrigin)", page_size: 1000, state_url: null}}
                """),
            Source(name: "ndw", identity: "ndw file \(snapshot)", yaml: """
                provider: {kind: ndw, ndw: {source: "\(snapshot)"}}
                """),
        ]
    }

    @Test("SQLite: each source's store refuses every other source's sync and import, and keeps every row")
    func sqlite() async throws {
        try await checkPairs { bridget, index in "store: {path: \(bridget.home)/store-\(index).sqlite}" }
    }

    @Test("PostgreSQL: each source's schema refuses every other source's sync and import, and keeps every row")
    func postgres() async throws {
        let (url, _, _) = try PostgresExecutableTests.server()
        let environment = try PostgresExecutableTests.environment()
        let prefix = PostgresExecutableTests.freshSchema()
        try await checkPairs(environment: environment) { _, index in
            PostgresExecutableTests.storeYAML(url: url, schema: "\(prefix)_\(index)")
        }
    }

    func checkPairs(environment: [String: String] = [:],
                    store: (BridgetProcess, Int) -> String) async throws {
        let seattle = try SocrataFixtureServer(dataset: .generate(rows: 600, seed: 3))
        let elsewhere = try SocrataFixtureServer(dataset: .generate(rows: 600, seed: 4))
        let seattleURL = try await seattle.start().absoluteString
        let elsewhereURL = try await elsewhere.start().absoluteString
        defer { Task { await seattle.stop(); await elsewhere.stop() } }
        let sources = Self.sources(seattle: seattleURL, otherOrigin: elsewhereURL)
        let bridget = BridgetProcess()
        let rows = try bridget.write("rows.ndjson", """
            {"entitytype":"Bridge","entityname":"Fremont","entityid":"3","opendatetime":"2026-06-01T10:00:00.000",\
            "closedatetime":"2026-06-01T10:07:00.000","minutesopen":"7"}

            """)
        for (index, first) in sources.enumerated() {
            let storeYAML = store(bridget, index)
            func config(_ source: Source) throws -> String {
                try bridget.write("store-\(index)-\(source.name.replacingOccurrences(of: " ", with: "-")).yaml", """
                    \(source.yaml)
                    \(storeYAML)
                    cache: {path: \(bridget.home)/cache-\(index)}
                    """)
            }
            let synced = try await bridget.run(["sync", "--config", try config(first)], environment: environment)
            try #require(synced.status == 0, "\(first.name): \(synced.stderr)")
            let shown = try await bridget.run(["config", "show", "--config", try config(first)], environment: environment)
            #expect(shown.stdout.contains("Store holds: \(first.identity)"), "\(first.name): \(shown.stdout.suffix(400))")
            let before = try await bridget.run(["stats", "--format", "json", "--config", try config(first)],
                                               environment: environment)
            #expect(before.stdout.contains("\"source\" : \"\(first.identity)\""), "\(before.stdout.prefix(300))")
            for second in sources where second.name != first.name {
                let other = try config(second)
                let sync = try await bridget.run(["sync", "--config", other], environment: environment)
                #expect(sync.status == 78, "\(first.name) then \(second.name): \(sync.status) \(sync.stderr)")
                #expect(sync.stderr.contains("holds the openings of \(first.identity)")
                        && sync.stderr.contains("this configuration reads \(second.identity)")
                        && sync.stderr.contains("store.path"), "\(sync.stderr)")
                let imported = try await bridget.run(["import", rows, "--config", other], environment: environment)
                #expect(imported.status == 78, "\(first.name) then an import as \(second.name): \(imported.stderr)")
                let doctor = try await bridget.run(["doctor", "--config", other], environment: environment)
                #expect(doctor.stdout.contains("holds \(first.identity), but this configuration reads"),
                        "\(doctor.stdout)")
            }
            let after = try await bridget.run(["stats", "--format", "json", "--config", try config(first)],
                                              environment: environment)
            #expect(PostgresExecutableTests.timeless(after.stdout) == PostgresExecutableTests.timeless(before.stdout),
                    "\(first.name): the refused syncs and imports changed the store")
            let again = try await bridget.run(["sync", "--config", try config(first)], environment: environment)
            #expect(again.status == 0, "the store's own source still syncs: \(again.stderr)")
        }
    }

    @Test("the README's path: the sample's default store refuses a live sync; the live example has a store of its own")
    func readmePath() async throws {
        let bridget = BridgetProcess()
        let server = try SocrataFixtureServer(dataset: .generate(rows: 300, seed: 5))
        let url = try await server.start().absoluteString
        defer { Task { await server.stop() } }
        let sample = try await bridget.run(["sync"], environment: ["BRIDGET_PROVIDER_SAMPLE_DAYS": "5"])
        try #require(sample.status == 0, "\(sample.stderr)")
        let live = try await bridget.run(["sync"], environment: [
            "BRIDGET_PROVIDER_KIND": "live", "BRIDGET_PROVIDER_LIVE_BASE_URL": url,
            "BRIDGET_PROVIDER_LIVE_STATE_URL": "null",
        ])
        #expect(live.status == 78, "\(live.stderr)")
        #expect(live.stderr.contains("holds the openings of sample seed"), "\(live.stderr)")
        #expect(server.requests.isEmpty, "refused before any request")
        let example = repositoryRoot.appendingPathComponent("Config/examples/live.yaml").path
        let defaults = try await bridget.run(["config", "show", "--format", "json"])
        let liveShown = try await bridget.run(["config", "show", "--format", "json", "--config", example])
        func storePath(_ json: String) -> String? {
            (try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])?["storePath"] as? String
        }
        let defaultStore = try #require(storePath(defaults.stdout))
        let liveStore = try #require(storePath(liveShown.stdout), "\(liveShown.stderr)")
        #expect(defaultStore != liveStore)
    }
}
