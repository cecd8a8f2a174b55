import ArgumentParser
import BridgetAnalysis
import BridgetAnswers
import BridgetCore
import BridgetDTOs
import Foundation

/// `bridget patterns`: one bridge's opening profile and how it relates to road traffic.
struct PatternsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "patterns",
        abstract: "A bridge's openings by hour and weekday, its peak hours, and the link with road congestion.")

    @OptionGroup var global: GlobalOptions
    @OptionGroup var output: FormatOptions
    @Option(name: .long, help: "A bridge id or name (e.g. 3 or Fremont).") var bridge: [String] = []
    @Option(name: .long, help: ArgumentHelp("Only openings at or after this time (as for every history command).",
                                            valueName: "time"))
    var since: String?
    @Option(name: .long, help: ArgumentHelp("Only openings before this time (exclusive).", valueName: "time"))
    var until: String?

    func validate() throws { try requireOneBridge(bridge, command: "patterns") }

    func run() async throws {
        try await reportingErrors {
            let context = try global.context()
            let answers = try await HistoryAnswers.reading(context)
            try await answers.requireHistory(for: "patterns")
            let target = try await answers.bridge(named: bridge[0])
            let scope = try await HistoryOptions(bridge: [target.id], since: since, until: until).scope(answers)
            let analysis = try await answers.processor
                .analyzeTrafficPatterns(bridgeID: target.id, in: scope)
            let rows = (0..<24).map { hour in
                [Cell(String(format: "%02d:00", hour)), Cell(analysis.openingsByHour[hour]),
                 Cell(String(repeating: "▇", count: analysis.openingsByHour.max().map {
                     $0 > 0 ? analysis.openingsByHour[hour] * 40 / $0 : 0 } ?? 0))]
            }
            let days = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
            let weekdays = zip(days, analysis.openingsByWeekday).map { "\($0) \($1)" }.joined(separator: "  ")
            let correlation = analysis.congestionCorrelation.map {
                String(format: "%.2f (Pearson, openings per hour against congestion in that hour)", $0)
            } ?? "no traffic observations stored (the sample provider generates them)"
            let dayNames = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
            let facts = (0..<24).map { hour in
                [Cell(target.id), Cell(target.name), Cell("hour"), Cell(String(hour)), Cell(analysis.openingsByHour[hour])]
            } + (0..<7).map { day in
                [Cell(target.id), Cell(target.name), Cell("weekday"), Cell(dayNames[day]), Cell(analysis.openingsByWeekday[day])]
            }
            try OutputWriter(format: output.format).write(
                analysis, tabular: Tabular(columns: ["hour", "openings", ""], rows: rows),
                csv: Tabular(columns: ["bridge_id", "bridge", "by", "value", "openings"], rows: facts),
                notes: ["", "\(target.name): \(analysis.openings) openings (\(context.clock.zone.identifier) time). By weekday: \(weekdays).",
                        "Peak hours: " + analysis.peakHours.map { String(format: "%02d:00", $0) }.joined(separator: ", "),
                        "Congestion correlation: \(correlation)"])
        }
    }
}
