import ArgumentParser
import BridgetAnswers
import BridgetCore
import BridgetDTOs
import Foundation

/// `bridget cascades`: bridges whose openings follow each other.
struct CascadesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cascades",
        abstract: "Bridge pairs whose openings follow each other more often than chance (lift and count).",
        discussion: """
            For each ordered pair (A, B): how often an opening of A is followed by an \
            opening of B starting within --within, against the count expected if B opened \
            independently at its own time-of-week rates. Lift above 1 means B tends to \
            follow A (a vessel passing through both, say). Only pairs at least 3 standard \
            deviations above chance (z ≥ 3) are listed unless --all is given: below that, a \
            lift is likely noise. When no pair is, the table says so in a sentence (JSON \
            and CSV stay an empty array and a header alone).
            """)

    @OptionGroup var global: GlobalOptions
    @OptionGroup var output: FormatOptions
    @OptionGroup var history: HistoryOptions
    @Option(name: .long, help: ArgumentHelp("How soon B must follow A: 15m, 1h.", valueName: "minutes"))
    var within: String = "15m"
    @Option(name: .long, help: "Leave out pairs seen fewer times.") var minCount: Int = 5
    @Flag(name: .long, help: "List every pair, the likely noise (z below 3) included.") var all = false

    /// The z-score from which a lift is listed by default.
    static let significantZ = 3.0

    func run() async throws {
        try await reportingErrors {
            let minutes = try TimeGrammar.minutes(within, option: "--within")
            let context = try global.context()
            let answers = try await HistoryAnswers.reading(context)
            try await answers.requireHistory(for: "cascades")
            let scope = try await history.scope(answers)
            let found = try await answers.processor
                .findCascades(withinMinutes: minutes, minimumCount: max(minCount, 1), in: scope)
            let cascades = all ? found : found.filter { $0.zScore >= Self.significantZ }
            let rows = cascades.map { cascade in
                [Cell(cascade.fromBridgeName), Cell(cascade.toBridgeName), Cell(cascade.count),
                 Cell(cascade.expected, decimals: 1), Cell(cascade.lift, decimals: 2), Cell(cascade.zScore, decimals: 1)]
            }
            let csv = Tabular(
                columns: ["from_bridge_id", "from_bridge", "to_bridge_id", "to_bridge", "within_minutes", "count",
                          "expected", "lift", "z_score"],
                rows: cascades.map { cascade in
                    [Cell(cascade.fromBridgeID), Cell(cascade.fromBridgeName), Cell(cascade.toBridgeID),
                     Cell(cascade.toBridgeName), Cell(cascade.withinMinutes), Cell(cascade.count),
                     Cell(raw: cascade.expected), Cell(raw: cascade.lift), Cell(raw: cascade.zScore)]
                })
            let hidden = found.count - cascades.count
            if cascades.isEmpty && output.format == .table {
                // An empty table reads as a fault; a person is told what was looked at and how to see more. JSON and
                // CSV keep their empty array and header, so a pipe still parses.
                let sentence = Self.noneFound(pairs: found.count, minutes: minutes, minimumCount: max(minCount, 1))
                let lines = OutputWriter.terminalWidth().map { Tabular.wrap(sentence, width: max($0, 20)) } ?? [sentence]
                print(lines.joined(separator: "\n").terminalSafeLines)
                return
            }
            try OutputWriter(format: output.format).write(
                cascades, tabular: Tabular(columns: ["from", "then", "count", "expected", "lift", "z"], rows: rows),
                csv: csv,
                notes: ["", "Openings of the second bridge starting within \(minutes) min after the first's, "
                        + "against the same count with its openings shifted by whole weeks.",
                        "z: standard deviations above chance. "
                        + (all ? "Below about 3 a lift is likely noise."
                               : "\(cascades.count) pairs with z ≥ 3 listed; \(hidden) more below that are likely noise "
                                 + "(--all lists them).")])
        }
    }
}

extension CascadesCommand {
    /// What the table says when no pair is listed: whether any pair was seen often enough to judge, how many were
    /// judged and found to be chance, and how to see them or look further.
    static func noneFound(pairs: Int, minutes: Int, minimumCount: Int) -> String {
        let times = minimumCount == 1 ? "once" : "\(minimumCount) times"
        guard pairs > 0 else {
            return "No pair of bridges opened one after the other within \(minutes) min at least \(times) in this "
                + "history, so none can be told apart from chance. A longer --within (say \(minutes * 2)m) or a "
                + "lower --min-count looks further."
        }
        let judged = pairs == 1 ? "the one pair seen at least \(times) within \(minutes) min is"
            : "all \(pairs) pairs seen at least \(times) within \(minutes) min are"
        return "No pair of bridges follows each other more often than chance in this history: \(judged) below "
            + "z = 3, where a lift is likely noise. --all lists \(pairs == 1 ? "it" : "them") anyway; a longer "
            + "--within (say \(minutes * 2)m) looks further."
    }
}

/// `bridget anomalies`: openings that do not fit.
struct AnomaliesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "anomalies",
        abstract: "Openings longer than their bridge's p99, or at times the model deems near-impossible.",
        discussion: """
            Judged against the whole history (each bridge's p99 duration and its opening \
            model); --bridge, --since and --until choose which anomalies are listed.
              bridget anomalies --since 30d
              bridget anomalies --bridge Fremont --format csv \\
                --since 2026-10-01 --until 2026-11-01
            """)

    @OptionGroup var global: GlobalOptions
    @OptionGroup var output: FormatOptions
    @OptionGroup var history: HistoryOptions
    @Option(name: .long, help: ArgumentHelp(
        "Show this many, newest first; 0 for all (default: 20 for a table on a terminal, else all).", valueName: "n"))
    var limit: Int?

    func run() async throws {
        try await reportingErrors {
            let context = try global.context()
            let answers = try await HistoryAnswers.reading(context)
            try await answers.requireHistory(for: "anomalies")
            let scope = try await history.scope(answers)
            let all = try await answers.processor.findAnomalies()
                .filter { scope.contains(bridgeID: $0.bridgeID, openedAt: $0.openedAt) }
            let toTerminal = output.format == .table && isatty(STDOUT_FILENO) == 1
            let cap: Int? = switch limit {
            case .some(let n) where n > 0: n
            case .some: nil
            case .none: toTerminal ? EventsCommand.terminalRows : nil
            }
            let shown = cap.map { Array(all.prefix($0)) } ?? all
            let time = context.clock
            let rows = shown.map { anomaly in
                [Cell(anomaly.bridgeName), Cell(anomaly.openedAt, time: time),
                 Cell(anomaly.durationMinutes, decimals: 0),
                 Cell(anomaly.reasons.map(\.rawValue).joined(separator: ", ")), Cell(anomaly.p99Minutes, decimals: 0),
                 Cell(percent: anomaly.slotChance)]
            }
            let csv = Tabular(
                columns: ["bridge_id", "bridge", "opened_at", "open_local", "duration_minutes", "reasons",
                          "p99_minutes", "slot_chance"],
                rows: shown.map { anomaly in
                    [Cell(anomaly.bridgeID), Cell(anomaly.bridgeName), Cell(anomaly.openedAt, time: time),
                     Cell(anomaly.openLocal), anomaly.durationMinutes.map { Cell(raw: $0) } ?? Cell(""),
                     Cell(anomaly.reasons.map(\.rawValue).joined(separator: " ")),
                     anomaly.p99Minutes.map { Cell(raw: $0) } ?? Cell(""), Cell(raw: anomaly.slotChance)]
                })
            try OutputWriter(format: output.format).write(
                shown,
                tabular: Tabular(columns: ["bridge", "opened", "minutes", "why", "p99_min", "slot_chance"], rows: rows),
                csv: csv,
                notes: ["", "\(all.count) anomalies in all."])
            if all.count > shown.count {
                Terminal.note("\(all.count - shown.count) more anomalies match than the \(shown.count) listed; "
                              + "--limit 0 lists them all")
            }
        }
    }
}
