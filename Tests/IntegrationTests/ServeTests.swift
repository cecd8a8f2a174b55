import Foundation
import BridgetTestSupport
import GRDB
import SocrataFixtureServer
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `bridget serve` through real HTTP on 127.0.0.1: the built executable serves a synced store on a port it picks,
/// and its answers are compared with the CLI's `--format json` on the same store.
@Suite("bridget executable: serve")
struct ServeTests {
    /// A running `bridget serve --port 0` over a synced sample store; stopped with SIGTERM by `stop()`.
    final class Server: @unchecked Sendable { // the process is only touched by the test that owns it
        let process = Process()
        let base: URL
        let stderrPath: String

        init(_ bridget: BridgetProcess, config: String, environment: [String: String] = [:], log: String = "serve")
            async throws
        {
            let outPath = bridget.home + "/\(log).out"
            stderrPath = bridget.home + "/\(log).err"
            _ = FileManager.default.createFile(atPath: outPath, contents: nil)
            _ = FileManager.default.createFile(atPath: stderrPath, contents: nil)
            process.executableURL = URL(fileURLWithPath: BridgetProcess.executable)
            process.arguments = ["serve", "--config", config, "--port", "0"]
            process.environment = ["HOME": bridget.home, "PATH": "/usr/bin:/bin", "XDG_CONFIG_HOME": bridget.home + "/config"]
                .merging(environment) { $1 }
            process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
            process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: stderrPath))
            try process.run()
            // The server prints "listening on http://127.0.0.1:PORT" once it is bound.
            var port: String?
            for _ in 0..<2_400 where port == nil { // two minutes: a hang detector
                let text = (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? ""
                port = text.split(separator: "\n").first { $0.hasPrefix("listening on http://127.0.0.1:") }
                    .map { String($0.split(separator: ":").last ?? "") }
                if port == nil { try await Task.sleep(for: .milliseconds(50)) }
            }
            guard let port, !port.isEmpty else {
                process.terminate()
                throw ServeFailure(message: "bridget serve printed no port: "
                                   + ((try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? ""))
            }
            base = URL(string: "http://127.0.0.1:\(port)")!
        }

        func get(_ path: String, headers: [String: String] = [:]) async throws -> (Int, [String: String], String) {
            try await send("GET", path, headers: headers)
        }

        func send(_ method: String, _ path: String, headers: [String: String] = [:], body: String? = nil) async throws
            -> (Int, [String: String], String)
        {
            var request = URLRequest(url: URL(string: path, relativeTo: base)!)
            request.httpMethod = method
            request.httpBody = body.map { Data($0.utf8) }
            request.cachePolicy = .reloadIgnoringLocalCacheData
            for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
            let (data, response) = try await URLSession(configuration: .ephemeral).data(for: request)
            let http = try #require(response as? HTTPURLResponse)
            var fields: [String: String] = [:]
            for (name, value) in http.allHeaderFields { fields[String(describing: name).lowercased()] = String(describing: value) }
            return (http.statusCode, fields, String(decoding: data, as: UTF8.self))
        }

        /// A server its test left running (an expectation thrown past its stop) is stopped with it: it would go on
        /// polling a fixture's port that a later test's server may hold.
        deinit { if process.isRunning { process.terminate() } }

        /// SIGTERM, not waiting for the exit: for a `defer`, which cannot wait.
        func terminate() {
            if process.isRunning { process.terminate() }
        }

        /// SIGTERM, then the exit status and what the server logged.
        func stop() async -> (Int32, String) {
            if process.isRunning { process.terminate() }
            await process.exited()
            return (process.terminationStatus, log)
        }

        /// What the server logged so far.
        var log: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }
    }

    struct ServeFailure: Error, CustomStringConvertible { let message: String; var description: String { message } }

    @Test("the built server answers as the CLI's --format json does, logs a line a request and drains on SIGTERM")
    func smoke() async throws {
        let bridget = BridgetProcess()
        let config = try bridget.sampleConfig(days: 30)
        #expect(try await bridget.run(["sync", "--config", config]).status == 0)
        let server = try await Server(bridget, config: config)
        for (path, command) in [("/v1/bridges", ["bridges"]),
                                ("/v1/bridges/3/forecast?at=2026-06-30T17:40&window=20m",
                                 ["predict", "--bridge", "3", "--at", "2026-06-30 17:40", "--window", "20m"]),
                                ("/v1/stats/heatmap?bridge=Fremont", ["stats", "--heatmap", "--bridge", "Fremont"])] {
            let (status, _, body) = try await server.get(path)
            let cli = try await bridget.run(command + ["--config", config, "--format", "json"]).stdout
            #expect(status == 200 && body == cli, "\(path) differs from `bridget \(command.joined(separator: " "))`")
        }
        // Another process's sync shows in the answers within a second: a longer history, the same store.
        let (_, _, before) = try await server.get("/v1/bridges")
        let longer = try bridget.sampleConfig(days: 45, endDate: "2026-07-15")
        #expect(try await bridget.run(["sync", "--config", longer]).status == 0)
        try await Task.sleep(for: .milliseconds(1_100))
        let (_, headers, grown) = try await server.get("/v1/bridges")
        let cliGrown = try await bridget.run(["bridges", "--config", longer, "--format", "json"]).stdout
        #expect(grown == cliGrown && grown != before, "a kept answer outlived the sync")
        let requestID = try #require(headers["x-request-id"])
        let (exit, log) = await server.stop()
        #expect(exit == 0, "SIGTERM should drain and exit 0: \(log)")
        #expect(log.contains("request=\(requestID)") && log.contains("GET /v1/bridges 200"), "\(log)")
        #expect(log.components(separatedBy: "\n").filter { $0.contains(" GET /") }.count == 5, "\(log)")
    }

    @Test("the refresher under serve: SIGTERM mid-sync commits, records cancelled, exits 0; the next start resumes to the exact count")
    func refreshUnderServe() async throws {
        let bridget = BridgetProcess()
        // Twelve pages: the sixth request hangs with batches committed and most rows still to come.
        let rows = 12_000
        let fixture = try SocrataFixtureServer(dataset: .generate(rows: rows, seed: 9))
        let url = try await fixture.start().absoluteString
        defer { Task { await fixture.stop() } }
        let expected = judgeSocrataRows(FixtureDataset.generate(rows: rows, seed: 9).records.map(\.row), now: Date())
        let config = try bridget.liveConfig("refresh.yaml", url: url, extra: """
            serve: {drain_seconds: 30}
            refresh: {every: 10m, jitter_minutes: 0}
            """)
        let count = { bridget.storedEvents() }

        // Never synced: the refresher starts at once, and its sixth request hangs (queued before the server starts),
        // so SIGTERM always lands inside a sync with batches committed.
        fixture.hangMidSync()
        let first = try await Server(bridget, config: config, log: "first")
        let committed = try await bridget.waitForHangingSync(fixture)
        // The store's sync lock: another sync (here, a cron's `watch --once`) is refused while this one holds it.
        let second = try await bridget.run(["watch", "--once", "--config", config])
        #expect(second.status == 75 && second.stderr.contains("another sync is running on")
                && second.stderr.contains("pid"),
                "\(second.stderr); the fixture's requests: \(fixture.requests.map { "\($0.path)?\($0.query["$offset"] ?? "") \($0.status)" })")
        let (exit, log) = await first.stop()
        #expect(exit == 0, "\(log)")
        let queue = try DatabaseQueue(path: bridget.storePath)
        let (integrity, status, stored) = try await queue.read { db in
            (try String.fetchOne(db, sql: "PRAGMA integrity_check"),
             try String.fetchOne(db, sql: "SELECT status FROM sync_runs ORDER BY id DESC LIMIT 1"),
             try Int.fetchOne(db, sql: "SELECT count(*) FROM events") ?? 0)
        }
        try queue.close()
        #expect(integrity == "ok")
        #expect(status == "cancelled", "\(log)")
        #expect(stored >= committed && stored > 0 && stored < expected.events.count, "stored \(stored)")
        #expect(log.contains("recorded cancelled"), "\(log)")

        // The next start resumes (the last run did not succeed, so it is due at once) and ends with every row.
        let again = try await Server(bridget, config: config, log: "again")
        struct Status: Decodable {
            struct Run: Decodable { let status: String }
            let lastSync: Run?
            let refresh: String?
            let nextRefresh: Date?
        }
        var state: Status?
        // A hang detector: the resumed sync ends with the models' rebuild, which yields to requests on a busy machine.
        let end = Date().addingTimeInterval(TestTime.seconds(600))
        while Date() < end {
            try await Task.sleep(for: .milliseconds(250))
            let (code, _, body) = try await again.get("/v1/status")
            guard code == 200 else { continue }
            state = try decodeJSON(Status.self, body)
            if state?.lastSync?.status == "succeeded" { break }
        }
        #expect(state?.lastSync?.status == "succeeded" && state?.refresh == "every 10 min")
        #expect(state?.nextRefresh.map { $0 > Date() } == true)
        #expect(count() == expected.events.count)
        // After a sync that changed the history, the refresher keeps what the pages need of it, in the background.
        let pagesNeed = ["pages.figures", "pages.provenance", "pages.quality"]
        var keptAtVersion: [String] = []
        // A hang detector: the quality page's backtest (a quarter of forecasts for seven bridges, in a debug build)
        // takes minutes on a loaded machine.
        let keptBy = Date().addingTimeInterval(TestTime.seconds(900))
        while Date() < keptBy, keptAtVersion != pagesNeed {
            try await Task.sleep(for: .milliseconds(250))
            var waiting = Configuration()
            waiting.busyMode = .timeout(10) // the server writes meanwhile
            let queue = try DatabaseQueue(path: bridget.storePath, configuration: waiting)
            keptAtVersion = try await queue.read { db in
                try String.fetchAll(db, sql: """
                    SELECT name FROM kept_answers WHERE history_version = (SELECT version FROM history_version)
                    ORDER BY name
                    """)
            }
            try queue.close()
        }
        #expect(keptAtVersion == pagesNeed, "the pages' figures, provenance and backtest kept at the history's version")
        let (againExit, againLog) = await again.stop()
        #expect(againExit == 0, "\(againLog)")

        // watch --once: one sync now, holding the store's sync lock, then exit.
        let once = try await bridget.run(["watch", "--once", "--config", config])
        #expect(once.status == 0 && once.stderr.contains("synced"), "\(once.stderr)")
    }

    @Test("SIGHUP drains as SIGTERM does, and the drain limit holds: a request still running at it is cut, the log says so, exit 0")
    func drainLimit() async throws {
        let bridget = BridgetProcess()
        let config = try bridget.sampleConfig(days: 7)
        #expect(try await bridget.run(["sync", "--config", config]).status == 0)
        let server = try await Server(bridget, config: config, environment: [
            "BRIDGET_SERVE_DRAIN_SECONDS": "1", "BRIDGET_SERVE_BODY_TIMEOUT_SECONDS": "600", "BRIDGET_API_TOKEN": "t",
        ])
        defer { server.terminate() }
        // A request that will not end by itself: a PUT whose body never finishes coming.
        let port = try #require(server.base.port)
        let client = try RawConnection(port: port)
        client.sendUnfinishedPut("/v1/routes/slow", token: "t")
        // It is being answered once the server counts it (the scrape itself is the other one).
        var active = 0
        let until = ContinuousClock.now + TestTime.duration(.seconds(120))
        while active < 2, ContinuousClock.now < until {
            let (_, _, metrics) = try await server.get("/metrics")
            active = metrics.split(separator: "\n").first { $0.hasPrefix("http_server_active_requests ") }
                .flatMap { Int(Double($0.split(separator: " ").last ?? "") ?? 0) } ?? 0
            if active < 2 { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(active >= 2, "the slow request was never counted")
        kill(server.process.processIdentifier, SIGHUP)
        await server.process.exited()
        let log = server.log
        #expect(server.process.terminationReason == .exit && server.process.terminationStatus == 0, "\(log)")
        #expect(log.contains("SIGHUP: draining for at most 1"), "\(log)")
        // Cut at the limit: told to come back (503) if the handler heeded the cancellation, else by the watchdog.
        #expect(log.contains("PUT /v1/routes/slow 503") && log.contains(": unavailable")
                || log.contains("drain limit reached: stopping with 1 request(s) unanswered"), "\(log)")
        client.hangUp()
    }

    @Test("a port in use or an address that cannot be listened on is a clear error, exit 69, not a crash")
    func cannotListen() async throws {
        let bridget = BridgetProcess()
        let config = try bridget.sampleConfig(days: 7)
        let first = try await Server(bridget, config: config, log: "first")
        defer { first.terminate() }
        let port = try #require(first.base.port)
        let taken = try await bridget.run(["serve", "--config", config, "--port", String(port)])
        #expect(taken.status == 69 && taken.stderr.contains("cannot listen on 127.0.0.1:\(port)")
                && taken.stderr.contains("choose another --port"), "\(taken.stderr)")
        let unknown = try await bridget.run(["serve", "--config", config, "--host", "999.1.1.1", "--port", "0"])
        #expect(unknown.status == 69 && unknown.stderr.contains("cannot listen on 999.1.1.1:0"), "\(unknown.stderr)")
        let empty = try await bridget.run(["serve", "--config", config, "--port", "0"], environment: ["BRIDGET_SERVE_HOST": " "])
        #expect(empty.status == 64 && empty.stderr.contains("address to listen on is empty"), "\(empty.stderr)")
    }
}
