import Foundation
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

        init(_ bridget: BridgetProcess, config: String) throws {
            let outPath = bridget.home + "/serve.out"
            stderrPath = bridget.home + "/serve.err"
            _ = FileManager.default.createFile(atPath: outPath, contents: nil)
            _ = FileManager.default.createFile(atPath: stderrPath, contents: nil)
            process.executableURL = URL(fileURLWithPath: BridgetProcess.executable)
            process.arguments = ["serve", "--config", config, "--port", "0"]
            process.environment = ["HOME": bridget.home, "PATH": "/usr/bin:/bin", "XDG_CONFIG_HOME": bridget.home + "/config"]
            process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
            process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: stderrPath))
            try process.run()
            // The server prints "listening on http://127.0.0.1:PORT" once it is bound.
            var port: String?
            for _ in 0..<300 where port == nil {
                let text = (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? ""
                port = text.split(separator: "\n").first { $0.hasPrefix("listening on http://127.0.0.1:") }
                    .map { String($0.split(separator: ":").last ?? "") }
                if port == nil { Thread.sleep(forTimeInterval: 0.05) }
            }
            guard let port, !port.isEmpty else {
                process.terminate()
                throw ServeFailure(message: "bridget serve printed no port: "
                                   + ((try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? ""))
            }
            base = URL(string: "http://127.0.0.1:\(port)")!
        }

        func get(_ path: String, headers: [String: String] = [:]) async throws -> (Int, [String: String], String) {
            var request = URLRequest(url: URL(string: path, relativeTo: base)!)
            request.cachePolicy = .reloadIgnoringLocalCacheData
            for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
            let (data, response) = try await URLSession(configuration: .ephemeral).data(for: request)
            let http = try #require(response as? HTTPURLResponse)
            var fields: [String: String] = [:]
            for (name, value) in http.allHeaderFields { fields[String(describing: name).lowercased()] = String(describing: value) }
            return (http.statusCode, fields, String(decoding: data, as: UTF8.self))
        }

        /// SIGTERM, then the exit status and what the server logged.
        func stop() -> (Int32, String) {
            process.terminate()
            process.waitUntilExit()
            return (process.terminationStatus, (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "")
        }
    }

    struct ServeFailure: Error, CustomStringConvertible { let message: String; var description: String { message } }

    @Test("the JSON API answers as the CLI does, with ETags, problems, request ids and a log line a request")
    func endpoints() async throws {
        let bridget = BridgetProcess()
        let config = try bridget.sampleConfig(days: 30)
        #expect(try bridget.run(["sync", "--config", config]).status == 0)
        let cliBridges = try bridget.run(["bridges", "--config", config, "--format", "json"]).stdout
        let server = try Server(bridget, config: config)

        let (status, headers, body) = try await server.get("/v1/bridges")
        #expect(status == 200 && headers["content-type"] == "application/json")
        #expect(body == cliBridges, "the API's /v1/bridges differs from `bridget bridges --format json`")
        let requestID = try #require(headers["x-request-id"])
        let etag = try #require(headers["etag"])
        let (notModified, _, emptyBody) = try await server.get("/v1/bridges", headers: ["If-None-Match": etag])
        #expect(notModified == 304 && emptyBody.isEmpty)

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
        #expect(try bridget.run(["sync", "--config", config]).status == 0)
        let (afterSync, _, _) = try await server.get("/v1/status", headers: ["If-None-Match": statusTag])
        #expect(afterSync == 200)

        let (exit, log) = server.stop()
        #expect(exit == 0, "SIGTERM should drain and exit 0: \(log)")
        #expect(log.contains("request=\(requestID)") && log.contains("GET /v1/bridges 200"))
        #expect(log.components(separatedBy: "\n").filter { $0.contains(" GET /") }.count == 11, "\(log)")
    }

    @Test("events page with a cursor, stats and forecast answer as events, stats and predict do; bad parameters are 400s")
    func answers() async throws {
        let bridget = BridgetProcess()
        let config = try bridget.sampleConfig(days: 30)
        #expect(try bridget.run(["sync", "--config", config]).status == 0)
        let server = try Server(bridget, config: config)
        defer { _ = server.stop() }
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
        let cli = try bridget.run(["events", "--config", config, "--bridge", "Fremont", "--format", "json"]).stdout
        let cliEvents = try json(cli) as? NSArray
        #expect(pages > 1 && (collected as NSArray) == cliEvents, "pages: \(pages)")

        let (statsStatus, _, statsBody) = try await server.get("/v1/stats?bridge=3&bridge=Ballard&since=2026-06-15")
        let cliStats = try bridget.run(["stats", "--config", config, "--bridge", "3", "--bridge", "Ballard", "--since",
                                        "2026-06-15", "--format", "json"]).stdout
        func withoutTime(_ text: String) throws -> NSDictionary {
            var object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
            object["generatedAt"] = nil // the moment of the answer, which differs
            return object as NSDictionary
        }
        let (api, local) = (try withoutTime(statsBody), try withoutTime(cliStats))
        #expect(statsStatus == 200 && api == local)

        let (forecastStatus, _, forecastBody) = try await server.get("/v1/bridges/3/forecast?at=2026-06-30T17:40&window=20m")
        let cliForecast = try bridget.run(["predict", "--config", config, "--bridge", "3", "--at", "2026-06-30 17:40",
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

    @Test("/readyz answers 503 with a problem when the store cannot be read")
    func notReady() async throws {
        let bridget = BridgetProcess()
        let config = try bridget.sampleConfig(days: 7)
        #expect(try bridget.run(["sync", "--config", config]).status == 0)
        let server = try Server(bridget, config: config)
        // The store file is replaced by garbage under the running server.
        try Data(repeating: 0x41, count: 8192).write(to: URL(fileURLWithPath: bridget.storePath))
        try? FileManager.default.removeItem(atPath: bridget.storePath + "-wal")
        try? FileManager.default.removeItem(atPath: bridget.storePath + "-shm")
        let (status, headers, _) = try await server.get("/readyz")
        _ = server.stop()
        #expect(status == 503 && headers["content-type"] == "application/problem+json", "got \(status)")
    }
    #else
    @Test("a bridget built without the Server trait says how to get `serve`, exit 69")
    func withoutTheTrait() throws {
        let result = try BridgetProcess().run(["serve"])
        #expect(result.status == 69 && result.stderr.contains("swift build --traits Server"))
    }
    #endif
}
