import ArgumentParser
import BridgetAnalysis
import BridgetAnswers
import BridgetCore
import BridgetDTOs
import BridgetPersistence
import Foundation

/// `route score`, `route best-time` and `route compare`: the answers about departures.
extension RouteCommand {
    /// `route score`.
    struct Score: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "score", 
            abstract: "Per crossing: arrival, chance open, chance of an opening, expected delay; the best bridge.")
        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: FormatOptions
        @Argument(help: "The route's name.") var name: String
        @Option(name: .long, help: ArgumentHelp(
            "Departure: 17:40 (the next 17:40), 2026-12-01 17:40, +30m, now (default: now).", valueName: "time"))
        var depart: String?

        /// What moved each crossing's forecast, one line a bridge (none when nothing did).
        static func reasonLines(_ score: RouteScoreDTO) -> [String] {
            var lines: [String] = []
            for crossing in score.crossings {
                for option in crossing.options where !option.reasons.isEmpty {
                    lines.append("  \(option.bridgeName): " + option.reasons.joined(separator: "; "))
                }
            }
            return lines.isEmpty ? [] : ["Why:"] + lines
        }

        func run() async throws {
            try await reportingErrors {
                let context = try global.context()
                let store = try await context.openStoreForReading()
                try await context.requireHistory(store, for: "route scoring")
                let route = try await RouteAnswers.route(name, in: try await context.savedRoutes(store))
                let time = context.clock
                let (score, resolved) = try await RouteAnswers(context: context, store: store)
                    .score(route, depart: depart, option: "--depart")
                if let note = resolved.note { Terminal.note("--depart: " + note) }
                let departure = resolved.reading
                var rows: [[Cell]] = []
                for crossing in score.crossings {
                    for option in crossing.options {
                        let chosen = option.bridgeID == crossing.best.bridgeID && crossing.options.count > 1
                        rows.append([
                            Cell(option.bridgeID == crossing.options[0].bridgeID ? "\(crossing.position)" : ""),
                            Cell(option.bridgeID == crossing.options[0].bridgeID ? String(crossing.arrival.dropFirst(11).prefix(5)) : ""),
                            Cell(option.bridgeName + (chosen ? " ✓" : "")),
                            Cell(percent: option.chanceOpenOnArrival),
                            Cell(percent: option.chanceOfOpening),
                            Cell(option.expectedDelayMinutes, decimals: 2),
                        ])
                    }
                }
                // CSV: one row per bridge of each crossing, with the route, the times and raw numbers in every row.
                var facts: [[Cell]] = []
                for crossing in score.crossings {
                    for option in crossing.options {
                        facts.append([
                            Cell(score.route), Cell(resolved.instant, time: time), Cell(departure.localText),
                            Cell(crossing.position),
                            Cell(crossing.arrival), Cell(option.bridgeID), Cell(option.bridgeName),
                            Cell(option.bridgeID == crossing.best.bridgeID ? "true" : "false"),
                            Cell(raw: option.chanceOpenOnArrival), Cell(raw: option.chanceOfOpening),
                            Cell(raw: option.expectedDelayMinutes), Cell(raw: score.totalExpectedDelayMinutes),
                        ])
                    }
                }
                try OutputWriter(format: output.format).write(
                    score,
                    tabular: Tabular(columns: ["crossing", "arrive", "bridge", "open_on_arrival",
                                               "opening_in_\(RouteScoreDTO.approachMinutes)min", "delay_min"], rows: rows,
                                     dropFirst: ["opening_in_\(RouteScoreDTO.approachMinutes)min", "open_on_arrival", "crossing"]),
                    csv: Tabular(columns: ["route", "depart", "depart_local", "crossing", "arrive_local", "bridge_id", "bridge",
                                           "best", "chance_open_on_arrival", "chance_of_opening",
                                           "expected_delay_minutes", "route_expected_delay_minutes"], rows: facts),
                    notes: ["", "Leaving \(score.departure.prefix(16).replacingOccurrences(of: "T", with: " ")) (\(time.zone.identifier) time): "
                            + String(format: "expected delay %.2f min in all", score.totalExpectedDelayMinutes)
                            + (score.crossings.contains { $0.options.count > 1 } ? "; ✓ marks the better bridge." : ".")]
                        + Self.reasonLines(score))
            }
        }
    }

    /// `route best-time`.
    struct BestTime: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "best-time", abstract: "Departure times in a range, ranked by total expected delay.")
        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: FormatOptions
        @Argument(help: "The route's name.") var name: String
        @OptionGroup var range: DepartureRange
        @Option(name: .long, help: "Show this many; 0 for all.") var top: Int = 10

        func run() async throws {
            try await reportingErrors {
                guard range.between.count == 2 else {
                    throw BridgetError(.inputBadRange, "--between takes two times, e.g. --between 16:00 18:30")
                }
                let stepMinutes = try TimeGrammar.minutes(range.step, option: "--step")
                let context = try global.context()
                let store = try await context.openStoreForReading()
                try await context.requireHistory(store, for: "route scoring")
                let route = try await RouteAnswers.route(name, in: try await context.savedRoutes(store))
                let time = context.clock
                let answer = try await RouteAnswers(context: context, store: store)
                    .bestTime(route, between: (range.between[0], range.between[1]), date: range.date,
                              stepMinutes: stepMinutes, top: top)
                let (day, clockNotes, ranked, shown) = (answer.day, answer.clockNotes, answer.ranked, answer.shown)
                let best = answer.least
                let rows = shown.enumerated().map { index, score in
                    [Cell(index + 1), Cell(String(score.departure.dropFirst(11).prefix(5))),
                     Cell(score.totalExpectedDelayMinutes, decimals: 2),
                     Cell(Int(((score.totalExpectedDelayMinutes - best) * 60).rounded())),
                     Cell(score.crossings.map(\.best.bridgeName).joined(separator: " → "))]
                }
                let tied = answer.tied
                let byTime = ranked.map { String($0.departure.dropFirst(11).prefix(5)) }.sorted()
                var notes = ["", "\(ranked.count) departures on \(RouteCommand.dayWords(day, clock: time, now: context.assembly.now())) "
                             + "from \(byTime.first ?? range.between[0]) to \(byTime.last ?? range.between[1]) every "
                             + "\(stepMinutes) min, least expected delay first (\(time.zone.identifier) time)."]
                if tied > 1 {
                    notes.append("Best: any of \(tied) departures, \(answer.tiedText), "
                                 + String(format: "%.2f", best) + " min of expected delay (the same to a hundredth of a "
                                 + "minute; listed earliest first, the rest by delay).")
                } else if let first = ranked.first {
                    notes.append("Best: \(first.departure.dropFirst(11).prefix(5)), "
                                 + String(format: "%.2f", best) + " min of expected delay.")
                }
                notes += clockNotes.notes
                if !clockNotes.skipped.isEmpty {
                    Terminal.note(clockNotes.skipped.sorted().map { String($0.dropFirst(11).prefix(5)) }
                        .joined(separator: ", ") + " do not exist on \(day) (the clocks skip them); left out")
                }
                try OutputWriter(format: output.format).write(
                    shown, tabular: Tabular(columns: ["rank", "depart", "delay_min", "vs_best_s", "via"], rows: rows),
                    csv: Tabular(
                        columns: ["rank", "route", "depart", "depart_local", "expected_delay_minutes", "seconds_more_than_best",
                                  "ties_with_best", "via_bridge_ids"],
                        rows: shown.enumerated().map { index, score in
                            [Cell(index + 1), Cell(score.route),
                             Cell(FloatingTimestamp(score.departure + ".000").map { time.openingInstant(for: $0) }, time: time),
                             Cell(score.departure), Cell(raw: score.totalExpectedDelayMinutes),
                             Cell(raw: (score.totalExpectedDelayMinutes - best) * 60),
                             Cell(score.tiesWithBest == true ? "true" : "false"),
                             Cell(score.crossings.map(\.best.bridgeID).joined(separator: " "))]
                        }),
                    notes: notes)
            }
        }
    }

    /// `route compare`.
    struct Compare: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "compare", 
            abstract: "Which of two routes has less expected delay, departure by departure.",
            discussion: """
                Scores both routes for each departure in the range and says which is better \
                when: runs of departures where one route wins by 10 seconds or more; \
                closer than that they tie.
                  bridget route compare commute scenic --between 7:00 9:00
                """)
        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: FormatOptions
        @Argument(help: "The first route's name.") var first: String
        @Argument(help: "The second route's name.") var second: String
        @OptionGroup var range: DepartureRange

        func run() async throws {
            try await reportingErrors {
                guard range.between.count == 2 else {
                    throw BridgetError(.inputBadRange, "--between takes two times, e.g. --between 7:00 9:00")
                }
                let stepMinutes = try TimeGrammar.minutes(range.step, option: "--step")
                let context = try global.context()
                let store = try await context.openStoreForReading()
                let time = context.clock
                let comparison = try await RouteComparison.compare(
                    first, second, between: (range.between[0], range.between[1]), date: range.date,
                    stepMinutes: stepMinutes, context: context, store: store)
                let (day, rows, sentence) = (comparison.day, comparison.rows, comparison.sentence)
                let table = rows.map { row in
                    [Cell(String(row.departure.dropFirst(11).prefix(5))), Cell(row.delays[first] ?? 0, decimals: 2),
                     Cell(row.delays[second] ?? 0, decimals: 2), Cell(row.better ?? "tie")]
                }
                try OutputWriter(format: output.format).write(
                    rows,
                    tabular: Tabular(columns: ["depart", "\(first)_delay_min", "\(second)_delay_min", "better"], rows: table),
                    csv: Tabular(columns: ["depart", "depart_local", "route", "expected_delay_minutes", "better"],
                                 rows: rows.flatMap { row in
                                     [first, second].map { name in
                                         [Cell(FloatingTimestamp(row.departure + ".000").map { time.openingInstant(for: $0) },
                                               time: time),
                                          Cell(row.departure), Cell(name), Cell(raw: row.delays[name] ?? 0),
                                          Cell(row.better ?? "")]
                                     }
                                 }),
                    notes: ["", "On \(RouteCommand.dayWords(day, clock: time, now: context.assembly.now())) (\(time.zone.identifier) time): " + (sentence.isEmpty ? "no departures." : sentence + ".")]
                        + comparison.clockNotes.notes)
            }
        }
    }

    /// "Monday 2026-11-30 (tomorrow)": a day of departures (`YYYY-MM-DD`), seen from `now`.
    static func dayWords(_ day: String, clock: LocalClock, now: Date) -> String {
        LocalDay(day)?.words(from: LocalDay(containing: now, time: clock)) ?? day
    }

    /// The departures `best-time` and `compare` consider: a range of times of day on one day, every `step`.
    struct DepartureRange: ParsableArguments {
        @Option(name: .long, parsing: .upToNextOption, help: ArgumentHelp(
            "Earliest and latest departure, times of day: --between 7:00 9:30.",
            valueName: "from> <to"))
        var between: [String] = ["6:00", "21:00"]
        @Option(name: .long, help: ArgumentHelp(
            "The day: 2026-12-01, today, tomorrow, a weekday such as mon (the next one), or a span ahead such as 1d "
                + "(default: the range's next occurrence: today's while its end is ahead, from the next departure; "
                + "else tomorrow's).",
            valueName: "date"))
        var date: String?
        @Option(name: .long, help: "Minutes between the departures considered: 5m, 10m.") var step: String = "5m"
    }
}
