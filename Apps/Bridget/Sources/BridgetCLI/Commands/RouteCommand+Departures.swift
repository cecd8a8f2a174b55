import ArgumentParser
import BridgetAnalysis
import BridgetAnswers
import BridgetCore
import BridgetDTOs
import Foundation

/// `route score`, `route best-time` and `route compare`: the answers about departures.
extension RouteCommand {

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
                let answers = try await RouteAnswers.reading(context)
                try await answers.requireHistory(for: "route scoring")
                let route = try await answers.savedRoute(named: name)
                let time = context.clock
                let answer = try await answers.bestTime(route, between: (range.between[0], range.between[1]), date: range.date,
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
                let time = context.clock
                let comparison = try await RouteAnswers.reading(context).compare(
                    first, second, between: (range.between[0], range.between[1]), date: range.date,
                    stepMinutes: stepMinutes)
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
