import Foundation
import Testing

/// Values that pass YAML's types but would fail later (a URL the client cannot use, a path SQLite cannot open), through
/// the executable: `config validate` refuses them with the key and the line, or the variable, exit 78.
@Suite("bridget executable: configuration values")
struct ConfigurationValueTests {
    /// Runs `config validate` on a file and `stats` with it; both must refuse it the same way.
    func expectRefused(_ yaml: String, _ fragments: [String], sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let bridget = BridgetProcess()
        let path = try bridget.write("bridget.yaml", yaml)
        for arguments in [["config", "validate", path], ["--config", path, "stats"]] {
            let result = try await bridget.run(arguments)
            #expect(result.status == 78, "\(arguments): \(result.stdout)\(result.stderr)", sourceLocation: sourceLocation)
            #expect(result.stdout.isEmpty, sourceLocation: sourceLocation)
            for fragment in fragments {
                #expect(result.stderr.contains(fragment), "'\(fragment)' in \(result.stderr)", sourceLocation: sourceLocation)
            }
        }
    }

    @Test("values that would fail later are refused by config validate, with the key and the line", arguments: [
        ("provider:\n  live:\n    base_url: ftp://data.seattle.gov\n",
         ["bridget.yaml:3", "provider.live.base_url", "'ftp://data.seattle.gov'", "http"]),
        ("provider:\n  live:\n    base_url: \"\"\n", ["bridget.yaml:3", "provider.live.base_url", "got ''"]),
        ("provider:\n  live:\n    base_url: http://[::1\n", ["bridget.yaml:3", "provider.live.base_url", "'http://[::1'"]),
        ("provider:\n  live:\n    base_url: https://\n", ["bridget.yaml:3", "provider.live.base_url"]),
        ("provider:\n  live:\n    dataset: GM8H-9449\n", ["bridget.yaml:3", "provider.live.dataset", "'GM8H-9449'", "gm8h-9449"]),
        ("provider:\n  live:\n    dataset: gm8h-94491\n", ["bridget.yaml:3", "provider.live.dataset", "'gm8h-94491'"]),
        ("provider:\n  live:\n    dataset: gm8h/9449\n", ["bridget.yaml:3", "provider.live.dataset"]),
        ("store:\n  kind: sqlite\n  path: \"/tmp/a\\0b.sqlite\"\n", ["bridget.yaml:3", "store.path", "NUL", "'/tmp/a\\0b.sqlite'"]),
        ("cache:\n  path: \"/tmp/\\0\"\n", ["bridget.yaml:2", "cache.path", "NUL"]),
    ])
    func valuesThatFailLater(_ yaml: String, _ fragments: [String]) async throws {
        try await expectRefused(yaml, fragments)
    }

    @Test("the same values from BRIDGET_* variables are refused, naming the variable", arguments: [
        ("BRIDGET_PROVIDER_LIVE_BASE_URL", "ftp://data.seattle.gov"),
        ("BRIDGET_PROVIDER_LIVE_BASE_URL", ""),
        ("BRIDGET_PROVIDER_LIVE_BASE_URL", "http://[::1"),
        ("BRIDGET_PROVIDER_LIVE_DATASET", "gm8h_9449"),
        ("BRIDGET_PROVIDER_LIVE_DATASET", "gm8h-9449\n"),
    ])
    func environmentValuesThatFailLater(_ variable: String, _ value: String) async throws {
        let bridget = BridgetProcess()
        for arguments in [["config", "validate"], ["stats"]] {
            let result = try await bridget.run(arguments, environment: [variable: value])
            #expect(result.status == 78, "\(arguments): \(result.stdout)\(result.stderr)")
            #expect(result.stderr.contains("$\(variable)"), "\(result.stderr)")
        }
    }

    @Test("good values of the checked keys still pass")
    func goodValuesPass() async throws {
        let bridget = BridgetProcess()
        let path = try bridget.write("bridget.yaml", """
            provider:
              live:
                base_url: http://127.0.0.1:8080/
                dataset: abcd-1234
            store:
              path: ~/bridget data/é.sqlite
            """)
        let result = try await bridget.run(["config", "validate", path])
        #expect(result.status == 0, "\(result.stderr)")
        let overridden = try await bridget.run(["config", "validate", path], environment: [
            "BRIDGET_PROVIDER_LIVE_BASE_URL": "https://data.seattle.gov", "BRIDGET_PROVIDER_LIVE_DATASET": "gm8h-9449",
        ])
        #expect(overridden.status == 0, "\(overridden.stderr)")
    }
}
