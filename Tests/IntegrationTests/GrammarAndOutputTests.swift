import BridgetDTOs
import Foundation
import GRDB
import Testing

/// Issue 18 through the built executable: machine forms that carry every row and one fact per row, one grammar for
/// times and filters, answers a commuter can act on, and messages that say what to do.
@Suite("bridget executable: one grammar, trustworthy output")
struct GrammarAndOutputTests {
    /// A synced sample store of `days` days ending 2026-06-30 (a Tuesday), with the clock of the sample's end.
    func synced(days: Int = 60) async throws -> (BridgetProcess, String) {
        let bridget = BridgetProcess()
        let config = try bridget.sampleConfig(days: days)
        let sync = try await bridget.run(["sync", "--config", config])
        #expect(sync.status == 0, "\(sync.stderr)")
        return (bridget, config)
    }

    func storedCount(_ bridget: BridgetProcess, _ sql: String) throws -> Int {
        try DatabaseQueue(path: bridget.storePath).read { try Int.fetchOne($0, sql: sql) ?? -1 }
    }

    /// CSV records (no quoted commas in these outputs), header first.
    func csv(_ text: String) -> [[String]] {
        text.split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
    }

    @Test("events: CSV, JSON and a piped table carry every matching row; a --limit that holds rows back says so")
    func eventsCarryEverything() async throws {
        let (bridget, config) = try await synced()
        let fremont = try storedCount(bridget, "SELECT count(*) FROM events WHERE bridge_id = '3'")
        #expect(fremont > 20)
        let all = try await bridget.run(["events", "--config", config, "--bridge", "Fremont", "--format", "csv"])
        #expect(all.status == 0 && csv(all.stdout).count == fremont + 1 && all.stderr.isEmpty, "\(all.stderr)")
        let json = try await bridget.run(["events", "--config", config, "--bridge", "Fremont", "--format", "json"])
        #expect(try decodeJSON([EventRow].self, json.stdout).count == fremont)
        // A table written to a file (not a terminal) is not cut at 20 either.
        let table = try await bridget.run(["events", "--config", config, "--bridge", "Fremont"])
        #expect(table.stdout.split(separator: "\n").count == fremont + 2)
        let limited = try await bridget.run(["events", "--config", config, "--bridge", "Fremont", "--limit", "5", "--format", "csv"])
        #expect(csv(limited.stdout).count == 6)
        #expect(limited.stderr == "note: more openings match than the 5 listed; --limit 0 lists them all\n")
        // The largest --limit is all of them, not an overflow (one more is asked for, to know whether more exist).
        let huge = try await bridget.run(["events", "--config", config, "--bridge", "Fremont", "--limit", String(Int.max),
                                    "--format", "csv"])
        #expect(huge.status == 0 && csv(huge.stdout).count == fremont + 1, "\(huge.stderr)")
    }

    @Test("--bridge repeats the same way in events, export and anomalies; only those bridges come back")
    func repeatedBridges() async throws {
        let (bridget, config) = try await synced()
        let expected = try storedCount(bridget, "SELECT count(*) FROM events WHERE bridge_id IN ('3', '4')")
        let events = try await bridget.run(["events", "--config", config, "--bridge", "Fremont", "--bridge", "Montlake",
                                      "--format", "json"])
        let rows = try decodeJSON([EventRow].self, events.stdout)
        #expect(rows.count == expected && Set(rows.map(\.bridgeID)) == ["3", "4"])
        #expect(zip(rows, rows.dropFirst()).allSatisfy { $0.openedAt >= $1.openedAt }) // merged, newest first
        let export = try await bridget.run(["export", "--config", config, "--bridge", "3", "--bridge", "Montlake",
                                      "--format", "csv"])
        #expect(csv(export.stdout).count == expected + 1)
        let anomalies = try await bridget.run(["anomalies", "--config", config, "--bridge", "3", "--bridge", "4",
                                         "--limit", "0", "--format", "json"])
        struct Anomaly: Decodable { let bridgeID: String }
        #expect(try decodeJSON([Anomaly].self, anomalies.stdout).allSatisfy { ["3", "4"].contains($0.bridgeID) })
    }

    @Test("stats and cascades take the same --bridge/--since/--until: figures from those openings only")
    func analysisFilters() async throws {
        let (bridget, config) = try await synced(days: 90)
        let rows = try storedCount(bridget, """
            SELECT count(*) FROM events WHERE bridge_id IN ('3', '4')
              AND opened_at >= '2026-05-01T07:00:00.000Z' AND opened_at < '2026-06-01T07:00:00.000Z'
            """)
        struct Stats: Decodable {
            struct Bridge: Decodable { let bridgeID: String; let rows: Int }
            let totalRows: Int
            let firstDay: String?
            let lastDay: String?
            let bridges: [Bridge]
        }
        for processor in ["serial", "parallel"] {
            let result = try await bridget.run(["stats", "--config", config, "--bridge", "Fremont", "--bridge", "Montlake",
                                          "--since", "2026-05-01", "--until", "2026-06-01", "--format", "json"],
                                         environment: ["BRIDGET_PROCESSOR_KIND": processor])
            #expect(result.status == 0, "\(result.stderr)")
            let stats = try decodeJSON(Stats.self, result.stdout)
            #expect(stats.totalRows == rows && stats.bridges.map(\.bridgeID) == ["3", "4"], "\(processor)")
            #expect(stats.firstDay?.hasPrefix("2026-05") == true && stats.lastDay?.hasPrefix("2026-05") == true)
        }
        let cascades = try await bridget.run(["cascades", "--config", config, "--bridge", "3", "--bridge", "4", "--bridge", "2",
                                        "--since", "2026-05-01", "--all", "--min-count", "1", "--format", "json"])
        struct Pair: Decodable { let fromBridgeID: String; let toBridgeID: String }
        let pairs = try decodeJSON([Pair].self, cascades.stdout)
        #expect(!pairs.isEmpty && pairs.allSatisfy { ["2", "3", "4"].contains($0.fromBridgeID) && ["2", "3", "4"].contains($0.toBridgeID) })
    }

    @Test("--since is inclusive and --until exclusive everywhere: a day is --since D --until D+1")
    func halfOpenRanges() async throws {
        let (bridget, config) = try await synced()
        let day = try storedCount(bridget, "SELECT count(*) FROM events WHERE open_local LIKE '2026-06-29T%'")
        let events = try await bridget.run(["events", "--config", config, "--since", "2026-06-29", "--until", "2026-06-30",
                                      "--format", "json"])
        let rows = try decodeJSON([EventRow].self, events.stdout)
        #expect(rows.count == day && rows.allSatisfy { $0.openLocal.hasPrefix("2026-06-29T") })
        let export = try await bridget.run(["export", "--config", config, "--since", "2026-06-29", "--until", "2026-06-30",
                                      "--format", "csv"])
        #expect(csv(export.stdout).count == day + 1)
        let empty = try await bridget.run(["events", "--config", config, "--since", "2026-06-29", "--until", "2026-06-29"])
        #expect(empty.status == 64 && empty.stderr.contains("the range is empty")
                && empty.stderr.contains("--until is exclusive"), "\(empty.stderr)")
    }

    @Test("every time form is accepted where a time is read: 17:40, 7:00, now, 30d, +2h")
    func timeForms() async throws {
        let (bridget, config) = try await synced()
        #expect(try await bridget.run(["route", "add", "commute", "--config", config, "--via", "Fremont/Ballard@8",
                                 "--via", "Montlake@22"]).status == 0)
        for arguments in [["predict", "--bridge", "Fremont", "--at", "17:40"],
                          ["predict", "--bridge", "Fremont", "--at", "+2h"],
                          ["route", "score", "commute", "--depart", "17:40"],
                          ["route", "best-time", "commute", "--between", "7:00", "9:30"],
                          ["events", "--since", "30d", "--until", "now"],
                          ["export", "--since", "2026-06-01 07:00", "--until", "2026-06-02"],
                          ["prune", "--before", "3650d"]] {
            let result = try await bridget.run(arguments + ["--config", config])
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
        }
        let bad = try await bridget.run(["predict", "--config", config, "--bridge", "Fremont", "--at", "teatime"])
        #expect(bad.status == 64 && bad.stderr.contains("--at 'teatime' is not a time")
                && bad.stderr.contains("a time of day (17:40, 7:05)"), "\(bad.stderr)")
    }

    @Test("predict --on mon-fri answers one row per weekday at that time, in CSV with ids, instants and raw numbers")
    func recurringSlot() async throws {
        let (bridget, config) = try await synced()
        let result = try await bridget.run(["predict", "--config", config, "--bridge", "Fremont", "--at", "2026-07-06 17:40",
                                      "--on", "mon-fri", "--format", "csv"])
        #expect(result.status == 0, "\(result.stderr)")
        let records = csv(result.stdout)
        #expect(records.first == ["bridge_id", "bridge", "at", "at_local", "window_minutes", "chance_of_opening",
                                  "base_chance_of_opening", "chance_open_on_arrival", "expected_delay_minutes",
                                  "wait_if_open_minutes", "sample_starts", "sample_occurrences"])
        let rows = records.dropFirst()
        #expect(rows.map { $0[3] } == ["2026-07-06T17:40:00", "2026-07-07T17:40:00", "2026-07-08T17:40:00",
                                       "2026-07-09T17:40:00", "2026-07-10T17:40:00"])
        #expect(rows.map { $0[2] } == ["2026-07-07T00:40:00Z", "2026-07-08T00:40:00Z", "2026-07-09T00:40:00Z",
                                       "2026-07-10T00:40:00Z", "2026-07-11T00:40:00Z"])
        #expect(rows.allSatisfy { $0[0] == "3" && $0[5...9].allSatisfy { Double($0) != nil } })
        let weekdays = try await bridget.run(["predict", "--config", config, "--bridge", "Fremont", "--at", "2026-07-06 17:40",
                                        "--weekdays"])
        #expect(weekdays.stdout.contains("Mon 2026-07-06") && weekdays.stdout.contains("Fri 2026-07-10")
                && !weekdays.stdout.contains("Sat") && weekdays.stdout.contains("on average a"), "\(weekdays.stdout)")
    }

    @Test("predict tells the wait if the bridge is open on arrival, beside the expected delay; one local form in JSON")
    func predictWait() async throws {
        let (bridget, config) = try await synced()
        let table = try await bridget.run(["predict", "--config", config, "--bridge", "Fremont", "--at", "2026-06-30 17:40"])
        #expect(table.stdout.contains("expected delay") && table.stdout.contains("wait if it is open on arrival"))
        let json = try await bridget.run(["predict", "--config", config, "--bridge", "Fremont", "--at", "2026-06-30 17:40",
                                    "--format", "json"])
        struct Output: Decodable {
            struct Forecast: Decodable { let at: String; let expectedDelayMinutes: Double; let chanceOpenOnArrival: Double }
            struct Slot: Decodable { let from: String }
            let forecast: Forecast
            let atLocal: String
            let atInstant: Date
            let waitIfOpenMinutes: Double
            let lastSimilarSlots: [Slot]
        }
        let output = try decodeJSON(Output.self, json.stdout)
        #expect(output.forecast.at == "2026-06-30T17:40:00" && output.atLocal == "2026-06-30T17:40:00")
        #expect(ISO8601DateFormatter().string(from: output.atInstant) == "2026-07-01T00:40:00Z")
        #expect(output.lastSimilarSlots.first?.from == "2026-06-23T17:40:00")
        #expect(output.waitIfOpenMinutes > 1 && output.waitIfOpenMinutes < 30)
        #expect(abs(output.forecast.expectedDelayMinutes
                    - output.forecast.chanceOpenOnArrival * output.waitIfOpenMinutes) < 1e-9)
    }

    @Test("route score and anomalies CSV: one row per fact with ids, instants and raw numbers")
    func machineForms() async throws {
        let (bridget, config) = try await synced(days: 90)
        #expect(try await bridget.run(["route", "add", "commute", "--config", config, "--via", "Fremont/Ballard@8",
                                 "--via", "Montlake@22"]).status == 0)
        let score = csv(try await bridget.run(["route", "score", "commute", "--config", config, "--depart", "2026-06-30 16:50",
                                         "--format", "csv"]).stdout)
        #expect(score.first == ["route", "depart", "depart_local", "crossing", "arrive_local", "bridge_id", "bridge", "best",
                                "chance_open_on_arrival", "chance_of_opening", "expected_delay_minutes",
                                "route_expected_delay_minutes"])
        #expect(score.count == 4 && score.dropFirst().allSatisfy {
            $0[0] == "commute" && $0[1] == "2026-06-30T23:50:00Z" && $0[2] == "2026-06-30T16:50:00"
        })
        #expect(score.dropFirst().map { $0[5] } == ["3", "2", "4"]) // Fremont or Ballard, then Montlake
        #expect(score.dropFirst().filter { $0[7] == "true" }.count == 2) // one best per crossing
        #expect(score.dropFirst().allSatisfy { $0[8...11].allSatisfy { Double($0) != nil } && !$0.joined().contains("%") })
        let anomalies = csv(try await bridget.run(["anomalies", "--config", config, "--limit", "0", "--format", "csv"]).stdout)
        #expect(anomalies.first == ["bridge_id", "bridge", "opened_at", "open_local", "duration_minutes", "reasons",
                                    "p99_minutes", "slot_chance"])
        #expect(anomalies.count > 1 && anomalies.dropFirst().allSatisfy { row in
            row[2].hasSuffix("Z") && row[3].count == 19 && Double(row[7]) != nil
        })
    }

    @Test("the CSV of every other answer: a header, ids in every row, raw numbers", arguments: [
        (["stats"], "id,bridge,openings,per_day,mean_min,median_min,p90_min,max_min,busiest_hour", [0], [2, 3, 4]),
        (["bridges"], "id,name,waterway,kind,openings,rows,last_opening", [0], [4, 5]),
        (["backtest"], "window_minutes,bridge_id,bridge,test_from,test_until,points,openings,brier,brier_climatology,"
            + "log_loss,log_loss_climatology,skill,skill_low,skill_high,slot_skill,slot_skill_low,slot_skill_high,"
            + "after_neighbour_points,after_neighbour_skill,after_neighbour_skill_low,after_neighbour_skill_high,"
            + "after_neighbour_slot_skill,after_neighbour_reliability_error", [0],
         [0, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17]),
        (["patterns", "--bridge", "Fremont"], "bridge_id,bridge,by,value,openings", [0], [4]),
        (["cascades", "--all"], "from_bridge_id,from_bridge,to_bridge_id,to_bridge,within_minutes,count,expected,lift,"
            + "z_score", [0, 2], [4, 5, 6, 7, 8]),
        (["route", "list"], "route,favorite,crossing,minutes_from_start,bridge_ids", [0, 4], [2, 3]),
    ])
    func csvForms(_ command: [String], _ header: String, _ idColumns: [Int], _ numberColumns: [Int]) async throws {
        let (bridget, config) = try await synced(days: 90)
        #expect(try await bridget.run(["route", "add", "commute", "--config", config, "--via", "Fremont/Ballard@8"]).status == 0)
        let result = try await bridget.run(command + ["--config", config, "--format", "csv"])
        #expect(result.status == 0, "\(command): \(result.stderr)")
        let records = csv(result.stdout)
        #expect(records.first?.joined(separator: ",") == header, "\(command)")
        #expect(records.count > 1, "\(command)")
        for row in records.dropFirst() {
            #expect(row.count == records[0].count, "\(command): \(row)")
            #expect(idColumns.allSatisfy { !row[$0].isEmpty }, "\(command): \(row)")
            #expect(numberColumns.allSatisfy { row[$0].isEmpty || Double(row[$0]) != nil }, "\(command): \(row)")
        }
    }

    @Test("a command that answers for one bridge refuses a repeated --bridge instead of keeping the last")
    func oneBridgeCommands() async throws {
        let bridget = BridgetProcess()
        for command in [["predict"], ["patterns"]] {
            let result = try await bridget.run(command + ["--bridge", "Fremont", "--bridge", "Ballard"])
            #expect(result.status == 64 && result.stderr.contains("answers for one bridge at a time; --bridge was given 2 times"),
                    "\(command): \(result.stderr)")
        }
    }

    @Test("backtest needs no dates: the last quarter is held out, and one plain sentence judges the forecasts")
    func backtestDefault() async throws {
        let (bridget, config) = try await synced(days: 120)
        let result = try await bridget.run(["backtest", "--config", config])
        #expect(result.status == 0, "\(result.stderr)")
        // 120 days from 2026-03-03: the test period is the last 30, from 2026-06-01.
        #expect(result.stderr.contains("testing on the last quarter of the history (92 days at most), from 2026-06-01"))
        #expect(result.stdout.contains("Forecasts beat the"), "\(result.stdout)")
        #expect(result.stdout.contains("off by at most") && result.stdout.contains("95%") && result.stdout.contains("skill: how much lower"), "\(result.stdout)")
    }

    @Test("backtest takes the history filters: --bridge scores those bridges, --until is --test-until; a late cut says why")
    func backtestFilters() async throws {
        let (bridget, config) = try await synced(days: 120)
        struct Result: Decodable {
            struct Window: Decodable { struct Score: Decodable { let bridgeID: String? }; let bridges: [Score] }
            let testFrom: String
            let testUntil: String
            let windows: [Window]
        }
        let one = try await bridget.run(["backtest", "--config", config, "--bridge", "Fremont", "--format", "json"])
        #expect(try decodeJSON(Result.self, one.stdout).windows.allSatisfy { $0.bridges.map(\.bridgeID) == ["3"] })
        let viaUntil = try decodeJSON(Result.self, try await bridget.run(
            ["backtest", "--config", config, "--train-until", "2026-06-01", "--until", "2026-06-15", "--format", "json"]).stdout)
        let viaTest = try decodeJSON(Result.self, try await bridget.run(
            ["backtest", "--config", config, "--train-until", "2026-06-01", "--test-until", "2026-06-15", "--format", "json"]).stdout)
        #expect(viaUntil.testUntil == "2026-06-15" && viaTest.testUntil == "2026-06-15" && viaUntil.testFrom == "2026-06-01")
        let late = try await bridget.run(["backtest", "--config", config, "--train-until", "2027-01-01"])
        #expect(late.status == 64 && late.stderr.contains("is after the stored history (2026-03-03 to 2026-06-30)"),
                "\(late.stderr)")
    }

    @Test("an empty store says so and says to sync, wherever an answer needs history")
    func emptyStore() async throws {
        let bridget = BridgetProcess()
        let config = try bridget.sampleConfig()
        // A store that exists and holds nothing (prune writes one).
        #expect(try await bridget.run(["prune", "--config", config, "--before", "2000-01-01"]).status == 0)
        for arguments in [["predict", "--bridge", "3"], ["backtest"], ["cascades"], ["anomalies"], ["patterns", "--bridge", "3"]] {
            let result = try await bridget.run(arguments + ["--config", config])
            #expect(result.status == 66, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains("holds no openings yet") && result.stderr.contains("run `bridget sync`"),
                    "\(arguments): \(result.stderr)")
        }
    }

    @Test("a local time the clocks skip or repeat is answered by one rule, and the answer says so")
    func daylightSavingRule() async throws {
        let (bridget, config) = try await synced()
        let gap = try await bridget.run(["predict", "--config", config, "--bridge", "Fremont", "--at", "2027-03-14 02:30",
                                   "--format", "json"])
        #expect(gap.status == 0 && gap.stderr.contains("does not exist") && gap.stderr.contains("03:30 PDT"))
        struct Output: Decodable { let atLocal: String }
        #expect(try decodeJSON(Output.self, gap.stdout).atLocal == "2027-03-14T03:30:00")
        let twice = try await bridget.run(["predict", "--config", config, "--bridge", "Fremont", "--at", "2026-11-01 01:30"])
        #expect(twice.stderr.contains("occurs twice") && twice.stderr.contains("01:30 PDT"), "\(twice.stderr)")
    }

    @Test("best-time: delays the same to a hundredth of a minute tie and the earliest ranks first; skipped local times are left out")
    func bestTimeTiesAndGaps() async throws {
        let (bridget, config) = try await synced()
        #expect(try await bridget.run(["route", "add", "night", "--config", config, "--via", "Fremont@5"]).status == 0)
        // At night the chance of a delay is nearly nil: every departure ties, so time order decides.
        let night = try await bridget.run(["route", "best-time", "night", "--config", config, "--date", "2027-03-14",
                                     "--between", "0:30", "4:00", "--step", "30m", "--top", "0", "--format", "csv"])
        #expect(night.status == 0, "\(night.stderr)")
        let departures = csv(night.stdout).dropFirst().map { $0[3] }
        #expect(departures == ["2027-03-14T00:30:00", "2027-03-14T01:00:00", "2027-03-14T01:30:00",
                               "2027-03-14T03:00:00", "2027-03-14T03:30:00", "2027-03-14T04:00:00"])
        #expect(night.stderr.contains("02:00, 02:30 do not exist on 2027-03-14"), "\(night.stderr)")
        let table = try await bridget.run(["route", "best-time", "night", "--config", config, "--date", "2027-03-14",
                                     "--between", "0:30", "4:00", "--step", "30m"])
        // The tie is said as the range of equally good departures, the clocks' gap splitting it.
        #expect(table.stdout.contains("Best: any of 6 departures, 00:30–01:30 and 03:00–04:00, 0.0")
                && table.stdout.contains("(the same to a hundredth of a minute")
                && table.stdout.contains("Left out: 02:00, 02:30"), "\(table.stdout)")
        let json = try await bridget.run(["route", "best-time", "night", "--config", config, "--date", "2027-03-14",
                                          "--between", "0:30", "4:00", "--step", "30m", "--format", "json"])
        struct Ranked: Decodable { let departure: String; let tiesWithBest: Bool? }
        let ranked = try decodeJSON([Ranked].self, json.stdout)
        #expect(ranked.count == 6 && ranked.allSatisfy { $0.tiesWithBest == true }, "\(json.stdout.prefix(300))")
    }

    @Test("predict --on names every day that shares the likeliest chance, or says they are the same")
    func predictTies() async throws {
        let (bridget, config) = try await synced()
        // At 03:00 every working day's chance is within half a point of the others' (a week without a holiday).
        let night = try await bridget.run(["predict", "--config", config, "--bridge", "Fremont", "--at",
                                           "2026-07-06 03:00", "--on", "mon-fri"])
        #expect(night.status == 0 && night.stdout.contains("the same on every one of them (within half a point)"),
                "\(night.stdout)")
        #expect(!night.stdout.contains("most likely on"))
        // At 12:00 the weekend is busier than the working days: the sentence names the likeliest day or days, all
        // of them.
        let noon = try await bridget.run(["predict", "--config", config, "--bridge", "Fremont", "--at",
                                          "2026-07-06 12:00", "--on", "daily", "--format", "json"])
        struct Day: Decodable { let forecast: ForecastDTO }
        let days = try decodeJSON([Day].self, noon.stdout).map(\.forecast)
        let top = try #require(days.map(\.chanceOfOpening).max())
        let names = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let likeliest = days.filter { top - $0.chanceOfOpening < 0.005 }.map { names[(FloatingTimestamp($0.at + ".000")?.weekday ?? 1) - 1] }
        let table = try await bridget.run(["predict", "--config", config, "--bridge", "Fremont", "--at",
                                           "2026-07-06 12:00", "--on", "daily"])
        let named = try #require(table.stdout.components(separatedBy: "most likely on ").dropFirst().first)
        for name in likeliest { #expect(named.hasPrefix(name) || named.contains(", \(name)") || named.contains(" and \(name)")) }
        #expect(likeliest.count < 7)
    }

    @Test("patterns count the week from Monday, as the heatmap; bridges and stats name rows against openings")
    func weeksAndRows() async throws {
        let (bridget, config) = try await synced()
        let patterns = try await bridget.run(["patterns", "--config", config, "--bridge", "Fremont"])
        #expect(patterns.stdout.contains("By weekday: Mon "), "\(patterns.stdout)")
        let rows = try storedCount(bridget, "SELECT count(*) FROM events")
        let bridges = try await bridget.run(["bridges", "--config", config])
        let stats = try await bridget.run(["stats", "--config", config])
        let openings = try #require(stats.stdout.split(separator: "\n").last { $0.contains(" openings over ") }?
            .split(separator: " ").first)
        #expect(bridges.stdout.contains("\(openings) openings from \(rows) rows on record: rows of a bridge less than 2 min "
                                        + "apart (analysis.merge_gap_minutes) are one opening, as `bridget stats` counts them."),
                "\(bridges.stdout)")
        #expect(stats.stdout.contains("from \(rows) rows on record: rows of a bridge less than 2 min apart are one opening."),
                "\(stats.stdout)")
        #expect(stats.stdout.contains("Rows on record: \(rows) published by the source."), "\(stats.stdout)")
        // The rows' origins follow the filters the figures are printed under, and the times are the store's zone's.
        let fremontRows = try storedCount(bridget, "SELECT count(*) FROM events WHERE bridge_id = '3' AND open_local >= '2026-06-01'")
        let fremont = try await bridget.run(["stats", "--config", config, "--bridge", "Fremont", "--since", "2026-06-01"])
        #expect(fremont.stdout.contains("Rows on record: \(fremontRows) published by the source."), "\(fremont.stdout)")
        #expect(fremont.stdout.contains("America/Los_Angeles time") && !fremont.stdout.contains(" 1 days"))
    }

    @Test("review mends: anomalies carry every row, filters that match nothing say so, arrivals cross the spring gap")
    func reviewMends() async throws {
        let (bridget, config) = try await synced()
        let all = try await bridget.run(["anomalies", "--config", config, "--limit", "0", "--format", "csv"])
        let piped = try await bridget.run(["anomalies", "--config", config, "--format", "csv"])
        #expect(csv(piped.stdout).count == csv(all.stdout).count && csv(all.stdout).count > 21, "\(piped.stderr)")
        let nothing = try await bridget.run(["stats", "--config", config, "--since", "2030-01-01"])
        #expect(nothing.stdout.contains("No stored opening matches --bridge, --since and --until."), "\(nothing.stdout)")
        let june = try await bridget.run(["patterns", "--config", config, "--bridge", "Fremont", "--since", "2026-06-01",
                                    "--until", "2026-06-02", "--format", "json"])
        struct Patterns: Decodable { let openings: Int }
        let count = try storedCount(bridget, "SELECT count(*) FROM events WHERE bridge_id = '3' AND open_local LIKE '2026-06-01T%'")
        #expect(try decodeJSON(Patterns.self, june.stdout).openings <= count && count > 0)
        for (days, message) in [([",", "--on"], "names no weekday"), (["sat", "--on", "--weekdays"], "not both")] {
            var arguments = ["predict", "--config", config, "--bridge", "3", days[1], days[0]]
            if days.count == 3 { arguments.append(days[2]) }
            let refused = try await bridget.run(arguments)
            #expect(refused.status == 64 && refused.stderr.contains(message), "\(arguments): \(refused.stderr)")
        }
        // Time passes in seconds: leaving at 01:55 on the spring-forward day, 8 minutes on, arrives at 03:03.
        #expect(try await bridget.run(["route", "add", "gap", "--config", config, "--via", "Fremont@8"]).status == 0)
        let score = try await bridget.run(["route", "score", "gap", "--config", config, "--depart", "2027-03-14 01:55",
                                     "--format", "json"])
        struct Score: Decodable { struct Crossing: Decodable { let arrival: String }; let crossings: [Crossing] }
        #expect(try decodeJSON(Score.self, score.stdout).crossings.first?.arrival == "2027-03-14T03:03:00", "\(score.stderr)")
        let compare = try await bridget.run(["route", "compare", "gap", "gap2", "--config", config, "--date", "2027-03-14",
                                       "--between", "1:30", "3:30", "--step", "30m"])
        #expect(compare.status == 64) // gap2 does not exist
        #expect(try await bridget.run(["route", "add", "gap2", "--config", config, "--via", "Ballard@8"]).status == 0)
        let both = try await bridget.run(["route", "compare", "gap", "gap2", "--config", config, "--date", "2027-03-14",
                                    "--between", "1:30", "3:30", "--step", "30m"])
        #expect(both.stdout.contains("Left out: 02:00, 02:30, which the clocks skip on 2027-03-14."), "\(both.stdout)")
        // route import takes bridge names as route add does, and an empty list.
        let named = try bridget.write("named.yaml", "routes:\n  - name: named\n    crossings:\n      - bridges: [Fremont]\n        minutes: 5\n")
        #expect(try await bridget.run(["route", "import", named, "--config", config]).status == 0)
        let shown = try await bridget.run(["route", "show", "named", "--config", config, "--format", "csv"])
        #expect(shown.stdout == "route,favorite,crossing,minutes_from_start,bridge_ids\nnamed,false,1,5.0,3\n", "\(shown.stdout)")
        let empty = try bridget.write("empty.yaml", "routes:\n")
        #expect(try await bridget.run(["route", "import", empty, "--config", config]).stdout.contains("imported 0 routes"))
    }

    @Test("an unknown command gets the nearest name and exit 64, at the top, after help, and below")
    func unknownCommands() async throws {
        let bridget = BridgetProcess()
        let stat = try await bridget.run(["stat"])
        #expect(stat.status == 64 && stat.stderr.hasPrefix("error: 'stat' is not a command of `bridget`; did you mean 'stats'?"))
        let help = try await bridget.run(["help", "nosuch"])
        #expect(help.status == 64 && help.stderr.contains("'nosuch' is not a command") && help.stdout.isEmpty)
        let nested = try await bridget.run(["route", "scroe", "commute"])
        #expect(nested.status == 64 && nested.stderr.contains("did you mean 'score'?"))
        #expect(try await bridget.run(["help", "stats"]).status == 0)
    }

    @Test("a table on a 60-column terminal fits it, names what it left out, and shows 20 rows; a pipe gets them all")
    func tablesFitTheTerminal() async throws {
        let (bridget, config) = try await synced()
        // A real terminal: util-linux `script` runs the command on a pseudo-terminal (Debian's bsdutils, always there).
        let command = "COLUMNS=60 '\(BridgetProcess.executable)' events --config '\(config)' --bridge Fremont"
        let result = try await bridget.run(["-q", "-e", "-c", command, "/dev/null"], executable: "/usr/bin/script")
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.replacingOccurrences(of: "\r", with: "").split(separator: "\n")
        let table = lines.filter { !$0.hasPrefix("note:") }
        #expect(table.allSatisfy { $0.count <= 60 }, "\(table.filter { $0.count > 60 })")
        #expect(table.first == "bridge   opened                closed                minutes", "\(table)")
        // Header, rule, 20 rows, then what was left out, wrapped to the width.
        #expect(table.count == 2 + 20 + 2, "\(table)")
        let leftOut: String = table.suffix(2).joined(separator: " ")
        #expect(leftOut == "(minutes_open, bridge_id, status left out to fit 60 columns; --format csv carries every column)")
        #expect(lines.contains { $0.hasPrefix("note: more openings match than the 20 listed") })
    }

    @Test("help on a 60-column terminal never splits an example command: continuation lines are indented")
    func helpExamplesFit() async throws {
        let bridget = BridgetProcess()
        let commands = [[], ["sync"], ["import"], ["export"], ["events"], ["predict"], ["route"], ["route", "add"],
                        ["backtest"], ["anomalies"], ["cascades"], ["stats"], ["bridges"], ["status"], ["alert"],
                        ["alert", "add"], ["prune"]]
        for command in commands {
            let help = try await bridget.run(command + ["--help"], environment: ["COLUMNS": "60"])
            #expect(help.status == 0)
            let lines = help.stdout.split(separator: "\n", omittingEmptySubsequences: false)
            for (line, next) in zip(lines, lines.dropFirst()) where line.hasPrefix("  bridget ") {
                #expect(next.isEmpty || next.hasPrefix(" ") || next.hasSuffix(":"),
                        "\(command): '\(line)' continues at the margin as '\(next)'")
            }
        }
    }

    @Test("help prints each default once")
    func helpDefaults() async throws {
        let bridget = BridgetProcess()
        for command in [["predict"], ["cascades"], ["anomalies"], ["events"], ["route", "best-time"], ["backtest"]] {
            let help = try await bridget.run(command + ["--help"])
            #expect(help.status == 0)
            let joined = help.stdout.replacingOccurrences(of: "\n", with: " ")
                .split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
            // The parser adds "(default: X)" to an option with a default; help text must not say it again.
            #expect(!joined.contains("(default ") && !joined.contains("). (default: "), "\(command): \(help.stdout)")
        }
    }
}

/// An event as `events --format json` prints it.
struct EventRow: Decodable {
    let bridgeID: String
    let openedAt: Date
    let openLocal: String
}
