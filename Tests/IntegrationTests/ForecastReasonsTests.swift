import BridgetAnalysis
import BridgetDTOs
import BridgetNetworking
import BridgetTestSupport
import Foundation
import Testing

/// Forecasts that know why bridges open: on the sample year (vessels passing the canal's bridges in order), and on a
/// history that is not the sample's (cascades and holidays planted in an NDJSON file, imported by the executable).
@Suite("Forecasts that know why bridges open")
struct ForecastReasonsTests {
    /// The default sample year (seed 42, 365 days) ending on a fixed day, judged as a sync judges it.
    static let sampleYear: (events: [BridgeEventDTO], first: Int, last: Int) = {
        let last = CivilCalendar.daysFromCivil(year: 2026, month: 11, day: 25)
        let first = last - 364
        let generator = SampleOpeningGenerator(seed: 42)
        let rows = (first...last).flatMap { generator.rows(forDay: $0) }
        return (judgeSocrataRows(rows, now: Date(timeIntervalSince1970: 1_800_000_000)).events, first, last)
    }()

    static let canal = ["2", "3", "21", "4"]

    @Test("on the sample year's last quarter the now-cast follows neighbours (skill ≥ 0.3, reliable within 5 points) and beats the slot model on every canal bridge")
    func sampleYearBacktest() async throws {
        // A quarter of forecasts for seven bridges is seconds of work: done on a thread of its own, not on the
        // cooperative pool that the in-process servers of the other tests run on.
        let (result, legacy, models) = try await RawConnection.blocking(computing: true) {
            Result { try Self.sampleYearFigures() }
        }.get()
        let window = try #require(result.windows.first)
        for id in ["3", "21", "4"] {
            let after = try #require(window.comparison(bridgeID: id, subset: "after-neighbour"))
            #expect(after.points > 500, "\(id): \(after.points) points after a neighbour's opening")
            #expect(after.nowcast.value >= 0.3, "\(after.bridgeName ?? id): skill \(after.nowcast.value) after a neighbour")
            #expect(try #require(after.reliabilityError) <= 0.05, "\(after.bridgeName ?? id) reliability")
        }
        // Against today's slot model (no calendar, no followers) on the same points: the now-cast's whole interval
        // lies above its skill, and above the slot model with the calendar (the gain's interval above zero).
        for id in Self.canal {
            let all = try #require(window.comparison(bridgeID: id))
            #expect(all.gain.isAboveZero, "\(all.bridgeName ?? id): gain \(BacktestReadingText.of(all.gain))")
            let legacySkill = try #require(legacy[id])
            #expect(try #require(all.nowcast.low) > legacySkill,
                    "\(all.bridgeName ?? id): now-cast \(BacktestReadingText.of(all.nowcast)) against \(legacySkill)")
        }
        // The figures this history's evidence gives are those of the test period's openings only: a planted
        // neighbour is learnt, not told.
        let fremont = try #require(models.first { $0.bridgeID == "3" })
        #expect(Backtester.neighbours(of: fremont, among: models) == ["2", "21"])
        let montlake = try #require(models.first { $0.bridgeID == "4" })
        #expect(Backtester.neighbours(of: montlake, among: models) == ["21"])
        #expect(models.first { $0.bridgeID == "6" }?.dynamics.followers.filter { $0.fromBridgeID != "6" }.isEmpty == true,
                "Lower Spokane St crosses its own waterway: no other bridge's openings bring its")
    }

    /// The sample year's backtest (trained on its first three quarters, with its rules), the slot model's skills
    /// before followers and the calendar, and the models the whole year gives.
    static func sampleYearFigures() throws -> (BacktestDTO, [String: Double], [OpeningModelDTO]) {
        let (events, first, last) = Self.sampleYear
        let trainUntil = first + (last - first + 1) * 3 / 4
        let (firstYear, _, _) = CivilCalendar.civilFromDays(first)
        let (lastYear, _, _) = CivilCalendar.civilFromDays(last)
        let rules = RuleCalendar.seattle.with(
            deviations: (firstYear...lastYear).flatMap(SampleVesselWorld.deviations(inYear:)))
        let result = try Backtester(mergeGap: 120, windows: [15], rules: rules).run(
            bridges: BridgeCatalog.seattle.bridges, events: events, trainUntil: trainUntil, testUntil: last + 1)
        let legacy = try Self.legacySkills(events: events, trainUntil: trainUntil, testUntil: last + 1)
        let models = OpeningModelBuilder().buildAll(
            bridges: BridgeCatalog.seattle.bridges, tallies: Tallies(
                records: events.compactMap(OpeningRecordDTO.init), mergeGap: 120, rules: rules), builtAt: Date())
        return (result, legacy, models)
    }

    /// Each canal bridge's skill over the base rate of the model as it was before followers and the calendar: slots
    /// fitted on the days before `trainUntil`, forecast every 15 minutes.
    static func legacySkills(events: [BridgeEventDTO], trainUntil: Int, testUntil: Int) throws -> [String: Double] {
        let records = events.compactMap(OpeningRecordDTO.init)
        let train = records.filter { Int($0.openWall.floorDiv(86_400)) < trainUntil }
        let models = OpeningModelBuilder().buildAll(bridges: BridgeCatalog.seattle.bridges,
                                                     tallies: Tallies(records: train, mergeGap: 120), builtAt: Date())
        var skills: [String: Double] = [:]
        for id in canal {
            let model = try #require(models.first { $0.bridgeID == id })
            let bridge = try #require(BridgeCatalog.seattle.bridge(id: id))
            // Merged starts of the test period: a row opening within the merge gap of the last one's close is a
            // fragment of it.
            var starts: [Int64] = []
            var lastClose = Int64.min / 2
            for record in records.filter({ $0.bridgeID == id && Int($0.openWall.floorDiv(86_400)) >= trainUntil })
                .sorted(by: { $0.openedAt < $1.openedAt }) {
                if record.openedAt - lastClose > 120 { starts.append(record.openWall) }
                lastClose = max(lastClose, record.closedAt ?? record.openedAt)
            }
            var (brier, climatology) = (0.0, 0.0)
            var cursor = 0
            var wall = Int64(trainUntil) * 86_400
            while wall < Int64(testUntil) * 86_400 {
                let forecast = OpeningModelBuilder.forecast(model, bridge: bridge, at: FloatingTimestamp(wallClockSeconds: wall),
                                                            windowMinutes: 15)
                while cursor < starts.count && starts[cursor] < wall { cursor += 1 }
                let outcome = cursor < starts.count && starts[cursor] < wall + 900 ? 1.0 : 0.0
                brier += (forecast.chanceOfOpening - outcome) * (forecast.chanceOfOpening - outcome)
                climatology += (forecast.baseChanceOfOpening - outcome) * (forecast.baseChanceOfOpening - outcome)
                wall += 900
            }
            skills[id] = 1 - brier / climatology
        }
        return skills
    }

    // MARK: A history that is not the sample's

    /// Ballard's openings are followed at Fremont with this chance, this many minutes later (uniform).
    static let plantedShare = 0.6
    static let plantedLag = 10...20
    /// Fremont's own openings a day, and Ballard's, spread over the hours vessels move.
    static let fremontPerDay = 3.0
    static let ballardPerDay = 8.0

    /// The local minutes of a day when the planted vessels move: on working days around the rush hours (so no
    /// follower falls in them), on weekends and federal holidays all day.
    static func movingMinutes(day: Int) -> [Range<Int>] {
        let weekday = FloatingTimestamp(wallClockSeconds: Int64(day) * 86_400).mondayFirstWeekday
        let holiday = RuleCalendar.seattle.holiday(onDay: day) != nil
        return weekday >= 5 || holiday ? [360..<1_260] : [600..<930, 1_080..<1_260]
    }

    /// A year (2025) of NDJSON rows for Ballard and Fremont with the share and lag above; and the moments (local
    /// readings) of Ballard openings with nothing else within the two hours around them.
    static func plantedHistory() -> (ndjson: String, quietOpenings: [FloatingTimestamp],
                                     newest: (bridgeID: String, start: FloatingTimestamp)) {
        var random = SeededGenerator(seed: 2_025)
        let first = CivilCalendar.daysFromCivil(year: 2025, month: 1, day: 1)
        let last = CivilCalendar.daysFromCivil(year: 2025, month: 12, day: 31)
        var starts: [String: [Int64]] = ["2": [], "3": []]
        func pick(_ ranges: [Range<Int>]) -> Int {
            let total = ranges.reduce(0) { $0 + $1.count }
            var offset = Int(random.next() % UInt64(total))
            for range in ranges {
                if offset < range.count { return range.lowerBound + offset }
                offset -= range.count
            }
            return ranges[0].lowerBound
        }
        func poisson(_ mean: Double) -> Int {
            var (count, product) = (0, random.nextUnit())
            while product > exp(-mean) {
                count += 1
                product *= random.nextUnit()
            }
            return count
        }
        for day in first...last {
            let ranges = movingMinutes(day: day)
            let scale = ranges.count == 1 ? 1.25 : 1.0
            let midnight = Int64(day) * 86_400
            for _ in 0..<poisson(ballardPerDay * scale) {
                let minute = pick(ranges)
                starts["2"]!.append(midnight + Int64(minute) * 60)
                if random.nextUnit() < plantedShare {
                    let lag = plantedLag.lowerBound + Int(random.next() % UInt64(plantedLag.count))
                    starts["3"]!.append(midnight + Int64(minute + lag) * 60)
                }
            }
            for _ in 0..<poisson(fremontPerDay * scale) { starts["3"]!.append(midnight + Int64(pick(ranges)) * 60) }
        }
        var lines: [String] = []
        for (id, name) in [("2", "Ballard"), ("3", "Fremont")] {
            let bridge = BridgeCatalog.seattle.bridge(id: id)!
            // One row an opening; openings closer than 6 minutes are one (as a bridge is open for 5).
            var kept: [Int64] = []
            for start in starts[id]!.sorted() where kept.last.map({ start - $0 >= 360 }) ?? true { kept.append(start) }
            starts[id] = kept
            for start in kept {
                let open = FloatingTimestamp(wallClockSeconds: start)
                let close = FloatingTimestamp(wallClockSeconds: start + 300)
                lines.append("""
                    {"entityname":"\(name)","entityid":"\(id)","opendatetime":"\(open)","closedatetime":"\(close)",\
                    "minutesopen":"5","latitude":"\(bridge.latitude)","longitude":"\(bridge.longitude)"}
                    """)
            }
        }
        // Nothing at either bridge in the two hours before, no other Ballard opening in the two after.
        let everything = (starts["2"]! + starts["3"]!).sorted()
        let quiet = starts["2"]!.filter { start in
            let minute = Int(start % 86_400) / 60
            return minute >= 600 && minute < 900
                && !everything.contains { $0 < start && start - $0 < 7_200 }
                && !starts["2"]!.contains { $0 > start && $0 - start < 7_200 }
        }
        let newest = [("2", starts["2"]!.last!), ("3", starts["3"]!.last!)].max { $0.1 < $1.1 }!
        return (lines.joined(separator: "\n") + "\n", quiet.map { FloatingTimestamp(wallClockSeconds: $0) },
                (newest.0, FloatingTimestamp(wallClockSeconds: newest.1)))
    }

    @Test("on an imported history with planted cascades and holidays, predict --at right after an upstream opening recovers the planted chance, and a holiday's rush hour is a Sunday's")
    func plantedHistory() async throws {
        let bridget = BridgetProcess()
        let (ndjson, quiet, newest) = Self.plantedHistory()
        let file = try bridget.write("planted.ndjson", ndjson)
        let config = try bridget.write("bridget.yaml", """
            provider:
              kind: live
              live: {state_url: null}
            store: {path: \(bridget.storePath)}
            """)
        let imported = try await bridget.run(["--config", config, "import", file])
        #expect(imported.status == 0, "\(imported.stderr)")
        // A quiet Ballard opening late in the year: Fremont's chance in the 30 minutes from a minute after it.
        #expect(quiet.count >= 5)
        // The planted truth: the follower (share × the lag's mass in the window: all of it) or Fremont's own rate.
        let ownPerWindow = Self.fremontPerDay * 30 / Double(330 + 180)
        let planted = 1 - (1 - Self.plantedShare) * exp(-ownPerWindow)
        for moment in quiet.suffix(5) {
            let at = FloatingTimestamp(wallClockSeconds: moment.wallClockSeconds + 60).localText
            let result = try await bridget.run(["--config", config, "predict", "--bridge", "Fremont", "--at", at,
                                                "--window", "30m", "--format", "json"])
            #expect(result.status == 0, "\(result.stderr)")
            let answer = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
            let forecast = try #require(answer?["forecast"] as? [String: Any])
            let chance = try #require(forecast["chanceOfOpening"] as? Double)
            #expect(abs(chance - planted) <= 0.1, "at \(at): \(chance) against the planted \(planted)")
            let reasons = try #require(forecast["reasons"] as? [[String: Any]])
            #expect(reasons.contains { ($0["kind"] as? String) == "follows" && ($0["bridgeID"] as? String) == "2" },
                    "the answer says Ballard moved it: \(reasons)")
            // A moment inside the history: the answer says its model was learnt from after it too.
            #expect(reasons.contains { ($0["kind"] as? String) == "model"
                && ($0["text"] as? String)?.contains("the model was learnt from the history to 2025-12") == true },
                    "\(reasons)")
        }
        // Two minutes into the newest stored opening (open five minutes): open on arrival, said first.
        let underWay = try await bridget.run([
            "--config", config, "predict", "--bridge", newest.bridgeID, "--window", "20m", "--format", "json",
            "--at", FloatingTimestamp(wallClockSeconds: newest.start.wallClockSeconds + 120).localText])
        #expect(underWay.status == 0, "\(underWay.stderr)")
        let open = try #require(
            (try JSONSerialization.jsonObject(with: Data(underWay.stdout.utf8)) as? [String: Any])?["forecast"]
                as? [String: Any])
        #expect(open["chanceOpenOnArrival"] as? Double == 1, "\(open)")
        #expect(((open["reasons"] as? [[String: Any]])?.first?["kind"] as? String) == "under-way", "\(open)")
        // Evidence is what happened before the moment only: the same question a minute before the opening knows
        // nothing of it.
        if let moment = quiet.last {
            let before = FloatingTimestamp(wallClockSeconds: moment.wallClockSeconds - 60).localText
            let result = try await bridget.run(["--config", config, "predict", "--bridge", "Fremont", "--at", before,
                                                "--window", "30m", "--format", "json"])
            let answer = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
            let chance = try #require((answer?["forecast"] as? [String: Any])?["chanceOfOpening"] as? Double)
            #expect(chance < planted - 0.2, "a minute before Ballard opened: \(chance)")
        }
        // Thanksgiving 2026 at 17:00 is forecast like the Sunday after it (the history's holidays were weekend
        // days), not like the Wednesday before it (a curfew).
        func chance(_ at: String) async throws -> Double {
            let result = try await bridget.run(["--config", config, "predict", "--bridge", "Fremont", "--at", at,
                                                "--window", "60m", "--format", "json"])
            #expect(result.status == 0, "\(result.stderr)")
            let answer = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
            return try #require((answer?["forecast"] as? [String: Any])?["chanceOfOpening"] as? Double)
        }
        let holiday = try await chance("2026-11-26 17:00")
        // Forecast as a Sunday, it is compared with Sundays.
        let slots = try await bridget.run(["--config", config, "predict", "--bridge", "Fremont", "--at",
                                           "2026-11-26 17:00", "--format", "json"])
        let similar = try #require(
            (try JSONSerialization.jsonObject(with: Data(slots.stdout.utf8)) as? [String: Any])?["lastSimilarSlots"]
                as? [[String: Any]])
        #expect(similar.count == 5 && similar.allSatisfy { slot in
            (slot["from"] as? String).flatMap { FloatingTimestamp($0 + ".000") }?.mondayFirstWeekday == 6
        }, "\(similar)")
        let sunday = try await chance("2026-11-29 17:00")
        let wednesday = try await chance("2026-11-25 17:00")
        #expect(abs(holiday - sunday) < 0.01, "Thanksgiving \(holiday), Sunday \(sunday)")
        #expect(holiday > 0.2 && wednesday < holiday / 5, "Thanksgiving \(holiday), Wednesday \(wednesday)")
    }
}

extension Int64 {
    /// Division rounding toward negative infinity.
    func floorDiv(_ divisor: Int64) -> Int64 {
        let quotient = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }
}

/// A skill and its interval, for messages.
enum BacktestReadingText {
    static func of(_ skill: SkillDTO) -> String {
        String(format: "%.3f [%.3f, %.3f]", skill.value, skill.low ?? .nan, skill.high ?? .nan)
    }
}
