import BridgetDTOs
import Foundation
import GRDB
import SocrataFixtureServer
import Testing

/// The assembled `bridget` executable, as a user meets it.
@Suite("bridget executable")
struct CommandLineTests {
    @Test func versionAndHelp() async throws {
        let bridget = BridgetProcess()
        let version = try await bridget.run(["--version"])
        #expect(version.status == 0)
        #expect(version.stdout == "bridget 0.1.0\n")
        let help = try await bridget.run(["--help"])
        #expect(help.status == 0)
        for word in ["sync", "bridges", "events", "stats", "config", "BRIDGET_CONFIG", "78 bad configuration", "doctor", "cache"] {
            #expect(help.stdout.contains(word), "help mentions \(word)")
        }
        let unknown = try await bridget.run(["frobnicate"])
        #expect(unknown.status == 64)
    }

    @Test("bad configuration exits 78 naming the key and the line", arguments: [
        ("provider:\n  kind: sample\n  sample:\n    sede: 4\n", ["bridget.yaml:4", "provider.sample.sede", "seed"]),
        ("sync:\n  batch_size: many\n", ["bridget.yaml:2", "sync.batch_size", "integer"]),
        ("provider:\n  kind: nonsense\n", ["bridget.yaml:2", "provider.kind", "nonsense", "valid: sample"]),
        ("provider: [unclosed\n", ["malformed YAML"]),
    ])
    func badConfiguration(_ yaml: String, _ expected: [String]) async throws {
        let bridget = BridgetProcess()
        let path = try bridget.write("bridget.yaml", yaml)
        for arguments in [["--config", path, "stats"], ["config", "validate", path]] {
            let result = try await bridget.run(arguments)
            #expect(result.status == 78)
            #expect(result.stdout.isEmpty)
            for fragment in expected { #expect(result.stderr.contains(fragment), "\(fragment) in \(result.stderr)") }
        }
        let viaEnvironment = try await bridget.run(["stats"], environment: ["BRIDGET_CONFIG": path])
        #expect(viaEnvironment.status == 78)
    }

    @Test("syncing twice stores the same rows; the file passes integrity_check")
    func syncTwice() async throws {
        let bridget = BridgetProcess()
        let config = try bridget.sampleConfig()
        let first = try await bridget.run(["sync", "--config", config, "--format", "json"])
        let firstReport = try decodeJSON(SyncSummary.self, first.stdout)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(firstReport.inserted > 1_500)
        #expect(firstReport.fetched == firstReport.inserted + firstReport.rejected)

        let second = try await bridget.run(["sync", "--config", config, "--format", "json"])
        let secondReport = try decodeJSON(SyncSummary.self, second.stdout)
        #expect(secondReport.inserted == 0 && secondReport.updated == 0)

        let queue = try DatabaseQueue(path: bridget.storePath)
        let (integrity, events, runs) = try await queue.read { db in
            (try String.fetchOne(db, sql: "PRAGMA integrity_check"),
             try Int.fetchOne(db, sql: "SELECT count(*) FROM events"),
             try Int.fetchOne(db, sql: "SELECT count(*) FROM sync_runs WHERE status = 'succeeded'"))
        }
        #expect(integrity == "ok")
        #expect(events == firstReport.inserted)
        #expect(runs == 2)

        let table = try await bridget.run(["sync", "--config", config])
        #expect(table.status == 0)
        #expect(table.stdout.contains("inserted") && table.stdout.contains("Newest stored opening: 2026-06-30"))
    }

    @Test("stats --format json agrees exactly with SQL over the stored events")
    func statsAgreeWithSQL() async throws {
        let bridget = BridgetProcess()
        let config = try bridget.sampleConfig(days: 120, mergeGapMinutes: 0) // one row, one opening: plain SQL agrees
        #expect(try await bridget.run(["sync", "--config", config]).status == 0)
        let result = try await bridget.run(["stats", "--config", config, "--format", "json"])
        #expect(result.status == 0, "\(result.stderr)")
        let stats = try decodeJSON(StatisticsDTO.self, result.stdout)
        #expect(stats.bridges.count == 7)

        let queue = try DatabaseQueue(path: bridget.storePath)
        try await queue.read { db in
            let days = try Int.fetchOne(db, sql: """
                SELECT CAST(julianday(max(substr(open_local, 1, 10))) - julianday(min(substr(open_local, 1, 10))) AS INTEGER) + 1
                FROM events
                """)
            #expect(stats.days == days)
            #expect(stats.totalOpenings == (try Int.fetchOne(db, sql: "SELECT count(*) FROM events")))
            for bridge in stats.bridges {
                let id = bridge.bridgeID
                let count = try Int.fetchOne(db, sql: "SELECT count(*) FROM events WHERE bridge_id = ?", arguments: [id]) ?? -1
                #expect(bridge.openings == count)
                #expect(bridge.openingsPerDay == Double(count) / Double(days ?? 0))
                let timed = try Int.fetchOne(db, sql: """
                    SELECT count(*) FROM events WHERE bridge_id = ? AND duration_minutes IS NOT NULL
                    """, arguments: [id]) ?? 0
                #expect(bridge.timedOpenings == timed)
                #expect(bridge.meanMinutes == (try Double.fetchOne(db, sql: """
                    SELECT avg(duration_minutes) FROM events WHERE bridge_id = ?
                    """, arguments: [id])))
                for (percentile, value) in [(0.5, bridge.medianMinutes), (0.9, bridge.p90Minutes)] {
                    let rank = Int((percentile * Double(timed)).rounded(.up))
                    #expect(value == (try Double.fetchOne(db, sql: """
                        SELECT duration_minutes FROM events WHERE bridge_id = ? AND duration_minutes IS NOT NULL
                        ORDER BY duration_minutes LIMIT 1 OFFSET ?
                        """, arguments: [id, rank - 1])))
                }
                #expect(bridge.maxMinutes == (try Double.fetchOne(db, sql: """
                    SELECT max(duration_minutes) FROM events WHERE bridge_id = ?
                    """, arguments: [id])))
                let busiest = try Row.fetchOne(db, sql: """
                    SELECT CAST(substr(open_local, 12, 2) AS INTEGER) AS hour, count(*) AS n FROM events
                    WHERE bridge_id = ? GROUP BY hour ORDER BY n DESC, hour ASC LIMIT 1
                    """, arguments: [id])
                #expect(bridge.busiestHour == busiest?["hour"])
                #expect(bridge.busiestHourOpenings == (busiest?["n"] ?? 0))
            }
        }
        let table = try await bridget.run(["stats", "--config", config])
        #expect(table.stdout.contains("Fremont") && table.stdout.contains("busiest_hour"))
        let heatmap = try await bridget.run(["stats", "--config", config, "--heatmap"])
        #expect(heatmap.status == 0 && heatmap.stdout.contains("Fremont (") && heatmap.stdout.contains("Legend"))
        #expect(heatmap.stdout.components(separatedBy: "\nMon  ").count == 8 && !heatmap.stdout.contains("\u{1B}"))
        let csv = try await bridget.run(["stats", "--config", config, "--format", "csv"])
        #expect(csv.stdout.split(separator: "\n").count == 8)
    }

    @Test("stats --heatmap --format csv carries the heatmap's counts, a row per bridge, weekday and hour")
    func heatmapCSV() async throws {
        let bridget = BridgetProcess()
        let config = try bridget.sampleConfig(days: 30)
        #expect(try await bridget.run(["sync", "--config", config]).status == 0)
        struct Heatmap: Decodable {
            struct Bridge: Decodable { let bridgeID: String; let bridgeName: String; let openings: Int; let hourOfWeek: [[Int]] }
            let bridges: [Bridge]
        }
        let json = try decodeJSON(Heatmap.self, try await bridget.run(
            ["stats", "--config", config, "--heatmap", "--bridge", "Fremont", "--bridge", "1", "--format", "json"]).stdout)
        let csv = try await bridget.run(
            ["stats", "--config", config, "--heatmap", "--bridge", "Fremont", "--bridge", "1", "--format", "csv"])
        #expect(csv.status == 0, "\(csv.stderr)")
        var lines = csv.stdout.split(separator: "\n").map(String.init)
        #expect(lines.removeFirst() == "bridge_id,bridge,weekday,hour,openings")
        let weekdays = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
        var expected: [String] = []
        for bridge in json.bridges {
            for (day, hours) in bridge.hourOfWeek.enumerated() {
                for (hour, count) in hours.enumerated() {
                    expected.append("\(bridge.bridgeID),\(bridge.bridgeName),\(weekdays[day]),\(hour),\(count)")
                }
            }
        }
        #expect(json.bridges.count == 2 && lines.count == 2 * 7 * 24 && lines == expected)
        // Every cell of a bridge adds up to its openings, as `stats` counts them.
        for bridge in json.bridges {
            let total = lines.filter { $0.hasPrefix(bridge.bridgeID + ",") }
                .reduce(0) { $0 + (Int($1.split(separator: ",").last ?? "") ?? 0) }
            #expect(total == bridge.openings && total > 0)
        }
    }

    @Test("cascades with no pair above chance: the table says so in a sentence, JSON and CSV stay parseable")
    func noCascades() async throws {
        let bridget = BridgetProcess()
        // Five weeks of Fremont at 10:00, Ballard at 10:05 and Montlake at 10:12, every day: they follow each other,
        // but as a weekly rhythm, which the baseline (openings shifted by whole weeks) has too, so no pair is above
        // chance. Imported, so the sample generator's own links do not matter.
        var rows: [String] = []
        let first = try #require(ISO8601DateFormatter().date(from: "2026-05-04T12:00:00Z"))
        for day in 0..<35 {
            let date = first.addingTimeInterval(Double(day) * 86_400)
            let text = String(ISO8601DateFormatter().string(from: date).prefix(10))
            for (id, name, minute) in [("3", "Fremont", 0), ("2", "Ballard", 5), ("4", "Montlake", 12)] {
                let open = String(format: "%02d", minute), close = String(format: "%02d", minute + 4)
                rows.append(#"{"entitytype":"Bridge","entityname":"\#(name)","entityid":"\#(id)","#
                            + #""opendatetime":"\#(text)T10:\#(open):00.000","closedatetime":"\#(text)T10:\#(close):00.000","#
                            + #""minutesopen":"4"}"#)
            }
        }
        let file = try bridget.write("rhythm.ndjson", rows.joined(separator: "\n") + "\n")
        let config = try bridget.write("rhythm.yaml", "store:\n  path: \(bridget.storePath)\n")
        let imported = try await bridget.run(["import", file, "--config", config])
        #expect(imported.status == 0 && bridget.storedEvents() == 105, "\(imported.stderr)")
        let all = try decodeJSON([CascadeDTO].self, try await bridget.run(
            ["cascades", "--config", config, "--all", "--format", "json"]).stdout)
        #expect(all.count == 3 && all.allSatisfy { $0.count == 35 && abs($0.zScore) < 3 }, "\(all)")

        let table = try await bridget.run(["cascades", "--config", config])
        #expect(table.status == 0, "\(table.stderr)")
        #expect(table.stdout == """
            No pair of bridges follows each other more often than chance in this history: all 3 pairs seen at least 5 \
            times within 15 min are below z = 3, where a lift is likely noise. --all lists them anyway; a longer \
            --within (say 30m) looks further.

            """, "\(table.stdout)")
        let json = try await bridget.run(["cascades", "--config", config, "--format", "json"])
        #expect(try json.status == 0 && decodeJSON([CascadeDTO].self, json.stdout).isEmpty)
        let csv = try await bridget.run(["cascades", "--config", config, "--format", "csv"])
        #expect(csv.status == 0 && csv.stdout
                == "from_bridge_id,from_bridge,to_bridge_id,to_bridge,within_minutes,count,expected,lift,z_score\n")
        // No pair seen often enough to be judged at all.
        let unseen = try await bridget.run(["cascades", "--config", config, "--within", "5m", "--min-count", "100"])
        #expect(unseen.status == 0 && unseen.stdout == """
            No pair of bridges opened one after the other within 5 min at least 100 times in this history, so none \
            can be told apart from chance. A longer --within (say 10m) or a lower --min-count looks further.

            """, "\(unseen.stdout)")
    }

    @Test("events and bridges print table, CSV and JSON; filters apply")
    func eventsAndBridges() async throws {
        let bridget = BridgetProcess()
        let config = try bridget.sampleConfig(days: 14)
        #expect(try await bridget.run(["sync", "--config", config]).status == 0)

        let csv = try await bridget.run(["events", "--config", config, "--bridge", "Fremont", "--limit", "5", "--format", "csv"])
        let lines = csv.stdout.split(separator: "\n")
        #expect(lines.first == "bridge_id,bridge,opened,closed,minutes,minutes_open,status,open_local,close_local")
        #expect(lines.count == 6)
        #expect(lines.dropFirst().allSatisfy { $0.hasPrefix("3,Fremont,") })

        // Half-open: --until names the first day left out.
        let json = try await bridget.run(["events", "--config", config, "--since", "2026-06-29", "--until", "2026-06-30",
                                    "--limit", "0", "--format", "json"])
        let events = try decodeJSON([EventSummary].self, json.stdout)
        #expect(!events.isEmpty)
        #expect(events.allSatisfy { $0.openLocal.hasPrefix("2026-06-29") })
        #expect(zip(events, events.dropFirst()).allSatisfy { $0.openedAt >= $1.openedAt })

        let table = try await bridget.run(["events", "--config", config, "--limit", "3"])
        #expect(table.stdout.contains("PDT"))

        let bridges = try await bridget.run(["bridges", "--config", config, "--format", "json"])
        let activity = try decodeJSON([BridgeActivitySummary].self, bridges.stdout)
        #expect(activity.map(\.bridge.id) == ["1", "2", "3", "4", "6", "21", "29"])
        let stats = try decodeJSON(StatisticsDTO.self, try await bridget.run(["stats", "--config", config, "--format", "json"]).stdout)
        // "openings" is the same number in both commands (merged fragments); the stored rows are `rows`.
        #expect(activity.map(\.openings) == stats.bridges.map(\.openings))
        #expect(activity.map(\.rows) == stats.bridges.map(\.rows))
        #expect(activity.map(\.openings).reduce(0, +) == stats.totalOpenings)
        #expect(activity.map(\.rows).reduce(0, +) == stats.totalRows)
        #expect(stats.totalOpenings < stats.totalRows) // fragments merged
        let bridgesTable = try await bridget.run(["bridges", "--config", config])
        #expect(bridgesTable.stdout.hasPrefix("id  name") && bridgesTable.stdout.contains("openings  rows"))
        #expect(bridgesTable.stdout.contains("\(stats.totalOpenings) openings from \(stats.totalRows) rows on record"),
                "\(bridgesTable.stdout)")
        let bridgesCSV = try await bridget.run(["bridges", "--config", config, "--format", "csv"])
        let fremont = try #require(bridgesCSV.stdout.split(separator: "\n").first { $0.hasPrefix("3,") })
        let fremontStats = try #require(stats.bridges.first { $0.bridgeID == "3" })
        #expect(bridgesCSV.stdout.hasPrefix("id,name,waterway,kind,openings,rows,last_opening\n"))
        #expect(fremont.contains(",\(fremontStats.openings),\(fremontStats.rows),"), "\(fremont)")
        let geojson = try await bridget.run(["bridges", "--config", config, "--format", "geojson"])
        #expect(geojson.stdout.contains("\"openings\" : \(fremontStats.openings),")
                && geojson.stdout.contains("\"rows\" : \(fremontStats.rows),"), "\(geojson.stdout)")

        let unknown = try await bridget.run(["events", "--config", config, "--bridge", "Aurora"])
        #expect(unknown.status == 64)
        #expect(unknown.stderr.contains("no bridge named 'Aurora'") && unknown.stderr.contains("Fremont (3)"))
        let badTime = try await bridget.run(["events", "--config", config, "--since", "soon"])
        #expect(badTime.status == 64)
        let backwards = try await bridget.run(["events", "--config", config, "--since", "2026-06-10", "--until", "2026-06-01"])
        #expect(backwards.status == 64 && backwards.stderr.contains("is not before"))
        let negative = try await bridget.run(["events", "--config", config, "--limit", "-1"])
        #expect(negative.status == 64 && negative.stderr.contains("--limit must be 0"))
    }

    @Test("events --follow is tail -f: the newest 10 oldest first, then the changes; -n and a range are honoured")
    func followLikeTail() async throws {
        let bridget = BridgetProcess()
        let config = try bridget.sampleConfig(days: 14)
        #expect(try await bridget.run(["sync", "--config", config]).status == 0)
        /// The data rows of an events table (after its header and rule).
        func rows(_ table: String) -> [String] {
            Array(table.split(separator: "\n").map(String.init).drop { !$0.hasPrefix("─") }.dropFirst()
                .prefix { !$0.isEmpty && !$0.hasPrefix("#") })
        }
        let newest = rows(try await bridget.run(["events", "--config", config, "--limit", "10"]).stdout)
        #expect(newest.count == 10)

        let follower = try FollowingProcess(bridget, ["events", "--config", config, "--follow"])
        defer { follower.stop() }
        try await follower.waitUntilFollowing()
        #expect(rows(follower.output) == Array(newest.reversed()), "\(follower.output)")
        // Then what another process stores, after the list.
        let later = try bridget.sampleConfig(days: 15, endDate: "2026-07-01")
        #expect(try await bridget.run(["sync", "--config", later]).status == 0)
        try await follower.waitFor { $0.contains("  new  ") }
        let lines = follower.output.split(separator: "\n")
        let firstChange = try #require(lines.firstIndex { $0.hasPrefix("#") })
        #expect(lines.count - firstChange > 0 && (lines.firstIndex { $0 == newest[0] } ?? .max) < firstChange)
        #expect(follower.interrupt() == 0)

        let three = try FollowingProcess(bridget, ["events", "--config", config, "--follow", "-n", "3"])
        defer { three.stop() }
        try await three.waitUntilFollowing()
        let newestThree = rows(try await bridget.run(["events", "--config", config, "-n", "3"]).stdout)
        #expect(rows(three.output) == Array(newestThree.reversed()) && newestThree.count == 3, "\(three.output)")
        #expect(three.interrupt() == 0)

        let day = ["--since", "2026-06-29", "--until", "2026-06-30"]
        let ranged = try FollowingProcess(bridget, ["events", "--config", config, "--follow"] + day)
        defer { ranged.stop() }
        try await ranged.waitUntilFollowing()
        let wholeDay = rows(try await bridget.run(["events", "--config", config] + day).stdout)
        #expect(wholeDay.count > 10 && rows(ranged.output) == Array(wholeDay.reversed()), "\(ranged.output)")
        #expect(ranged.interrupt() == 0)

        let oldest = try await bridget.run(["events", "--config", config, "--follow", "--oldest-first"])
        #expect(oldest.status == 64 && oldest.stderr.contains("--oldest-first does not go with --follow"))
        let help = try await bridget.run(["events", "--help"])
        #expect(help.stdout.contains("-n, --limit <n>") && help.stdout.contains("the newest 10"), "\(help.stdout)")
    }

    @Test("predict answers from the model built at sync; prune removes history and the model follows")
    func predictAndPrune() async throws {
        let bridget = BridgetProcess()
        let config = try bridget.sampleConfig(days: 120)
        #expect(try await bridget.run(["sync", "--config", config]).status == 0)
        let rush = try await bridget.run(["predict", "--config", config, "--bridge", "Fremont", "--at", "2026-06-30 17:40",
                                    "--format", "json"])
        #expect(rush.status == 0, "\(rush.stderr)")
        let forecast = try decodeJSON(PredictionSummary.self, rush.stdout)
        #expect(forecast.forecast.chanceOfOpening < 0.03 && forecast.forecast.baseChanceOfOpening > 0.05)
        #expect(forecast.lastSimilarSlots.count == 5)
        let table = try await bridget.run(["predict", "--config", config, "--bridge", "3", "--at", "2026-06-30 13:00",
                                     "--window", "1h"])
        #expect(table.stdout.contains("chance of an opening in the next 60 min") && table.stdout.contains("Last similar slots"))
        let badWindow = try await bridget.run(["predict", "--config", config, "--bridge", "3", "--window", "forever"])
        #expect(badWindow.status == 64)

        let prune = try await bridget.run(["prune", "--config", config, "--before", "2026-06-01", "--format", "json"])
        #expect(prune.status == 0)
        #expect(prune.stdout.contains("\"removed\"") && !prune.stdout.contains("\"removed\" : 0"))
        let stats = try decodeJSON(StatisticsDTO.self, try await bridget.run(["stats", "--config", config, "--format", "json"]).stdout)
        #expect(stats.firstDay == "2026-06-01")
        let after = try await bridget.run(["predict", "--config", config, "--bridge", "Fremont", "--at", "2026-06-30 13:00",
                                     "--format", "json"])
        #expect(after.status == 0 && after.stdout.contains("\"history\" : \"2026-06-01 to 2026-06-30\""))
    }

    @Test("routes: add, list, score with alternatives, best time, favourites, remove")
    func routes() async throws {
        let bridget = BridgetProcess()
        let config = try bridget.sampleConfig(days: 120)
        #expect(try await bridget.run(["sync", "--config", config]).status == 0)
        let add = try await bridget.run(["route", "add", "commute", "--config", config, "--via", "Fremont/Ballard@8",
                                   "--via", "Montlake@22"])
        #expect(add.status == 0 && add.stdout.contains("saved route commute with 2 crossings"))
        #expect(try await bridget.run(["route", "add", "x", "--config", config, "--via", "Aurora@3"]).status == 64)
        #expect(try await bridget.run(["route", "add", "x", "--config", config, "--via", "Fremont"]).status == 64)
        for bad in ["Fremont@inf", "Fremont@nan", "Fremont@-3", "Fremont@99999"] { // inf once trapped converting to Int64
            #expect(try await bridget.run(["route", "add", "x", "--config", config, "--via", bad]).status == 64, "\(bad)")
        }
        #expect(try await bridget.run(["route", "favorite", "commute", "--config", config]).status == 0)
        let list = try await bridget.run(["route", "list", "--config", config])
        #expect(list.stdout.contains("★") && list.stdout.contains("Fremont/Ballard@8 → Montlake@22"))

        let score = try await bridget.run(["route", "score", "commute", "--config", config, "--depart", "2026-06-30 13:00",
                                     "--format", "json"])
        #expect(score.status == 0, "\(score.stderr)")
        let parsed = try decodeJSON(RouteScoreDTO.self, score.stdout)
        #expect(parsed.crossings.count == 2 && parsed.crossings[0].options.count == 2)
        #expect(parsed.crossings[0].arrival == "2026-06-30T13:08:00")
        let bestDelay = parsed.crossings.map(\.best.expectedDelayMinutes).reduce(0, +)
        #expect(abs(parsed.totalExpectedDelayMinutes - bestDelay) < 1e-9)
        #expect(parsed.crossings[0].options.allSatisfy { $0.expectedDelayMinutes >= parsed.crossings[0].best.expectedDelayMinutes })

        let best = try await bridget.run(["route", "best-time", "commute", "--config", config, "--between", "16:00", "18:30",
                                    "--date", "2026-06-30", "--step", "10m", "--top", "0", "--format", "json"])
        let ranked = try decodeJSON([RouteScoreDTO].self, best.stdout)
        #expect(ranked.count == 16)
        // The first is the least delay; departures the same to a hundredth of a minute tie with it and come first,
        // earliest first; the rest by delay.
        let least = ranked.map(\.totalExpectedDelayMinutes).min() ?? 0
        let hundredths = { (delay: Double) in (delay * 100).rounded() }
        #expect(hundredths(ranked.first?.totalExpectedDelayMinutes ?? -1) == hundredths(least))
        let tied = ranked.prefix { hundredths($0.totalExpectedDelayMinutes) <= hundredths(least) }
        #expect(!tied.isEmpty && zip(tied, tied.dropFirst()).allSatisfy { $0.departure < $1.departure })
        #expect(tied.allSatisfy { $0.tiesWithBest == true })
        let rest = ranked.dropFirst(tied.count)
        #expect(rest.allSatisfy { hundredths($0.totalExpectedDelayMinutes) > hundredths(least) && $0.tiesWithBest != true })
        #expect(zip(rest, rest.dropFirst()).allSatisfy { $0.totalExpectedDelayMinutes <= $1.totalExpectedDelayMinutes })
        #expect(try await bridget.run(["route", "best-time", "commute", "--config", config, "--between", "18:00", "16:00"]).status == 64)

        #expect(try await bridget.run(["route", "remove", "commute", "--config", config]).status == 0)
        #expect(try await bridget.run(["route", "score", "commute", "--config", config]).status == 64)
    }

    @Test("cascades and anomalies print and parse")
    func patterns() async throws {
        let bridget = BridgetProcess()
        let config = try bridget.sampleConfig(days: 90)
        #expect(try await bridget.run(["sync", "--config", config]).status == 0)
        let cascades = try await bridget.run(["cascades", "--config", config, "--within", "20m", "--all", "--format", "json"])
        #expect(cascades.status == 0, "\(cascades.stderr)")
        let parsed = try decodeJSON([CascadeDTO].self, cascades.stdout)
        // Without --all, only the pairs at least 3 standard deviations above chance.
        let significant = try decodeJSON([CascadeDTO].self, try await bridget.run(
            ["cascades", "--config", config, "--within", "20m", "--format", "json"]).stdout)
        #expect(significant == parsed.filter { $0.zScore >= 3 } && significant.count < parsed.count)
        #expect(parsed.count == 42 && parsed.allSatisfy { $0.withinMinutes == 20 && $0.count >= 5 })
        #expect(zip(parsed, parsed.dropFirst()).allSatisfy { $0.lift >= $1.lift })
        // Vessels pass the canal's bridges in order: Ballard's openings are followed at Fremont well beyond chance;
        // bridges on different waterways are not (their lifts centre on 1).
        let pair = try #require(parsed.first { $0.fromBridgeID == "2" && $0.toBridgeID == "3" })
        #expect(pair.lift > 2 && pair.zScore > 10, "Ballard → Fremont: lift \(pair.lift), z \(pair.zScore)")
        let canal: Set<String> = ["2", "3", "21", "4"], duwamish: Set<String> = ["1", "29"]
        let across = parsed.filter { (canal.contains($0.fromBridgeID) && !canal.contains($0.toBridgeID))
            || (duwamish.contains($0.fromBridgeID) && !duwamish.contains($0.toBridgeID)) }
        let meanLift: Double = across.map(\.lift).reduce(0, +) / Double(max(across.count, 1))
        #expect(!across.isEmpty && abs(meanLift - 1) < 0.15, "mean lift across waterways \(meanLift)")
        let anomalies = try await bridget.run(["anomalies", "--config", config, "--limit", "0", "--format", "json"])
        let found = try decodeJSON([AnomalyDTO].self, anomalies.stdout)
        #expect(!found.isEmpty && found.allSatisfy { !$0.reasons.isEmpty })
        #expect(try await bridget.run(["anomalies", "--config", config]).stdout.contains("anomalies in all"))
        let patterns = try await bridget.run(["patterns", "--config", config, "--bridge", "Fremont", "--format", "json"])
        let analysis = try decodeJSON(TrafficAnalysisDTO.self, patterns.stdout)
        #expect(analysis.openingsByHour.count == 24 && analysis.peakHours.count == 3)
        #expect((analysis.congestionCorrelation ?? 0) > 0.1) // the sample traffic rises in hours with openings
        #expect(try await bridget.run(["patterns", "--config", config, "--bridge", "3"]).stdout.contains("Congestion correlation"))
    }

    @Test("a corrupt store file gives exit 74 and is left untouched")
    func corruptStore() async throws {
        let bridget = BridgetProcess()
        let config = try bridget.sampleConfig()
        let garbage = Data(repeating: 0x7A, count: 4_096)
        try garbage.write(to: URL(fileURLWithPath: bridget.storePath))
        let result = try await bridget.run(["sync", "--config", config])
        #expect(result.status == 74)
        #expect(result.stderr.contains("is not a SQLite database"), "\(result.stderr)")
        #expect(FileManager.default.contents(atPath: bridget.storePath) == garbage)
    }

    @Test("environment overrides reach the executable; the in-memory example needs no file")
    func overridesAndMemory() async throws {
        let bridget = BridgetProcess()
        let config = try bridget.sampleConfig(days: 5)
        let elsewhere = bridget.home + "/elsewhere.sqlite"
        let result = try await bridget.run(["sync", "--config", config], environment: ["BRIDGET_STORE_PATH": elsewhere])
        #expect(result.status == 0)
        #expect(FileManager.default.fileExists(atPath: elsewhere))
        #expect(!FileManager.default.fileExists(atPath: bridget.storePath))
        let bad = try await bridget.run(["sync", "--config", config], environment: ["BRIDGET_SYNC_BATCH_SIZE": "lots"])
        #expect(bad.status == 78 && bad.stderr.contains("BRIDGET_SYNC_BATCH_SIZE"))

        let example = repositoryRoot.appendingPathComponent("Config/examples/in-memory.yaml").path
        let memory = try await bridget.run(["stats", "--config", example, "--format", "json"])
        #expect(memory.status == 0, "\(memory.stderr)")
        #expect(try decodeJSON(StatisticsDTO.self, memory.stdout).totalOpenings > 1_000)
        let written = FileManager.default.subpaths(atPath: bridget.home) ?? []
        #expect(written.filter { $0.hasSuffix(".sqlite") } == ["elsewhere.sqlite"], "\(written)")

        let show = try await bridget.run(["config", "show", "--config", config, "--format", "json"])
        #expect(show.status == 0)
        #expect(show.stdout.contains("\"provider.sample.seed\"") && show.stdout.contains("bridget.yaml:5"))
    }
}

/// The parts of `predict --format json` the tests read.
struct PredictionSummary: Decodable {
    struct Forecast: Decodable {
        let chanceOfOpening: Double
        let baseChanceOfOpening: Double
    }
    struct Slot: Decodable { let from: String }
    let forecast: Forecast
    let lastSimilarSlots: [Slot]
}

/// The parts of `sync --format json` the tests read.
struct SyncSummary: Decodable {
    let fetched: Int
    let inserted: Int
    let updated: Int
    let unchanged: Int
    let rejected: Int
}

struct EventSummary: Decodable {
    let bridgeID: String
    let openedAt: Date
    let openLocal: String
}

struct BridgeActivitySummary: Decodable {
    struct Bridge: Decodable { let id: String }
    let bridge: Bridge
    let openings: Int
    let rows: Int
}

let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

@Suite("bridget executable: interruption")
struct InterruptTests {
    @Test("watch: SIGHUP during a sync stops it as SIGTERM does: the batch in flight committed, the run recorded cancelled, exit 0, the log saying each step")
    func watchStops() async throws {
        let bridget = BridgetProcess()
        let fixture = try SocrataFixtureServer(dataset: .generate(rows: 20_000, seed: 6))
        let url = try await fixture.start().absoluteString
        defer { Task { await fixture.stop() } }
        fixture.hangMidSync()
        let config = try bridget.liveConfig("watch.yaml", url: url, extra: "refresh: {every: 10m, jitter_minutes: 0}")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: BridgetProcess.executable)
        process.arguments = ["watch", "--config", config]
        process.environment = ["HOME": bridget.home, "PATH": "/usr/bin:/bin"]
        let logPath = bridget.home + "/watch.err"
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        try process.run()
        _ = try await bridget.waitForHangingSync(fixture)
        kill(process.processIdentifier, SIGHUP)
        await process.exited()
        let log = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
        #expect(process.terminationReason == .exit && process.terminationStatus == 0, "\(log)")
        #expect(log.contains("info bridget.watch: watch: every 10 min into"), "\(log)")
        #expect(log.contains("info bridget.watch: refresh: syncing"), "\(log)")
        #expect(log.contains("notice bridget.watch: SIGHUP: stopping"), "\(log)")
        #expect(log.contains("recorded cancelled"), "\(log)")
        let queue = try DatabaseQueue(path: bridget.storePath)
        let (status, stored) = try await queue.read { db in
            (try String.fetchOne(db, sql: "SELECT status FROM sync_runs ORDER BY id DESC LIMIT 1"),
             try Int.fetchOne(db, sql: "SELECT count(*) FROM events") ?? 0)
        }
        #expect(status == "cancelled" && stored > 0, "\(String(describing: status)), \(stored) rows")
    }

    @Test("SIGINT during a sync exits 130, records the run as cancelled, and leaves a sound store")
    func interruptedSync() async throws {
        let bridget = BridgetProcess()
        // The sync's sixth request hangs, queued before it starts: the signal always comes while it waits inside itself
        // with batches committed, however slow or loaded the machine.
        let fixture = try SocrataFixtureServer(dataset: .generate(rows: 20_000, seed: 5))
        let url = try await fixture.start().absoluteString
        defer { Task { await fixture.stop() } }
        fixture.hangMidSync()
        let config = try bridget.liveConfig("interrupt.yaml", url: url)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: BridgetProcess.executable)
        process.arguments = ["sync", "--config", config]
        process.environment = ["HOME": bridget.home, "PATH": "/usr/bin:/bin"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let committed = try await bridget.waitForHangingSync(fixture)
        process.interrupt()
        await process.exited()
        #expect(process.terminationStatus == 130)
        let queue = try DatabaseQueue(path: bridget.storePath)
        let (integrity, status, stored) = try await queue.read { db in
            (try String.fetchOne(db, sql: "PRAGMA integrity_check"),
             try String.fetchOne(db, sql: "SELECT status FROM sync_runs ORDER BY id DESC LIMIT 1"),
             try Int.fetchOne(db, sql: "SELECT count(*) FROM events") ?? 0)
        }
        #expect(integrity == "ok")
        #expect(status == "cancelled")
        #expect(stored >= committed && stored > 0)
    }
}

/// `bridget events --follow` running in the background, its output in files the test reads as it goes.
final class FollowingProcess {
    let process = Process()
    let outPath: String
    let errPath: String

    init(_ bridget: BridgetProcess, _ arguments: [String]) throws {
        outPath = bridget.home + "/follow-\(UUID().uuidString).out"
        errPath = bridget.home + "/follow-\(UUID().uuidString).err"
        process.executableURL = URL(fileURLWithPath: BridgetProcess.executable)
        process.arguments = arguments
        process.environment = ["HOME": bridget.home, "PATH": "/usr/bin:/bin"]
        process.currentDirectoryURL = URL(fileURLWithPath: bridget.home)
        _ = FileManager.default.createFile(atPath: outPath, contents: nil)
        _ = FileManager.default.createFile(atPath: errPath, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    var output: String { (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? "" }
    var errors: String { (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "" }

    /// Waits (two minutes at most: a hang detector) until standard output satisfies `done`.
    func waitFor(_ done: (String) -> Bool) async throws {
        for _ in 0..<2_400 where !done(output) && process.isRunning { try await Task.sleep(for: .milliseconds(50)) }
        #expect(done(output), "stdout: \(output)\nstderr: \(errors)")
    }

    /// Waits until it has listed what it lists and follows (it says so on standard error).
    func waitUntilFollowing() async throws {
        for _ in 0..<2_400 where !errors.contains("following the changes") && process.isRunning {
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(errors.contains("following the changes"), "stderr: \(errors)")
    }

    /// Ctrl-C, and its exit status once it has ended.
    func interrupt() -> Int32 {
        kill(process.processIdentifier, SIGINT)
        process.waitUntilExit()
        return process.terminationStatus
    }

    func stop() { if process.isRunning { process.terminate() } }
}
