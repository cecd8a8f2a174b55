import BridgetCore
import BridgetDTOs
import BridgetTestSupport
import Foundation
import SocrataFixtureServer
import Testing

/// `bridget` itself with `provider.kind: live` against the `socrata-fixture-server` executable, then `cached`.
@Suite("bridget executable with the live and cached providers")
struct LiveExecutableTests {
    /// Starts the fixture server executable on a free port; returns it and its base URL.
    func startServer(_ arguments: [String]) throws -> (Process, String) {
        let server = Process()
        server.executableURL = URL(fileURLWithPath: BridgetProcess.executable).deletingLastPathComponent()
            .appendingPathComponent("socrata-fixture-server")
        server.arguments = ["--port", "0"] + arguments
        let pipe = Pipe()
        server.standardOutput = pipe
        server.standardError = FileHandle.nullDevice
        try server.run()
        // If the server never prints its address, end it: the read below then sees end-of-file instead of waiting.
        // A server that started is left alone (a test may use it for minutes).
        final class Started: Sendable { let value = Locked(false) }
        let started = Started()
        DispatchQueue.global().asyncAfter(deadline: .now() + 120) { // a hang detector
            if !started.value.withLock({ $0 }) && server.isRunning { server.terminate() }
        }
        var output = ""
        let deadline = Date().addingTimeInterval(TestTime.seconds(120)) // a hang detector
        while !output.contains("\n") && Date() < deadline {
            let chunk = pipe.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            output += String(decoding: chunk, as: UTF8.self)
        }
        guard let range = output.range(of: #"http://127\.0\.0\.1:[0-9]+"#, options: .regularExpression) else {
            server.terminate()
            throw URLError(.cannotConnectToHost)
        }
        started.value.withLock { $0 = true }
        return (server, String(output[range]))
    }

    func config(_ bridget: BridgetProcess, kind: String, baseURL: String, store: String) throws -> String {
        try bridget.write("\(kind)-\(store).yaml", """
            provider:
              kind: \(kind)
              live:
                base_url: \(baseURL)
                page_size: 400
                timeout_seconds: 5
                retry_base_delay_seconds: 0.01
                app_token_env: FIXTURE_TOKEN
                state_url: null
            cache:
              path: \(bridget.home)/http-cache
            store:
              path: \(bridget.home)/\(store).sqlite
            """)
    }

    @Test("a live sync whose host does not resolve gives up at once and says so, not that the server is throttling")
    func unresolvedHost() async throws {
        let bridget = BridgetProcess()
        // `.invalid` never resolves (RFC 6761): no network is needed to be refused.
        let config = try bridget.write("unresolved.yaml", """
            provider:
              kind: live
              live: {base_url: "http://bridget-test.invalid/", state_url: null}
            cache: {path: \(bridget.home)/http-cache}
            store: {path: \(bridget.storePath)}
            """)
        let sync = try await bridget.run(["sync", "--config", config])
        #expect(sync.status == 69, "\(sync.stderr)")
        #expect(sync.stderr.contains("error: could not resolve the host bridget-test.invalid"), "\(sync.stderr)")
        #expect(sync.stderr.contains("hint: check this machine's network connection and DNS")
                && sync.stderr.contains("provider.live.base_url"), "\(sync.stderr)")
        #expect(!sync.stderr.contains("app token") && !sync.stderr.contains("gave up"), "\(sync.stderr)")
        // How many attempts and waits it makes is counted in `HostileNetworkTests.unresolvedHost`; here only a hang
        // detector.
        #expect(sync.seconds < 120, "\(sync.seconds) s")
    }

    @Test("live sync through the executable, then the cached provider with the server stopped")
    func liveThenCached() async throws {
        let bridget = BridgetProcess()
        let token = "fixture-\(UUID().uuidString)"
        let (server, url) = try startServer(["--rows", "2500", "--seed", "3", "--faults", "503,429", "--token", token])
        defer { if server.isRunning { server.terminate() } }
        let expected = judgeSocrataRows(FixtureDataset.generate(rows: 2_500, seed: 3).records.map(\.row), now: Date())
        let env = ["FIXTURE_TOKEN": token]
        let live = try config(bridget, kind: "live", baseURL: url, store: "live")

        let first = try await bridget.run(["sync", "--config", live, "--format", "json"], environment: env)
        #expect(first.status == 0, "\(first.stderr)")
        let report = try decodeJSON(SyncSummary.self, first.stdout)
        #expect(report.inserted == expected.events.count)
        #expect(report.rejected == expected.rejected.count)

        let second = try await bridget.run(["sync", "--config", live], environment: env)
        #expect(second.status == 0 && second.stdout.contains("The source is unchanged"))

        let doctor = try await bridget.run(["doctor", "--config", live], environment: env)
        #expect(doctor.status == 0, "\(doctor.stdout)")
        #expect(doctor.stdout.contains("app token set in $FIXTURE_TOKEN"))
        let stats = try await bridget.run(["cache", "stats", "--config", live, "--format", "json"], environment: env)
        #expect(stats.status == 0 && stats.stdout.contains("\"entries\""))
        let show = try await bridget.run(["config", "show", "--config", live], environment: env)
        for output in [first, second, doctor, stats, show] {
            #expect(!output.stdout.contains(token) && !output.stderr.contains(token))
        }

        let anonymous = try await bridget.run(["sync", "--config", live, "--full"])
        #expect(anonymous.status == 69)
        #expect(anonymous.stderr.contains("403") && anonymous.stderr.contains("app token"))

        server.terminate()
        await server.exited()
        let down = try await bridget.run(["doctor", "--config", live], environment: env)
        #expect(down.status == 1 && down.stdout.contains("problem"))

        let cached = try config(bridget, kind: "cached", baseURL: url, store: "offline")
        let offline = try await bridget.run(["sync", "--config", cached, "--format", "json"])
        #expect(offline.status == 0, "\(offline.stderr)")
        #expect(try decodeJSON(SyncSummary.self, offline.stdout).inserted == expected.events.count)
        #expect(allFiles(under: bridget.home).range(of: Data(token.utf8)) == nil)

        let cleared = try await bridget.run(["cache", "clear", "--config", cached])
        #expect(cleared.status == 0 && cleared.stdout.contains("removed"))
        let empty = try await bridget.run(["sync", "--config", try config(bridget, kind: "cached", baseURL: url, store: "empty")])
        #expect(empty.status == 69 && empty.stderr.contains("holds no pages"))
    }
}

func allFiles(under folder: String) -> Data {
    var data = Data()
    for name in FileManager.default.subpaths(atPath: folder) ?? [] {
        if let contents = FileManager.default.contents(atPath: folder + "/" + name) { data.append(contents) }
    }
    return data
}
