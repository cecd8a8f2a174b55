import Foundation
import BridgetTestSupport
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The API as apps build on it, through the built `bridget serve`: a page on another origin in a real headless
/// Chromium, and every endpoint with a CLI twin answering as the CLI does on the same store.
@Suite("bridget executable: the API for apps")
struct APIForAppsTests {
    @Test("a page on another origin in headless Chromium reads a forecast and the stream; its write dies at the preflight")
    func pageOnAnotherOrigin() async throws {
        let bridget = BridgetProcess()
        let config = try bridget.sampleConfig(days: 30)
        #expect(try await bridget.run(["sync", "--config", config]).status == 0)
        let server = try await ServeTests.Server(bridget, config: config, environment: ["BRIDGET_API_TOKEN": "t0ken"])
        defer { server.terminate() }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", root + "/Scripts/test.d/crossorigin", "--api", server.base.absoluteString,
                             "--token", "t0ken", "--route", "from-elsewhere", "--timeout", "120"]
        let out = bridget.home + "/crossorigin.out"
        _ = FileManager.default.createFile(atPath: out, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: out))
        process.standardError = process.standardOutput
        let watchdog = Task { // a hang detector only: the script bounds each step itself
            try await Task.sleep(for: .seconds(600))
            if process.isRunning { process.terminate() }
        }
        defer { watchdog.cancel() }
        try await process.runToExit()
        let text = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
        try #require(process.terminationStatus == 0, "the browser did not run the page: \(text)")
        struct Seen: Decodable {
            let origin: String
            let forecast: Forecast
            let stream: Stream
            let write: Write
            struct Forecast: Decodable { let status: Int?; let chance: Double? }
            struct Stream: Decodable { let ok: Bool; let event: String?; let lastEventId: String? }
            struct Write: Decodable { let status: Int?; let refused: String? }
        }
        let seen = try JSONDecoder().decode(Seen.self, from: Data((text.split(separator: "\n").last ?? "").utf8))
        #expect(seen.origin != server.base.absoluteString.trimmingCharacters(in: ["/"]), "the page must be elsewhere")
        #expect(seen.forecast.status == 200 && (0...1).contains(seen.forecast.chance ?? -1), "\(text)")
        #expect(seen.stream.ok && seen.stream.event == "bulk" && seen.stream.lastEventId == "1", "\(text)")
        #expect(seen.write.status == nil && seen.write.refused != nil, "the browser should refuse the write: \(text)")
        // The browser asked first and was refused; the write itself never reached the server.
        let (status, _, _) = try await server.get("/v1/routes/from-elsewhere")
        #expect(status == 404)
        let log = server.log
        #expect(log.contains("OPTIONS /v1/routes/from-elsewhere 403") && !log.contains("PUT /v1/routes"), "\(log)")
    }

    @Test("each endpoint with a CLI twin gives the twin's JSON on the same store: stats, status, forecasts, routes, events")
    func sameAnswers() async throws {
        let bridget = BridgetProcess()
        let config = try bridget.sampleConfig(days: 30)
        #expect(try await bridget.run(["sync", "--config", config]).status == 0)
        #expect(try await bridget.run(["route", "add", "commute", "--via", "Fremont@8", "--via", "Ballard/University@15",
                                       "--config", config]).status == 0)
        let server = try await ServeTests.Server(bridget, config: config)
        defer { server.terminate() }
        /// A JSON text without the instant it was made at (the two processes answer a few milliseconds apart).
        func steady(_ text: String) -> String {
            text.replacingOccurrences(of: #""(generatedAt|asOf)" : "[^"]*""#, with: "", options: .regularExpression)
        }
        let pairs: [(String, [String])] = [
            ("/v1/stats?bridge=3&bridge=Ballard&since=2026-06-15", ["stats", "--bridge", "3", "--bridge", "Ballard",
                                                                   "--since", "2026-06-15"]),
            ("/v1/bridges/status?at=2026-06-30T17:40", ["status", "--at", "2026-06-30 17:40"]),
            ("/v1/bridges/3/forecast?at=2026-06-30T17:40&window=20m",
             ["predict", "--bridge", "3", "--at", "2026-06-30 17:40", "--window", "20m"]),
            ("/v1/bridges/3/forecast?at=2026-06-30T15:00&window=3h",
             ["predict", "--bridge", "3", "--at", "2026-06-30 15:00", "--window", "3h"]),
            ("/v1/routes/commute/score?depart=2026-06-30T17:40", ["route", "score", "commute", "--depart", "2026-06-30 17:40"]),
            ("/v1/routes/commute/best-time?between=16:00&and=18:00&date=2026-06-30&step=10m",
             ["route", "best-time", "commute", "--between", "16:00", "18:00", "--date", "2026-06-30", "--step", "10m"]),
        ]
        for (path, command) in pairs {
            let (status, _, body) = try await server.get(path)
            let cli = try await bridget.run(command + ["--config", config, "--format", "json"])
            #expect(status == 200 && cli.status == 0 && steady(body) == steady(cli.stdout),
                    "\(path) differs from `bridget \(command.joined(separator: " "))`:\nAPI \(body)\nCLI \(cli.stdout)")
        }
        // Events: a page's events are the CLI's list.
        let (status, _, body) = try await server.get("/v1/events?bridge=3&bridge=2&since=2026-06-20&limit=1000")
        let cli = try await bridget.run(["events", "--bridge", "3", "--bridge", "2", "--since", "2026-06-20",
                                         "--config", config, "--format", "json"])
        let page = try #require(try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any])
        let listed = try JSONSerialization.jsonObject(with: Data(cli.stdout.utf8)) as? [[String: Any]]
        let events = try #require(page["events"] as? [[String: Any]])
        #expect(status == 200 && page["next"] == nil && !events.isEmpty)
        #expect(try JSONSerialization.data(withJSONObject: events, options: .sortedKeys)
                == JSONSerialization.data(withJSONObject: try #require(listed), options: .sortedKeys))
    }
}
