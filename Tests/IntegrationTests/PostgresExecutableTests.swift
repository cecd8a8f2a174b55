import BridgetPersistence
import BridgetPostgres
import BridgetTestSupport
import Foundation
import Testing

/// `store.kind: postgres` through the `bridget` executable, against the throwaway server Scripts/test starts
/// (Scripts/test.d/postgres). Without one, each test fails saying so.
@Suite("store.kind postgres, through the executable")
struct PostgresExecutableTests {
    struct NoServer: Error, CustomStringConvertible {
        var description: String {
            "no PostgreSQL server for the tests (TEST_POSTGRES_URL / _PASSWORD / _BIN unset): run Scripts/test, "
                + "or `source \"$(Scripts/test.d/postgres start /tmp/bridget-pg)\"` first"
        }
    }

    /// The test server: its URL, the role's password, and the folder of psql.
    static func server() throws -> (url: String, password: String, bin: String) {
        let environment = ProcessInfo.processInfo.environment
        guard let url = environment["TEST_POSTGRES_URL"], let password = environment["TEST_POSTGRES_PASSWORD"],
              let bin = environment["TEST_POSTGRES_BIN"]
        else { throw NoServer() }
        return (url, password, bin)
    }

    static func freshSchema() -> String {
        "it_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(16)
    }

    /// Runs SQL with psql as the test role; returns its unaligned output.
    @discardableResult
    static func psql(_ sql: String) async throws -> String {
        let (url, password, bin) = try server()
        let bridget = BridgetProcess()
        let result = try await bridget.run(["-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", url, "-c", sql],
                                     environment: ["PGPASSWORD": password], executable: bin + "/psql")
        guard result.status == 0 else { throw ProcessFailure(message: "psql: \(result.stderr)") }
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    struct ProcessFailure: Error { let message: String }

    /// A sample-provider config (the same data `sampleConfig` gives) over a PostgreSQL schema of its own.
    static func config(_ bridget: BridgetProcess, schema: String, days: Int = 30) throws -> String {
        let (url, _, _) = try server()
        return try bridget.write("postgres.yaml", """
            \(TestConfig.sampleProvider(days: days))
            \(storeYAML(url: url, schema: schema))
            """)
    }

    /// The `store:` section of the test server's PostgreSQL store in `schema`.
    static func storeYAML(url: String, schema: String) -> String {
        """
        store:
          kind: postgres
          postgres:
            url: \(url)
            sslmode: disable
            schema: \(schema)
            connect_timeout_seconds: 30  # generous: the suite shares two cores with Chromium and servers
        """
    }

    /// An answer without its `generatedAt` line.
    static func timeless(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.contains("\"generatedAt\"") }
            .joined(separator: "\n")
    }

    static func environment() throws -> [String: String] { ["PGPASSWORD": try server().password] }

    @Test("after the same sync, every read answers exactly as it does from SQLite")
    func sameAnswersAsSQLite() async throws {
        let bridget = BridgetProcess()
        let sqlite = try bridget.sampleConfig(days: 30)
        let postgres = try Self.config(bridget, schema: Self.freshSchema())
        let environment = try Self.environment()
        struct Sync: Decodable { let fetched: Int; let inserted: Int; let rejected: Int }
        var syncs: [Sync] = []
        for config in [sqlite, postgres] {
            let result = try await bridget.run(["sync", "--config", config, "--format", "json"], environment: environment)
            #expect(result.status == 0, "\(result.stderr)")
            syncs.append(try decodeJSON(Sync.self, result.stdout))
        }
        #expect(syncs[0].inserted > 1000)
        #expect(syncs[0].fetched == syncs[1].fetched && syncs[0].inserted == syncs[1].inserted
            && syncs[0].rejected == syncs[1].rejected)
        for command in [["events", "--format", "json", "--limit", "300"], ["events", "--bridge", "3", "--format", "csv"],
                        ["stats", "--format", "json"], ["bridges", "--format", "json"], ["stats", "--heatmap", "--bridge", "3"],
                        ["export", "--format", "csv"], ["patterns", "--bridge", "3", "--format", "json"], ["anomalies", "--limit", "0", "--format", "json"]]
        {
            var answers: [ProcessResult] = []
            for config in [sqlite, postgres] {
                answers.append(try await bridget.run(command + ["--config", config], environment: environment))
            }
            #expect(answers[0].status == 0 && answers[1].status == 0, "\(command): \(answers[1].stderr)")
            #expect(!answers[0].stdout.isEmpty)
            // The moment each answer was made (`generatedAt`) is the one line that may differ.
            let (fromSQLite, fromPostgres) = (Self.timeless(answers[0].stdout), Self.timeless(answers[1].stdout))
            #expect(fromSQLite == fromPostgres, "\(command) answers differently from PostgreSQL")
        }
        // A second sync changes nothing; the models build and save there.
        let again = try await bridget.run(["sync", "--config", postgres, "--format", "json"], environment: environment)
        #expect(try decodeJSON(Sync.self, again.stdout).inserted == 0)
        let rebuild = try await bridget.run(["model", "rebuild", "--config", postgres], environment: environment)
        #expect(rebuild.status == 0, "\(rebuild.stderr)")
        let doctor = try await bridget.run(["doctor", "--config", postgres], environment: environment)
        #expect(doctor.status == 0, "\(doctor.stderr)")
    }

    @Test("a URL holding a password is refused by key and place, and the password is not repeated")
    func passwordInURL() async throws {
        let bridget = BridgetProcess()
        let config = try Self.config(bridget, schema: Self.freshSchema())
        let result = try await bridget.run(["bridges", "--config", config], environment: [
            "BRIDGET_STORE_POSTGRES_URL": "postgres://bridget:hunter2secret@127.0.0.1:5432/bridget",
        ])
        #expect(result.status == 78)
        #expect(result.stderr.contains("store.postgres.url ($BRIDGET_STORE_POSTGRES_URL)"), "\(result.stderr)")
        #expect(!result.stderr.contains("hunter2secret") && !result.stdout.contains("hunter2secret"))
        // Nor does `config show` (table or JSON) repeat it.
        for format in ["table", "json"] {
            let shown = try await bridget.run(["config", "show", "--config", config, "--format", format], environment: [
                "BRIDGET_STORE_POSTGRES_URL": "postgres://bridget:hunter2secret@127.0.0.1:5432/bridget",
            ])
            #expect(shown.status == 0, "\(shown.stderr)")
            #expect(shown.stdout.contains("postgres://bridget:***@127.0.0.1:5432/bridget"), "\(shown.stdout)")
            #expect(!shown.stdout.contains("hunter2secret") && !shown.stderr.contains("hunter2secret"))
        }
    }

    @Test("a refused connection is exit 69, with the address")
    func refused() async throws {
        let bridget = BridgetProcess()
        let config = try Self.config(bridget, schema: Self.freshSchema())
        let result = try await bridget.run(["bridges", "--config", config], environment: [
            "BRIDGET_STORE_POSTGRES_URL": "postgres://bridget@127.0.0.1:1/bridget",
        ])
        #expect(result.status == 69)
        #expect(result.stderr.contains("127.0.0.1:1") && result.stderr.contains("refused"), "\(result.stderr)")
    }

    @Test("a wrong password is exit 78, naming the variable but never the password")
    func wrongPassword() async throws {
        let bridget = BridgetProcess()
        let config = try Self.config(bridget, schema: Self.freshSchema())
        let secret = "wrong-\(UUID().uuidString)"
        let result = try await bridget.run(["sync", "--config", config], environment: ["PGPASSWORD": secret])
        #expect(result.status == 78)
        #expect(result.stderr.contains("refused role bridget") && result.stderr.contains("password_env"), "\(result.stderr)")
        #expect(!result.stderr.contains(secret) && !result.stdout.contains(secret))
    }

    @Test("a schema of another application is exit 78 and left as it was")
    func foreignSchema() async throws {
        let bridget = BridgetProcess()
        let schema = Self.freshSchema()
        try await Self.psql("CREATE SCHEMA \(schema); CREATE TABLE \(schema).invoices (id int); INSERT INTO \(schema).invoices VALUES (1)")
        let config = try Self.config(bridget, schema: schema)
        let result = try await bridget.run(["sync", "--config", config], environment: try Self.environment())
        #expect(result.status == 78)
        #expect(result.stderr.contains("invoices") && result.stderr.contains("store.postgres.schema"), "\(result.stderr)")
        await #expect(try Self.psql("SELECT count(*) FROM \(schema).invoices") == "1")
        await #expect(try Self.psql("SELECT count(*) FROM information_schema.tables WHERE table_schema = '\(schema)'") == "1")
    }

    @Test("store.kind postgres without a URL is exit 78, saying what to set")
    func noURL() async throws {
        let bridget = BridgetProcess()
        let config = try bridget.write("bare.yaml", "store:\n  kind: postgres\n")
        let result = try await bridget.run(["bridges", "--config", config])
        #expect(result.status == 78)
        #expect(result.stderr.contains("store.postgres.url is not set"), "\(result.stderr)")
    }

    @Test("a sync while another host holds the sync lock is exit 75, naming that host; nothing is written")
    func syncWhileAnotherRuns() async throws {
        let bridget = BridgetProcess()
        let schema = Self.freshSchema()
        let config = try Self.config(bridget, schema: schema)
        let (url, password, _) = try Self.server()
        let other = try await PostgresBridgeStore(settings: try PostgresStoreSettings(
            url: url, password: password, sslMode: .disable, schema: schema))
        let environment = try Self.environment()
        let result = try await other.withSyncLock(holder: "api-2.example pid 4121") {
            try await bridget.run(["sync", "--config", config], environment: environment)
        }
        #expect(result.status == 75)
        #expect(result.stderr.contains("another sync is running on api-2.example pid 4121"), "\(result.stderr)")
        #expect(try await other.eventCount(bridgeID: nil) == 0)
        let after = try await bridget.run(["sync", "--config", config], environment: try Self.environment())
        #expect(after.status == 0, "\(after.stderr)")
        #expect(try await other.eventCount(bridgeID: nil) > 1000)
        await #expect(try Self.psql("SELECT count(*) FROM \(schema).sync_runs WHERE host LIKE '% pid %'") == "1")
    }
}
