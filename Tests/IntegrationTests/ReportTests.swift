import Foundation
import GRDB
import Testing

/// `bridget report --out DIR` through the executable: the pages as files, their charts and links, and readable pages
/// for a store with nothing in it.
@Suite("bridget executable: report")
struct ReportTests {
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
        #expect(count("<tr class=\"bridge-row\"", in: index) == 7)
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
        #expect(route.contains("class=\"best\"") && route.contains("Best departure: <strong>"))
        #expect(count("<circle class=\"point\"", in: route) == 91) // 06:00 to 21:00 every 10 minutes

        let quality = try String(contentsOfFile: out + "/quality.html", encoding: .utf8)
        #expect(quality.contains("id=\"reliability\"") && count("<circle class=\"bin\"", in: quality) > 0)
        #expect(quality.contains("Skill per bridge") && count("<tr><th scope=\"row\">", in: quality) == 8) // all, then 7
        #expect(index.contains("href=\"quality.html\"") && index.contains("href=\"routes/school-20run.html\""))
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
        #expect(try await Set(kept().keys) == ["pages.figures", "pages.quality"])
        // Fremont's rows removed behind the store's back (the version kept): the page still shows the kept figures,
        // so it did not read the history.
        let queue = try DatabaseQueue(path: bridget.storePath)
        try await queue.write { db in try db.execute(sql: "DELETE FROM events WHERE bridge_id = '3'") }
        await #expect(try fremontSays() == first)
        // The history's version moves, as every real change moves it: the figures are made again from the history.
        try await queue.write { db in try db.execute(sql: "UPDATE history_version SET version = version + 1") }
        try queue.close()
        await #expect(try fremontSays().contains("No openings of this bridge are stored yet"))
        #expect(try await kept().count == 2)
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
        #expect(count("<circle class=\"point\"", in: route) == 91 && route.contains("<td>South Park</td>"))
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
        #expect(count("no history to forecast from</text>", in: index) == 7 && index.contains("Newest stored opening: <strong>none"))
        let bridge = try String(contentsOfFile: out + "/bridges/3.html", encoding: .utf8)
        #expect(bridge.contains("No openings of this bridge are stored yet.") && bridge.contains("no openings stored"))
        #expect(count("<rect class=\"cell\"", in: bridge) == 168)
        let route = try String(contentsOfFile: out + "/routes/r.html", encoding: .utf8)
        #expect(route.contains("nothing to score this route against"))
        let quality = try String(contentsOfFile: out + "/quality.html", encoding: .utf8)
        #expect(quality.contains("no forecast can be tested"))
        let unwritable = try await bridget.run(["report", "--out", "/proc/bridget-report", "--config", config])
        #expect(unwritable.status == 73 && unwritable.stderr.contains("cannot write"))
    }
}
