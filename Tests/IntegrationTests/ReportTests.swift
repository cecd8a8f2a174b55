import Foundation
import GRDB
import Testing

/// `bridget report --out DIR` through the executable: the pages as files, their charts and links, and readable pages
/// for a store with nothing in it.
@Suite("bridget executable: report")
struct ReportTests {
    /// How many departures a route page says it scores: "from 19:20 to 21:00 every 10 minutes".
    static func departures(_ page: String) -> Int? {
        guard let match = page.range(of: #"from \d\d:\d\d to \d\d:\d\d every 10 minutes"#, options: .regularExpression)
        else { return nil }
        let times = page[match].split(separator: " ").filter { $0.contains(":") }.map { text -> Int in
            let parts = text.split(separator: ":").compactMap { Int($0) }
            return parts[0] * 60 + parts[1]
        }
        return times.count == 2 ? (times[1] - times[0]) / 10 + 1 : nil
    }

    func count(_ needle: String, in text: String) -> Int { text.components(separatedBy: needle).count - 1 }

    @Test("the overview, a page per bridge (168 heatmap cells with tooltips) and per route, links relative")
    func pages() async throws {
        let bridget = BridgetProcess()
        let config = try bridget.sampleConfig(days: 30)
        #expect(try await bridget.run(["sync", "--config", config]).status == 0)
        #expect(try await bridget.run(["route", "add", "school run", "--via", "Fremont/Ballard@8", "--via", "Montlake@20",
                                 "--config", config]).status == 0)
        let out = bridget.home + "/report"
        let result = try await bridget.run(["report", "--out", out, "--config", config])
        #expect(result.status == 0 && result.stdout.contains("wrote 10 pages"), "\(result.stderr)")

        let index = try String(contentsOfFile: out + "/index.html", encoding: .utf8)
        #expect(count("<li class=\"bridge-row\"", in: index) == 7)
        #expect(count("<rect class=\"slot\"", in: index) == 7 * 48)
        #expect(count("class=\"now\"", in: index) == 7)
        #expect(index.contains("href=\"bridges/3.html\"") && !index.contains("href=\"/"))
        #expect(count("<circle class=\"bridge\"", in: index) == 7 && index.contains("America/Los_Angeles"))

        let fremont = try String(contentsOfFile: out + "/bridges/3.html", encoding: .utf8)
        #expect(count("<rect class=\"cell\"", in: fremont) == 168)
        #expect(count("<rect class=\"cell\"", in: fremont) == count("</title></rect>", in: fremont.components(separatedBy: "id=\"months\"")[0]))
        #expect(fremont.contains("Monday 17:00–18:00: ") && fremont.contains("href=\"../index.html\""))
        #expect(fremont.contains("role=\"img\"") && fremont.contains("<desc id=\"heatmap-desc\">"))
        #expect(count("<tr><td>", in: fremont) == 20) // the last 20 openings

        let route = try String(contentsOfFile: out + "/routes/school-20run.html", encoding: .utf8)
        #expect(route.contains("class=\"best\"") && (route.contains(" (today): <strong>")
                                                      || route.contains(" (tomorrow): <strong>")), "\(route.prefix(3_000))")
        // The next commute: 06:00 to 21:00 every 10 minutes, today's from the next departure or tomorrow's whole.
        let departures = try #require(Self.departures(route))
        #expect(count("<circle class=\"point\"", in: route) == departures && (1...91).contains(departures))

        let quality = try String(contentsOfFile: out + "/quality.html", encoding: .utf8)
        #expect(quality.contains("id=\"reliability\"") && count("<circle class=\"bin\"", in: quality) > 0)
        #expect(quality.contains("Skill per bridge") && count("<tr><th scope=\"row\">", in: quality) == 8) // all, then 7
        #expect(index.contains("href=\"quality.html\"") && index.contains("href=\"routes/school-20run.html\""))
        // The forecast, the time of week alone and the average side by side, each with its interval; "beats" only
        // where the interval says so; and what the forecast knows and does not.
        #expect(quality.contains("Time of week alone") && (quality.contains("Skill after a neighbour&#39;s opening")
                || quality.contains("Skill after a neighbour's opening")), "\(quality.prefix(4_000))")
        #expect(quality.range(of: #"[+-]0\.\d{3} \([+-]0\.\d{3} to [+-]0\.\d{3}\)"#, options: .regularExpression) != nil)
        #expect(quality.contains("<p class=\"verdict\">") && quality.contains("It does not know"))
        // Fremont's page lists its rules and the bridges it follows.
        #expect(fremont.contains("Rules and what forecasts know") && fremont.contains("33 CFR 117.1051")
                && fremont.contains("Often follows Ballard"), "\(fremont.components(separatedBy: "Rules and what")[1].prefix(1_500))")
    }

    @Test("pages render from figures kept with the history's version, and a change of the history makes them again")
    func keptFigures() async throws {
        let bridget = BridgetProcess()
        let config = try bridget.sampleConfig(days: 30)
        #expect(try await bridget.run(["sync", "--config", config]).status == 0)
        let out = bridget.home + "/report"
        func fremontSays() async throws -> String {
            let result = try await bridget.run(["report", "--out", out, "--config", config])
            #expect(result.status == 0, "\(result.stderr)")
            let page = try String(contentsOfFile: out + "/bridges/3.html", encoding: .utf8)
            return page.components(separatedBy: "bascule. ").dropFirst().first?.components(separatedBy: "</p>").first ?? ""
        }
        let first = try await fremontSays()
        #expect(first.contains(" openings from "), "\(first)")
        func kept() async throws -> [String: Int64] {
            let queue = try DatabaseQueue(path: bridget.storePath)
            defer { try? queue.close() }
            return try await queue.read { db in
                let version = try Int64.fetchOne(db, sql: "SELECT version FROM history_version") ?? -1
                #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM kept_answers WHERE history_version <> ?",
                                         arguments: [version]) == 0)
                return try Dictionary(uniqueKeysWithValues: Row.fetchAll(db, sql: "SELECT name, history_version FROM kept_answers")
                    .map { ($0[0] as String, $0[1] as Int64) })
            }
        }
        #expect(try await Set(kept().keys) == ["pages.figures", "pages.quality", "pages.provenance"])
        // Fremont's rows removed behind the store's back (the version kept): the page still shows the kept figures,
        // so it did not read the history.
        let queue = try DatabaseQueue(path: bridget.storePath)
        try await queue.write { db in try db.execute(sql: "DELETE FROM events WHERE bridge_id = '3'") }
        await #expect(try fremontSays() == first)
        // The history's version moves, as every real change moves it: the figures are made again from the history.
        try await queue.write { db in try db.execute(sql: "UPDATE history_version SET version = version + 1") }
        try queue.close()
        await #expect(try fremontSays().contains("No openings of this bridge are stored yet"))
        #expect(try await kept().count == 3)
    }

    @Test("a bridge without history among bridges with it: its page says so, and a route over it still scores")
    func bridgeWithoutHistory() async throws {
        let bridget = BridgetProcess()
        let config = try bridget.sampleConfig(days: 30)
        #expect(try await bridget.run(["sync", "--config", config]).status == 0)
        let queue = try DatabaseQueue(path: bridget.storePath)
        try await queue.write { db in
            try db.execute(sql: "DELETE FROM events WHERE bridge_id = '29'; UPDATE history_version SET version = version + 1")
        }
        try queue.close()
        #expect(try await bridget.run(["route", "add", "south", "--via", "South Park@5", "--via", "Fremont@15",
                                 "--config", config]).status == 0)
        let out = bridget.home + "/report"
        let result = try await bridget.run(["report", "--out", out, "--config", config])
        #expect(result.status == 0, "\(result.stderr)")
        let southPark = try String(contentsOfFile: out + "/bridges/29.html", encoding: .utf8)
        #expect(southPark.contains("No openings of this bridge are stored yet.") && count("<rect class=\"cell\"", in: southPark) == 168)
        let route = try String(contentsOfFile: out + "/routes/south.html", encoding: .utf8)
        #expect(count("<circle class=\"point\"", in: route) == Self.departures(route) && route.contains("<td>South Park</td>"))
    }

    @Test("a store with no events gives readable pages, each chart saying why it is empty")
    func emptyStore() async throws {
        let bridget = BridgetProcess()
        let config = try bridget.sampleConfig(days: 7)
        #expect(try await bridget.run(["route", "add", "r", "--via", "Fremont@5", "--config", config]).status == 0)
        let out = bridget.home + "/empty"
        let result = try await bridget.run(["report", "--out", out, "--config", config])
        #expect(result.status == 0, "\(result.stderr)")
        let index = try String(contentsOfFile: out + "/index.html", encoding: .utf8)
        #expect(count("no history to forecast from</text>", in: index) == 7 && index.contains("Newest opening on record: <strong>none"))
        let bridge = try String(contentsOfFile: out + "/bridges/3.html", encoding: .utf8)
        #expect(bridge.contains("No openings of this bridge are stored yet.") && bridge.contains("no openings on record"))
        #expect(count("<rect class=\"cell\"", in: bridge) == 168)
        let route = try String(contentsOfFile: out + "/routes/r.html", encoding: .utf8)
        #expect(route.contains("nothing to score this route against"))
        let quality = try String(contentsOfFile: out + "/quality.html", encoding: .utf8)
        #expect(quality.contains("no forecast can be tested"))
        let unwritable = try await bridget.run(["report", "--out", "/proc/bridget-report", "--config", config])
        #expect(unwritable.status == 73 && unwritable.stderr.contains("cannot write"))
    }

    @Test("report cannot destroy: an empty --out is a usage error; a file it did not write stops it before anything is written; long route names fit a file name; pages of removed routes go, other files stay; a failed run leaves the last report")
    func cannotDestroy() async throws {
        let bridget = BridgetProcess()
        let config = try bridget.sampleConfig(days: 14)
        #expect(try await bridget.run(["sync", "--config", config]).status == 0)

        // An empty --out would be the current folder: refused, and nothing written there.
        let before = try FileManager.default.contentsOfDirectory(atPath: bridget.home).sorted()
        for empty in ["", "  "] {
            let refused = try await bridget.run(["report", "--out", empty, "--config", config])
            #expect(refused.status == 64 && refused.stderr.contains("--out"), "\(refused.stderr)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: bridget.home).sorted()
                .filter { !$0.hasPrefix(".std") } == before.filter { !$0.hasPrefix(".std") })

        // A project's folder with its own index.html: refused before any page is written, the file as it was.
        let project = bridget.home + "/project"
        try FileManager.default.createDirectory(atPath: project, withIntermediateDirectories: true)
        try "<h1>my project</h1>".write(toFile: project + "/index.html", atomically: true, encoding: .utf8)
        let foreign = try await bridget.run(["report", "--out", project, "--config", config])
        #expect(foreign.status == 73 && foreign.stderr.contains("was not written by bridget report"), "\(foreign.stderr)")
        #expect(try String(contentsOfFile: project + "/index.html", encoding: .utf8) == "<h1>my project</h1>")
        #expect(try FileManager.default.contentsOfDirectory(atPath: project) == ["index.html"])

        // A 200-character route name of 3-byte letters (600 bytes as UTF-8) fits a file name, and is linked.
        let long = String(repeating: "橋", count: 200)
        #expect(try await bridget.run(["route", "add", long, "--via", "Fremont@8", "--config", config]).status == 0)
        #expect(try await bridget.run(["route", "add", "gone soon", "--via", "Ballard@5", "--config", config]).status == 0)
        let out = bridget.home + "/report"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        try "mine".write(toFile: out + "/notes.txt", atomically: true, encoding: .utf8)
        let first = try await bridget.run(["report", "--out", out, "--config", config])
        #expect(first.status == 0, "\(first.stderr)")
        let routes = try FileManager.default.contentsOfDirectory(atPath: out + "/routes").sorted()
        #expect(routes.count == 2 && routes.allSatisfy { $0.utf8.count <= 255 }, "\(routes)")
        let index = try String(contentsOfFile: out + "/index.html", encoding: .utf8)
        #expect(routes.allSatisfy { index.contains("routes/" + ($0.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? $0)) },
                "the overview does not link every route page")

        // The route removed: its page goes on the next report; the user's file stays; nothing is left staged.
        #expect(try await bridget.run(["route", "remove", "gone soon", "--config", config]).status == 0)
        let second = try await bridget.run(["report", "--out", out, "--config", config])
        #expect(second.status == 0 && second.stdout.contains("removed 1"), "\(second.stdout) \(second.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out + "/routes/gone-20soon.html"))
        #expect(try String(contentsOfFile: out + "/notes.txt", encoding: .utf8) == "mine")
        #expect(try FileManager.default.contentsOfDirectory(atPath: bridget.home).allSatisfy { !$0.contains(".writing-") })

        // A run that fails (the store damaged) leaves the last report as it was.
        let kept = try String(contentsOfFile: out + "/index.html", encoding: .utf8)
        for side in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: bridget.storePath + side) }
        try Data(repeating: 0x41, count: 65_536).write(to: URL(fileURLWithPath: bridget.storePath))
        let failed = try await bridget.run(["report", "--out", out, "--config", config])
        #expect(failed.status != 0)
        #expect(try String(contentsOfFile: out + "/index.html", encoding: .utf8) == kept)
        #expect(try FileManager.default.contentsOfDirectory(atPath: out + "/routes").count == 1)
    }
}
