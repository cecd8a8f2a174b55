import Foundation
import GRDB
import SocrataFixtureServer
import Synchronization
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `bridget serve` through real HTTP on 127.0.0.1: the built executable serves a synced store on a port it picks,
/// and its answers are compared with the CLI's `--format json` on the same store.
@Suite("bridget executable: serve")
struct ServeTests {
    #if Server
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
            for _ in 0..<300 where port == nil {
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

    @Test("the JSON API answers as the CLI does, with ETags, problems, request ids and a log line a request")
    func endpoints() async throws {
        let bridget = BridgetProcess()
        let config = try bridget.sampleConfig(days: 30)
        #expect(try await bridget.run(["sync", "--config", config]).status == 0)
        let cliBridges = try await bridget.run(["bridges", "--config", config, "--format", "json"]).stdout
        let server = try await Server(bridget, config: config)

        let (status, headers, body) = try await server.get("/v1/bridges")
        #expect(status == 200 && headers["content-type"] == "application/json")
        #expect(body == cliBridges, "the API's /v1/bridges differs from `bridget bridges --format json`")
        let requestID = try #require(headers["x-request-id"])
        let etag = try #require(headers["etag"])
        let (notModified, _, emptyBody) = try await server.get("/v1/bridges", headers: ["If-None-Match": etag])
        #expect(notModified == 304 && emptyBody.isEmpty)

        // GeoJSON for a map: the same answer as the CLI's, one Point a bridge, longitude first.
        let (geoStatus, geoHeaders, geo) = try await server.get("/v1/bridges?format=geojson")
        let cliGeo = try await bridget.run(["bridges", "--config", config, "--format", "geojson"]).stdout
        #expect(geoStatus == 200 && geoHeaders["content-type"] == "application/geo+json" && geo == cliGeo)
        struct Collection: Decodable {
            struct Feature: Decodable {
                struct Point: Decodable { let type: String; let coordinates: [Double] }
                let id: String
                let geometry: Point
            }
            let type: String
            let features: [Feature]
        }
        let collection = try decodeJSON(Collection.self, geo)
        let fremontPoint = collection.features.first { $0.id == "3" }?.geometry
        #expect(collection.type == "FeatureCollection" && collection.features.count == 7)
        #expect(fremontPoint?.type == "Point" && fremontPoint.map { $0.coordinates[0] < -122 && $0.coordinates[1] > 47 } == true)
        #expect(try await server.get("/v1/bridges?format=kml").0 == 400)

        let (one, _, fremont) = try await server.get("/v1/bridges/Fremont")
        struct Activity: Decodable { struct Bridge: Decodable { let id: String }; let bridge: Bridge; let openings: Int }
        let all = try decodeJSON([Activity].self, cliBridges)
        let fremontActivity = try decodeJSON(Activity.self, fremont)
        #expect(one == 200 && fremontActivity.openings == all.first { $0.bridge.id == "3" }?.openings)

        let (missing, problemHeaders, problem) = try await server.get("/v1/bridges/Aurora")
        struct Problem: Decodable { let type: String; let title: String; let status: Int; let detail: String }
        let parsed = try decodeJSON(Problem.self, problem)
        #expect(missing == 404 && problemHeaders["content-type"] == "application/problem+json")
        #expect(parsed.type.hasSuffix("/unknown-bridge") && parsed.status == 404 && parsed.detail.contains("Fremont (3)"))
        // Path parameters are percent-decoded: a bridge name with spaces, an escaped id.
        let (spaced, _, spokane) = try await server.get("/v1/bridges/Lower%20Spokane%20St")
        #expect(spaced == 200 && spokane.contains(#""id" : "6""#), "\(spokane)")
        #expect(try await server.get("/v1/bridges/%33").0 == 200)
        // `If-None-Match: *` matches an answer that exists, not an error.
        #expect(try await server.get("/v1/bridges/nosuch", headers: ["If-None-Match": "*"]).0 == 404)
        #expect(try await server.get("/v1/bridges/3", headers: ["If-None-Match": "*"]).0 == 304)
        let nothing = try await server.get("/v1/nothing").0
        #expect(nothing == 404)

        let (ok, _, health) = try await server.get("/healthz")
        #expect(ok == 200 && health == "ok\n")
        let ready = try await server.get("/readyz").0
        #expect(ready == 200)
        let (_, _, statusBody) = try await server.get("/v1/status")
        struct Status: Decodable { struct Run: Decodable { let status: String }; let provider: String; let lastSync: Run? }
        let state = try decodeJSON(Status.self, statusBody)
        #expect(state.provider == "sample" && state.lastSync?.status == "succeeded")

        // A sync that stores nothing new is still a new run: /v1/status's tag changes with it.
        let (_, statusHeaders, _) = try await server.get("/v1/status")
        let statusTag = try #require(statusHeaders["etag"])
        #expect(try await server.get("/v1/status", headers: ["If-None-Match": statusTag]).0 == 304)
        #expect(try await bridget.run(["sync", "--config", config]).status == 0)
        let (afterSync, _, _) = try await server.get("/v1/status", headers: ["If-None-Match": statusTag])
        #expect(afterSync == 200)

        // A sync that stores more changes the answers the server kept: a longer history, the same store.
        let longer = try bridget.sampleConfig(days: 45, endDate: "2026-07-15")
        #expect(try await bridget.run(["sync", "--config", longer]).status == 0)
        try await Task.sleep(for: .milliseconds(1_100)) // another process's sync shows within a second
        let (_, _, grown) = try await server.get("/v1/bridges")
        let cliGrown = try await bridget.run(["bridges", "--config", longer, "--format", "json"]).stdout
        #expect(grown == cliGrown && grown != cliBridges, "a kept answer outlived the sync")

        let (exit, log) = await server.stop()
        #expect(exit == 0, "SIGTERM should drain and exit 0: \(log)")
        #expect(log.contains("request=\(requestID)") && log.contains("GET /v1/bridges 200"))
        #expect(log.components(separatedBy: "\n").filter { $0.contains(" GET /") }.count == 18, "\(log)")
    }

    @Test("events page with a cursor, stats and forecast answer as events, stats and predict do; bad parameters are 400s")
    func answers() async throws {
        let bridget = BridgetProcess()
        let config = try bridget.sampleConfig(days: 30)
        #expect(try await bridget.run(["sync", "--config", config]).status == 0)
        let server = try await Server(bridget, config: config)
        defer { server.terminate() }
        func json(_ text: String) throws -> NSObject {
            try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? NSObject)
        }

        // Every page of 50, then the whole list from the CLI.
        var collected: [Any] = []
        var path = "/v1/bridges/Fremont/events?limit=50"
        var pages = 0
        while true {
            let (status, _, body) = try await server.get(path)
            #expect(status == 200, "\(path): \(body)")
            let page = try #require(try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any])
            let events = try #require(page["events"] as? [Any])
            collected += events
            pages += 1
            guard let next = page["next"] as? String else { break }
            #expect(events.count == 50)
            path = "/v1/bridges/Fremont/events?limit=50&cursor=\(next)"
        }
        let cli = try await bridget.run(["events", "--config", config, "--bridge", "Fremont", "--format", "json"]).stdout
        let cliEvents = try json(cli) as? NSArray
        #expect(pages > 1 && (collected as NSArray) == cliEvents, "pages: \(pages)")

        let (statsStatus, _, statsBody) = try await server.get("/v1/stats?bridge=3&bridge=Ballard&since=2026-06-15")
        let cliStats = try await bridget.run(["stats", "--config", config, "--bridge", "3", "--bridge", "Ballard", "--since",
                                        "2026-06-15", "--format", "json"]).stdout
        func withoutTime(_ text: String) throws -> NSDictionary {
            var object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
            object["generatedAt"] = nil // the moment of the answer, which differs
            return object as NSDictionary
        }
        let (api, local) = (try withoutTime(statsBody), try withoutTime(cliStats))
        #expect(statsStatus == 200 && api == local)

        let (forecastStatus, _, forecastBody) = try await server.get("/v1/bridges/3/forecast?at=2026-06-30T17:40&window=20m")
        let cliForecast = try await bridget.run(["predict", "--config", config, "--bridge", "3", "--at", "2026-06-30 17:40",
                                           "--window", "20m", "--format", "json"]).stdout
        let (apiForecast, localForecast) = (try json(forecastBody), try json(cliForecast))
        #expect(forecastStatus == 200 && apiForecast == localForecast, "\(forecastBody)")

        for (query, parameter) in [("/v1/bridges/3/events?limit=5000", "limit"), ("/v1/bridges/3/events?since=soon", "since"),
                                   ("/v1/bridges/3/events?cursor=zzz", "cursor"), ("/v1/bridges/3/forecast?window=0", "window"),
                                   ("/v1/stats?bridge=Aurora", "bridge")] {
            let (status, headers, body) = try await server.get(query)
            #expect(status == 400 && headers["content-type"] == "application/problem+json"
                    && body.contains("Bad query parameter '\(parameter)'"), "\(query): \(status) \(body)")
        }
    }

    @Test("routes over HTTP: reads answer as the CLI does; PUT and DELETE need the bearer token, which no log shows")
    func routes() async throws {
        let bridget = BridgetProcess()
        let config = try bridget.sampleConfig(days: 30)
        #expect(try await bridget.run(["sync", "--config", config]).status == 0)
        let token = "tok-\(UUID().uuidString)"
        let server = try await Server(bridget, config: config, environment: ["BRIDGET_API_TOKEN": token])
        let auth = ["Authorization": "Bearer \(token)", "Content-Type": "application/json"]
        let body = #"{"crossings": [{"bridgeIDs": ["Fremont", "2"], "minutesFromStart": 8}, {"bridgeIDs": ["Montlake"], "minutesFromStart": 20}]}"#

        let (none, noneHeaders, noneBody) = try await server.send("PUT", "/v1/routes/commute", body: body)
        #expect(none == 401 && noneHeaders["www-authenticate"]?.hasPrefix("Bearer") == true && noneBody.contains("/unauthorized"))
        let wrong = try await server.send("PUT", "/v1/routes/commute", headers: ["Authorization": "Bearer \(token)x"], body: body)
        #expect(wrong.0 == 401 && !wrong.2.contains(token))
        let (created, createdHeaders, createdBody) = try await server.send("PUT", "/v1/routes/commute", headers: auth, body: body)
        #expect(created == 201 && createdHeaders["location"] == "/v1/routes/commute", "\(createdBody)")
        #expect(createdBody.contains(#""3""#) && createdBody.contains(#""4""#)) // names stored as ids
        let replaced = try await server.send("PUT", "/v1/routes/commute", headers: auth, body: body)
        #expect(replaced.0 == 200)
        // A name with a space travels percent-encoded and is stored as written.
        let spaced = try await server.send("PUT", "/v1/routes/school%20run", headers: auth, body: body)
        #expect(spaced.0 == 201 && spaced.2.contains(#""id" : "school run""#), "\(spaced.2)")
        #expect(try await server.get("/v1/routes/school%20run").0 == 200)
        #expect(try await server.send("DELETE", "/v1/routes/school%20run", headers: auth).0 == 204)
        let (badBridge, _, badBridgeBody) = try await server.send(
            "PUT", "/v1/routes/x", headers: auth, body: #"{"crossings": [{"bridgeIDs": ["Aurora"], "minutesFromStart": 1}]}"#)
        #expect(badBridge == 400 && badBridgeBody.contains("/bad-body") && badBridgeBody.contains("Aurora"))
        let notJSON = try await server.send("PUT", "/v1/routes/x", headers: auth, body: "crossings: none")
        #expect(notJSON.0 == 400 && notJSON.2.contains("/bad-body"))
        let huge = try await server.send("PUT", "/v1/routes/x", headers: auth, body: String(repeating: " ", count: 70_000) + body)
        #expect(huge.0 == 413 && huge.2.contains("/payload-too-large"))

        // Reads equal the CLI's --format json on the same routes file.
        let list = try await server.get("/v1/routes")
        #expect(list.0 == 200 && list.1["cache-control"] == "max-age=0")
        #expect(list.2 == (try await bridget.run(["route", "list", "--config", config, "--format", "json"]).stdout))
        let one = try await server.get("/v1/routes/commute")
        #expect(one.2 == (try await bridget.run(["route", "show", "commute", "--config", config, "--format", "json"]).stdout))
        let missing = try await server.get("/v1/routes/nowhere")
        #expect(missing.0 == 404 && missing.2.contains("/unknown-route") && missing.2.contains("commute"))
        let score = try await server.get("/v1/routes/commute/score?depart=2026-06-30T17:40")
        let cliScore = try await bridget.run(["route", "score", "commute", "--depart", "2026-06-30 17:40", "--config", config,
                                        "--format", "json"]).stdout
        #expect(score.0 == 200 && score.2 == cliScore, "\(score.2)")
        let best = try await server.get("/v1/routes/commute/best-time?between=16:00&and=18:00&step=15m&date=2026-06-30&top=3")
        let cliBest = try await bridget.run(["route", "best-time", "commute", "--between", "16:00", "18:00", "--step", "15m",
                                       "--date", "2026-06-30", "--top", "3", "--config", config, "--format", "json"]).stdout
        #expect(best.0 == 200 && best.2 == cliBest, "\(best.2)")
        let noAnd = try await server.get("/v1/routes/commute/best-time?between=16:00")
        #expect(noAnd.0 == 400 && noAnd.2.contains("Bad query parameter 'and'"))
        let heatmap = try await server.get("/v1/stats/heatmap?bridge=Fremont")
        let cliHeatmap = try await bridget.run(["stats", "--heatmap", "--bridge", "Fremont", "--config", config, "--format", "json"])
        #expect(heatmap.0 == 200 && heatmap.2 == cliHeatmap.stdout && heatmap.2.contains("America/Los_Angeles"))

        let deleted = try await server.send("DELETE", "/v1/routes/commute", headers: auth)
        #expect(deleted.0 == 204 && deleted.2.isEmpty)
        #expect(try await server.send("DELETE", "/v1/routes/commute", headers: auth).0 == 404)
        #expect(try await server.send("DELETE", "/v1/routes/commute").0 == 401)

        let metrics = try await server.get("/metrics")
        #expect(metrics.0 == 200 && metrics.1["content-type"]?.hasPrefix("text/plain; version=0.0.4") == true)
        #expect(metrics.2.contains(#"hb_requests{http_route="/v1/routes/{name}",http_request_method="PUT",http_response_status_code="401"} 2"#),
                "\(metrics.2)")
        #expect(metrics.2.contains("http_server_request_duration_bucket"))

        let (exit, log) = await server.stop()
        #expect(exit == 0)
        #expect(log.contains("PUT /v1/routes/commute 201") && !log.contains(token), "the token reached the log")

        // No token configured: writes are off (403), whatever is sent.
        let closed = try await Server(bridget, config: config, log: "closed")
        let forbidden = try await closed.send("PUT", "/v1/routes/commute", headers: auth, body: body)
        #expect(forbidden.0 == 403 && forbidden.2.contains("/forbidden") && forbidden.2.contains("BRIDGET_API_TOKEN"))
        _ = await closed.stop()
    }

    @Test("the refresher under serve: SIGTERM mid-sync commits, records cancelled, exits 0; the next start resumes to the exact count")
    func refreshUnderServe() async throws {
        let bridget = BridgetProcess()
        let rows = 60_000
        let fixture = try SocrataFixtureServer(dataset: .generate(rows: rows, seed: 9))
        let url = try await fixture.start().absoluteString
        defer { Task { await fixture.stop() } }
        let expected = judgeSocrataRows(FixtureDataset.generate(rows: rows, seed: 9).records.map(\.row), now: Date())
        let config = try bridget.write("refresh.yaml", """
            provider:
              kind: live
              live: {base_url: "\(url)", page_size: 1000, timeout_seconds: 120}
            cache: {path: \(bridget.home)/cache}
            store: {path: \(bridget.storePath)}
            serve: {drain_seconds: 30}
            refresh: {every: 10m, jitter_minutes: 0}
            """)
        let storePath = bridget.storePath
        let count: @Sendable () -> Int = {
            var readOnly = Configuration()
            readOnly.readonly = true
            guard FileManager.default.fileExists(atPath: storePath),
                  let queue = try? DatabaseQueue(path: storePath, configuration: readOnly)
            else { return 0 }
            return (try? queue.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM events") ?? 0 }) ?? 0
        }

        // Never synced: the refresher starts at once. Once a batch is committed, the next page hangs, and SIGTERM
        // comes while the sync waits for it: the shutdown always lands inside a sync, however loaded the machine.
        // Watched from a thread of its own (the suite's other tests can hold every cooperative thread for seconds).
        let first = try await Server(bridget, config: config, log: "first")
        let outcome = Mutex<(committed: Int, hanging: Bool)>((0, false))
        let watcher = Thread {
            let deadline = Date().addingTimeInterval(90)
            while Date() < deadline, count() == 0 { Thread.sleep(forTimeInterval: 0.02) }
            let committed = count()
            fixture.inject([.hang(120)])
            while Date() < deadline, fixture.pendingFaults > 0 { Thread.sleep(forTimeInterval: 0.02) }
            outcome.withLock { $0 = (committed, fixture.pendingFaults == 0) }
        }
        watcher.start()
        while !watcher.isFinished { try await Task.sleep(for: .milliseconds(50)) }
        let (committed, hanging) = outcome.withLock { $0 }
        #expect(committed > 0 && hanging, "no batch was committed, or the sync ended before the hanging page")
        let second = try await bridget.run(["watch", "--config", config])
        #expect(second.status == 75 && second.stderr.contains("already refreshing"), "\(second.stderr)")
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
        let end = Date().addingTimeInterval(120)
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
        var keptAtVersion = 0
        let keptBy = Date().addingTimeInterval(60)
        while Date() < keptBy, keptAtVersion < 2 {
            try await Task.sleep(for: .milliseconds(250))
            var waiting = Configuration()
            waiting.busyMode = .timeout(10) // the server writes meanwhile
            let queue = try DatabaseQueue(path: bridget.storePath, configuration: waiting)
            keptAtVersion = try await queue.read { db in
                try Int.fetchOne(db, sql: """
                    SELECT count(*) FROM kept_answers WHERE history_version = (SELECT version FROM history_version)
                    """) ?? 0
            }
            try queue.close()
        }
        #expect(keptAtVersion == 2, "the pages' figures and backtest kept at the history's version")
        let (againExit, againLog) = await again.stop()
        #expect(againExit == 0, "\(againLog)")

        // watch --once: one sync now, with the lock, then exit.
        let once = try await bridget.run(["watch", "--once", "--config", config])
        #expect(once.status == 0 && once.stderr.contains("synced"), "\(once.stderr)")
    }

    @Test("an empty store: lists are empty, a forecast or a route score is a 404 no-history, never a 500")
    func emptyStore() async throws {
        let bridget = BridgetProcess()
        let config = try bridget.sampleConfig(days: 7)
        let token = "t-\(UUID().uuidString)"
        let server = try await Server(bridget, config: config, environment: ["BRIDGET_API_TOKEN": token])
        defer { server.terminate() }
        #expect(try await server.get("/v1/bridges").2.trimmingCharacters(in: .whitespacesAndNewlines) == "[\n\n]")
        let (forecast, _, forecastBody) = try await server.get("/v1/bridges/3/forecast")
        #expect(forecast == 404 && forecastBody.contains("/no-history"), "\(forecastBody)")
        let saved = try await server.send("PUT", "/v1/routes/r", headers: ["Authorization": "Bearer \(token)"],
                                          body: #"{"crossings": [{"bridgeIDs": ["3"], "minutesFromStart": 5}]}"#)
        #expect(saved.0 == 201)
        for path in ["/v1/routes/r/score", "/v1/routes/r/best-time?between=7:00&and=8:00"] {
            let (status, _, body) = try await server.get(path)
            #expect(status == 404 && body.contains("/no-history"), "\(path): \(body)")
        }
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

    @Test("/readyz answers 503 with a problem when the store cannot be read")
    func notReady() async throws {
        let bridget = BridgetProcess()
        let config = try bridget.sampleConfig(days: 7)
        #expect(try await bridget.run(["sync", "--config", config]).status == 0)
        let server = try await Server(bridget, config: config)
        // The store file is replaced by garbage under the running server.
        try Data(repeating: 0x41, count: 8192).write(to: URL(fileURLWithPath: bridget.storePath))
        try? FileManager.default.removeItem(atPath: bridget.storePath + "-wal")
        try? FileManager.default.removeItem(atPath: bridget.storePath + "-shm")
        let (status, headers, _) = try await server.get("/readyz")
        _ = await server.stop()
        #expect(status == 503 && headers["content-type"] == "application/problem+json", "got \(status)")
    }
    #else
    @Test("a bridget built without the Server trait says how to get `serve`, exit 69")
    func withoutTheTrait() async throws {
        let result = try await BridgetProcess().run(["serve"])
        #expect(result.status == 69 && result.stderr.contains("swift build --traits Server"))
    }
    #endif
}
