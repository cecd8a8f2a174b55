import ArgumentParser
import BridgetDTOs
import Foundation

/// `bridget cascades`: bridges whose openings follow each other.
struct CascadesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cascades",
        abstract: "Bridge pairs whose openings follow each other more often than chance (lift and count).",
        discussion: """
            For each ordered pair (A, B): how often an opening of A is followed by an
            opening of B starting within --within, against the count expected if B opened
            independently at its own time-of-week rates. Lift above 1 means B tends to
            follow A (a vessel passing through both, say).
            """)

    @OptionGroup var global: GlobalOptions
    @OptionGroup var output: FormatOptions
    @Option(name: .long, help: "How soon B must follow A, e.g. 15m (default 15m).") var within: String = "15m"
    @Option(name: .long, help: "Leave out pairs seen fewer times (default 5).") var minCount: Int = 5

    func run() async throws {
        try await reportingErrors {
            let minutes = try TimeArgument.minutes(within, option: "--within")
            let context = try CommandContext.load(global)
            let store = try await context.openStoreForReading()
            let cascades = try await context.assembly.makeProcessor(store: store)
                .findCascades(withinMinutes: minutes, minimumCount: max(minCount, 1))
            let rows = cascades.map { cascade in
                [Cell(cascade.fromBridgeName), Cell(cascade.toBridgeName), Cell(cascade.count),
                 Cell(cascade.expected, decimals: 1), Cell(cascade.lift, decimals: 2), Cell(cascade.zScore, decimals: 1)]
            }
            try OutputWriter(format: output.format).write(
                cascades, tabular: Tabular(columns: ["from", "then", "count", "expected", "lift", "z"], rows: rows),
                notes: ["", "Openings of the second bridge starting within \(minutes) min after the first's, "
                        + "against the same count with its openings shifted by whole weeks.",
                        "z: standard deviations above chance; below about 3 a lift is likely noise."])
        }
    }
}

/// `bridget anomalies`: openings that do not fit.
struct AnomaliesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "anomalies",
        abstract: "Openings longer than their bridge's p99, or at times the model deems near-impossible.")

    @OptionGroup var global: GlobalOptions
    @OptionGroup var output: FormatOptions
    @Option(name: .long, help: "Show this many, newest first (default 20; 0 for all).") var limit: Int = 20

    func run() async throws {
        try await reportingErrors {
            let context = try CommandContext.load(global)
            let store = try await context.openStoreForReading()
            let all = try await context.assembly.makeProcessor(store: store).findAnomalies()
            let shown = limit > 0 ? Array(all.prefix(limit)) : all
            let rows = shown.map { anomaly in
                [Cell(anomaly.bridgeName), Cell(anomaly.openLocal.replacingOccurrences(of: "T", with: " ")),
                 Cell(anomaly.durationMinutes, decimals: 0),
                 Cell(anomaly.reasons.map(\.rawValue).joined(separator: ", ")), Cell(anomaly.p99Minutes, decimals: 0),
                 Cell(PredictCommand.percent(anomaly.slotChance))]
            }
            try OutputWriter(format: output.format).write(
                shown,
                tabular: Tabular(columns: ["bridge", "opened", "minutes", "why", "p99_min", "slot_chance"], rows: rows),
                notes: ["", "\(all.count) anomalies in all (Seattle time)."])
        }
    }
}
