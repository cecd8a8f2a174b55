import ArgumentParser
import BridgetAnalysis
import BridgetAnswers
import BridgetCore
import BridgetDTOs
import Foundation

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
                let answers = try await RouteAnswers.reading(context)
                try await answers.requireHistory(for: "route scoring")
                let route = try await answers.savedRoute(named: name)
                let time = context.clock
                let (score, resolved) = try await answers.score(route, depart: depart, option: "--depart")
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
}
