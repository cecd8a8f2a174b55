import ArgumentParser
import BridgetAnalysis
import BridgetAnswers
import BridgetDTOs
import Foundation

/// `bridget stats`: per-bridge opening statistics.
struct StatsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Openings, openings per day, durations and the busiest hour, per bridge.",
        discussion: """
            Durations are close − open in minutes. Median and p90 use the nearest-rank \
            rule (the value at rank ⌈p·n⌉ of the sorted durations). Openings per day \
            divide by the days from the first to the last stored opening (local dates in the store's zone, \
            inclusive). The busiest hour is the local hour (Seattle's, or the source's zone) in which most openings \
            start. --bridge, --since and --until limit the figures to those bridges and \
            openings (--until exclusive):
              bridget stats --bridge Fremont \\
                --since 2026-01-01 --until 2026-07-01
            """)

    @OptionGroup var global: GlobalOptions
    @OptionGroup var output: FormatOptions
    @OptionGroup var history: HistoryOptions

    @Flag(name: .long, help: """
        Draw a 7×24 hour-of-week heatmap per bridge (plain when piped or NO_COLOR); with --format json, its counts; \
        with --format csv, a row per bridge, weekday and hour.
        """)
    var heatmap = false

    func run() async throws {
        try await reportingErrors {
            let context = try global.context()
            let answers = try await HistoryAnswers.reading(context)
            let scope = try await history.scope(answers)
            let statistics = try await answers.statistics(in: scope)
            let rows = statistics.bridges.map { bridge in
                [Cell(bridge.bridgeID), Cell(bridge.bridgeName), Cell(bridge.openings),
                 Cell(bridge.openingsPerDay, decimals: 2), Cell(bridge.meanMinutes), Cell(bridge.medianMinutes),
                 Cell(bridge.p90Minutes), Cell(bridge.maxMinutes),
                 Cell(bridge.busiestHour.map { String(format: "%02d:00", $0) } ?? "-")]
            }
            if heatmap && output.format == .json {
                print(try OutputWriter.json(HeatmapOutput(statistics, zone: context.clock.zone)))
                return
            }
            if heatmap && output.format == .csv {
                print(Self.heatmapCSV(HeatmapOutput(statistics, zone: context.clock.zone)).renderCSV())
                return
            }
            if heatmap && output.format == .table {
                let map = Heatmap.forStandardOutput(environment: context.environment)
                let sections = statistics.bridges.map { bridge in
                    map.render(title: "\(bridge.bridgeName) (\(bridge.openings) openings, \(context.clock.zone.identifier) time)",
                               counts: bridge.hourOfWeek)
                }
                print(sections.joined(separator: "\n\n").terminalSafeLines)
                print("\n" + map.legend())
                return
            }
            var notes = [""]
            if statistics.totalOpenings == 0 {
                let filtered = scope != .everything
                notes.append(filtered ? "No stored opening matches --bridge, --since and --until."
                                      : "No openings stored yet: run `bridget sync`.")
            } else {
                notes.append("\(statistics.totalOpenings) openings over \(statistics.days) day\(statistics.days == 1 ? "" : "s") "
                             + "(\(statistics.firstDay ?? "?") to \(statistics.lastDay ?? "?"), \(context.clock.zone.identifier) time), "
                             + "from \(statistics.totalRows) rows on record: rows of a bridge less than "
                             + "\(String(format: "%g", statistics.mergeGapMinutes)) min apart are one opening.")
            }
            let answer = try await answers.stats(statistics, in: scope)
            if statistics.totalOpenings > 0 { notes.append(answer.provenance.sentence) }
            if let source = answer.source { notes.append("Source: \(source).") }
            try OutputWriter(format: output.format).write(
                answer,
                tabular: Tabular(
                    columns: ["id", "bridge", "openings", "per_day", "mean_min", "median_min", "p90_min", "max_min",
                              "busiest_hour"],
                    rows: rows),
                notes: notes)
        }
    }
}

extension StatsCommand {
    /// The heatmap's counts in long form, as `--heatmap --format csv` prints them: a row per bridge, weekday (`mon` …
    /// `sun`, Monday first as the JSON's rows) and hour (0–23, local), every cell included, zero or not.
    static func heatmapCSV(_ heatmap: HeatmapOutput) -> Tabular {
        let weekdays = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
        var rows: [[Cell]] = []
        for bridge in heatmap.bridges {
            for (day, hours) in bridge.hourOfWeek.enumerated() where day < weekdays.count {
                for (hour, count) in hours.enumerated() {
                    rows.append([Cell(bridge.bridgeID), Cell(bridge.bridgeName), Cell(weekdays[day]), Cell(hour),
                                 Cell(count)])
                }
            }
        }
        return Tabular(columns: ["bridge_id", "bridge", "weekday", "hour", "openings"], rows: rows)
    }
}
