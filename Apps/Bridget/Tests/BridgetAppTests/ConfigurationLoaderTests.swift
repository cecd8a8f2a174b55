import BridgetCore
import BridgetDTOs
import Foundation
import Testing

/// The repository's root folder, found from this file's path.
let repositoryRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()

@Suite("Configuration loading")
struct ConfigurationLoaderTests {
    let loader = ConfigurationLoader(environment: ["HOME": "/home/test"])

    func problem(_ yaml: String, environment: [String: String] = [:]) -> BridgetError? {
        do {
            _ = try ConfigurationLoader(environment: environment).resolve(yaml: yaml, origin: "test.yaml")
            return nil
        } catch {
            return error as? BridgetError
        }
    }

    @Test("the embedded default is Config/bridget.yaml, byte for byte")
    func embeddedDefaultMatchesFile() throws {
        let file = try String(contentsOf: repositoryRoot.appendingPathComponent("Config/bridget.yaml"), encoding: .utf8)
        #expect(file == DefaultConfiguration.yaml)
    }

    @Test("the default file states exactly the schema's defaults")
    func defaultFileMatchesSchemaDefaults() throws {
        let resolved = try loader.resolve(yaml: DefaultConfiguration.yaml, origin: "default")
        for key in ConfigSchema.bridget.keys {
            #expect(resolved.value(key.path) == key.defaultValue, "\(key.path)")
            guard case .file = resolved.values[key.path]?.source else {
                Issue.record("\(key.path) is not written in Config/bridget.yaml")
                continue
            }
        }
    }

    @Test("every shipped config validates", arguments: [
        ("Config/bridget.yaml", ProviderKind.sample), ("Config/examples/offline.yaml", .sample),
        ("Config/examples/in-memory.yaml", .sample), ("Config/examples/live.yaml", .live),
        ("Config/examples/cached.yaml", .cached), ("Config/examples/ndw.yaml", .ndw),
        ("Config/examples/ndw-snapshot.yaml", .ndw), ("Config/examples/serve-live.yaml", .live),
    ])
    func shippedConfigsValidate(_ path: String, _ kind: ProviderKind) throws {
        let configuration = try loader.load(explicitPath: repositoryRoot.appendingPathComponent(path).path)
        #expect(configuration.provider == kind)
        // Configurations only: Config/examples/data holds data files for them.
        let examples = try FileManager.default.contentsOfDirectory(
            atPath: repositoryRoot.appendingPathComponent("Config/examples").path).filter { $0.hasSuffix(".yaml") }
        #expect(examples.count == 7, "a new example needs a line in this test")
    }

    @Test("an unknown key names its path and line and suggests the right one")
    func unknownKey() throws {
        let error = try #require(problem("provider:\n  kind: sample\n  sample:\n    sede: 4\n"))
        #expect(error.exitCode == 78)
        #expect(error.message.contains("test.yaml:4: unknown key 'provider.sample.sede'"))
        #expect(error.message.contains("did you mean 'seed'?"))
    }

    @Test func wrongType() throws {
        let error = try #require(problem("sync:\n  batch_size: lots\n"))
        #expect(error.message.contains("test.yaml:2: 'sync.batch_size' has the wrong type"))
        #expect(error.message.contains("expected an integer"))
        let mapping = try #require(problem("store:\n  path:\n    nested: true\n"))
        #expect(mapping.message.contains("test.yaml:3: 'store.path' has the wrong type"))
        let range = try #require(problem("provider:\n  sample:\n    invalid_rate: 2\n"))
        #expect(range.message.contains("test.yaml:3:") && range.message.contains("from 0.0 to 1.0"))
    }

    @Test("an unknown kind lists the valid ones")
    func unknownKind() throws {
        let error = try #require(problem("# comment\nprovider:\n  kind: nonsense\n"))
        #expect(error.message.contains("test.yaml:3: unknown provider 'nonsense' at 'provider.kind'; valid: sample"))
        let store = try #require(problem("store:\n  kind: mysql\n"))
        #expect(store.message.contains("valid: sqlite, memory, postgres"))
    }

    @Test("every problem is reported at once")
    func severalProblems() throws {
        let error = try #require(problem("provder:\n  kind: sample\nsync:\n  batch_size: -1\n"))
        #expect(error.message.contains("test.yaml:1: unknown key 'provder'"))
        #expect(error.message.contains("did you mean 'provider'?"))
        #expect(error.message.contains("test.yaml:4: 'sync.batch_size'"))
    }

    @Test func malformedYAML() throws {
        let error = try #require(problem("provider:\n  kind: [sample\n"))
        #expect(error.code == "config.malformed-yaml")
        #expect(error.message.contains("line"))
        let notMapping = try #require(problem("- just\n- a list\n"))
        #expect(notMapping.message.contains("the top level must be a mapping"))
    }

    @Test("environment overrides win over the file and are checked the same way")
    func environmentOverrides() throws {
        let environment = ["BRIDGET_SYNC_BATCH_SIZE": "250", "BRIDGET_STORE_PATH": "/tmp/x.sqlite",
                           "BRIDGET_PROVIDER_SAMPLE_END_DATE": "2026-01-31"]
        let resolved = try ConfigurationLoader(environment: environment).resolve(yaml: "sync:\n  batch_size: 10\n",
                                                                                 origin: "test.yaml")
        #expect(resolved.integer("sync.batch_size") == 250)
        #expect(resolved.values["sync.batch_size"]?.source == .environment("BRIDGET_SYNC_BATCH_SIZE"))
        let configuration = BridgetConfiguration(resolved, environment: environment)
        #expect(configuration.storePath == "/tmp/x.sqlite")
        #expect(configuration.sample.endDate?.description == "2026-01-31")

        let bad = try #require(problem("", environment: ["BRIDGET_SYNC_BATCH_SIZE": "abc"]))
        #expect(bad.message.contains("$BRIDGET_SYNC_BATCH_SIZE (sync.batch_size): expected an integer"))
        let typo = try #require(problem("", environment: ["BRIDGET_STORE_PAHT": "/x"]))
        #expect(typo.message.contains("did you mean BRIDGET_STORE_PATH?"))
    }

    @Test("the store defaults to the XDG data folder")
    func storePathDefaults() {
        #expect(BridgetConfiguration.resolveStorePath(nil, environment: ["HOME": "/home/a"])
                == "/home/a/.local/share/bridget/bridget.sqlite")
        #expect(BridgetConfiguration.resolveStorePath(nil, environment: ["HOME": "/home/a", "XDG_DATA_HOME": "/data"])
                == "/data/bridget/bridget.sqlite")
        #expect(BridgetConfiguration.resolveStorePath("~/b.sqlite", environment: ["HOME": "/home/a"])
                == "/home/a/b.sqlite")
    }

    @Test func missingFileIsAConfigurationError() {
        #expect {
            _ = try loader.load(explicitPath: "/nonexistent/bridget.yaml")
        } throws: { error in
            (error as? BridgetError)?.exitCode == 78
        }
    }

    @Test func suggestions() {
        #expect(suggestion(for: "sede", among: ["seed", "days"]) == "seed")
        #expect(suggestion(for: "zzzzzz", among: ["seed", "days"]) == nil)
        #expect(editDistance("kitten", "sitting") == 3)
    }
}

@Suite("Configuration: serve and refresh")
struct ServeAndRefreshConfigurationTests {
    func load(_ yaml: String, environment: [String: String] = [:]) throws -> BridgetConfiguration {
        let loader = ConfigurationLoader(environment: environment)
        return BridgetConfiguration(try loader.resolve(yaml: yaml, origin: "test.yaml"), environment: environment)
    }

    func problem(_ yaml: String, environment: [String: String] = [:]) -> String? {
        do {
            _ = try load(yaml, environment: environment)
            return nil
        } catch {
            return (error as? BridgetError)?.message
        }
    }

    @Test("refresh.times is a YAML list (or a variable's commas) of HH:MM, kept sorted; every replaces it")
    func times() throws {
        let listed = try load("refresh:\n  times: [\"17:30\", \"5:30\", \"17:30\"]\n")
        #expect(listed.refresh.times == ["05:30", "17:30"] && listed.refresh.everyMinutes == nil)
        let block = try load("refresh:\n  times:\n    - \"06:00\"\n")
        #expect(block.refresh.times == ["06:00"])
        let variable = try load("", environment: ["BRIDGET_REFRESH_TIMES": "07:15, 19:45"])
        #expect(variable.refresh.times == ["07:15", "19:45"])
        let every = try load("refresh:\n  every: 2h\n", environment: [:])
        #expect(every.refresh.everyMinutes == 120)
        #expect(try load("", environment: ["BRIDGET_REFRESH_EVERY": "30m"]).refresh.everyMinutes == 30)
        let schedule = RefreshSchedule(every.refresh, clock: .seattle)
        #expect(schedule.rule == .every(7_200))
    }

    @Test("serve.cors: origins as a list or a variable's commas, lowercased without default ports; * for reads only")
    func crossOrigins() throws {
        let standard = try load("")
        #expect(standard.serve.crossOrigin.readers == nil && standard.serve.crossOrigin.writers.isEmpty
                && standard.serve.crossOrigin.maxAge == 600)
        let listed = try load("serve:\n  cors:\n    allowed_origins: [\"HTTPS://App.Example:443\", \"http://localhost:3000\"]\n"
                              + "    write_origins: [\"https://app.example\"]\n")
        #expect(listed.serve.crossOrigin.readers == ["https://app.example", "http://localhost:3000"])
        #expect(listed.serve.crossOrigin.mayWrite("https://app.example") && !listed.serve.crossOrigin.mayRead("https://x.example"))
        let none = try load("serve:\n  cors:\n    allowed_origins: []\n")
        #expect(none.serve.crossOrigin.readers == [])
        let variable = try load("", environment: ["BRIDGET_SERVE_CORS_WRITE_ORIGINS": "https://a.example, https://b.example"])
        #expect(variable.serve.crossOrigin.writers == ["https://a.example", "https://b.example"])
        for (yaml, fragment) in [("serve:\n  cors:\n    write_origins: \"*\"\n", "'*' is not allowed here"),
                                 ("serve:\n  cors:\n    allowed_origins: [\"https://a.example/path\"]\n", "'https://a.example/path'"),
                                 ("serve:\n  cors:\n    allowed_origins: [\"ftp://a.example\"]\n", "'ftp://a.example'"),
                                 ("serve:\n  cors:\n    write_origins: [\"null\"]\n", "'null'")] {
            let message = try #require(problem(yaml), "\(yaml) should be refused")
            #expect(message.contains("test.yaml:3: 'serve.cors.") && message.contains(fragment), "\(message)")
        }
    }

    @Test("bad refresh and serve values name the key and line")
    func badValues() throws {
        let time = try #require(problem("refresh:\n  times: [\"05:30\", \"25:00\"]\n"))
        #expect(time.contains("test.yaml:2: 'refresh.times'") && time.contains("'25:00'"), "\(time)")
        let nested = try #require(problem("refresh:\n  times: [[\"05:30\"]]\n"))
        #expect(nested.contains("'refresh.times' has the wrong type"), "\(nested)")
        let every = try #require(problem("refresh:\n  every: soon\n"))
        #expect(every.contains("'refresh.every'") && every.contains("30m"), "\(every)")
        let tooOften = try #require(problem("", environment: ["BRIDGET_REFRESH_EVERY": "0m"]))
        #expect(tooOften.contains("$BRIDGET_REFRESH_EVERY"), "\(tooOften)")
        let enabled = try #require(problem("refresh:\n  enabled: sometimes\n"))
        #expect(enabled.contains("auto, true, false"), "\(enabled)")
        let port = try #require(problem("serve:\n  port: 70000\n"))
        #expect(port.contains("test.yaml:2: 'serve.port'"), "\(port)")
    }

    @Test("refresh is on for live and ndw by default, off for sample; the write token comes from serve.token_env")
    func defaults() throws {
        let sample = try load("")
        #expect(!sample.refresh.isEnabled(for: sample.provider))
        #expect(sample.refresh.isEnabled(for: .live) && sample.refresh.isEnabled(for: .ndw))
        #expect(try load("refresh:\n  enabled: true\n").refresh.isEnabled(for: .sample))
        #expect(!(try load("refresh:\n  enabled: false\n").refresh.isEnabled(for: .live)))
        #expect(sample.serve == .init(host: "127.0.0.1", port: 8080, tokenVariable: "BRIDGET_API_TOKEN", drainSeconds: 10,
                                      maximumBodyBytes: 65_536))
        #expect(sample.apiToken == nil)
        #expect(try load("", environment: ["BRIDGET_API_TOKEN": "t0k"]).apiToken == "t0k")
        // A variable of one's own naming is not taken for a misspelt override.
        let own = try load("serve:\n  token_env: MY_BRIDGET_TOKEN\n", environment: ["MY_BRIDGET_TOKEN": "x"])
        #expect(own.apiToken == "x")
        #expect(try load("", environment: ["BRIDGET_SERVE_PORT": "9000"]).serve.port == 9000)
    }
}
