import ArgumentParser
import BridgetDTOs
import Foundation

/// `bridget backtest`: does the model beat the base rate on data it has not seen?
struct BacktestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backtest",
        abstract: "Fit on the past, score on a held-out period: Brier score and log loss against climatology.",
        discussion: """
            The model is fitted on openings before --train-until and asked, every 15
            minutes of the test period, for the chance that an opening starts within the
            next 15 and 30 minutes. Brier score and log loss (lower is better) are
            compared with climatology, the bridge's base rate; skill = 1 − Brier/Brier of
            climatology. The reliability table groups forecasts in deciles and shows how
            often the opening happened: a calibrated model observes about what it
            predicts.
            """)

    @OptionGroup var global: GlobalOptions
    @OptionGroup var output: FormatOptions

    @Option(name: .long, help: "First Seattle day of the test period (YYYY-MM-DD); training uses the days before.")
    var trainUntil: String

    @Option(name: .long, help: "First Seattle day after the test period (default: after the last stored day).")
    var testUntil: String?

    func run() async throws {
        try await reportingErrors {
            guard let train = LocalDay(trainUntil) else {
                throw BridgetError.validation("bad-date", "--train-until '\(trainUntil)' is not YYYY-MM-DD")
            }
            let test = try testUntil.map { text -> LocalDay in
                guard let day = LocalDay(text) else {
                    throw BridgetError.validation("bad-date", "--test-until '\(text)' is not YYYY-MM-DD")
                }
                return day
            }
            let context = try CommandContext.load(global)
            let store = try await context.openStoreForReading()
            let result = try await context.assembly.makeProcessor(store: store)
                .backtest(trainUntil: train.number, testUntil: test?.number)
            var rows: [[Cell]] = []
            for window in result.windows {
                for score in window.bridges + [window.overall] {
                    rows.append([Cell("\(window.minutes) min"), Cell(score.bridgeName ?? "all bridges"), Cell(score.points),
                                 Cell(score.positives), Cell(score.brier, decimals: 4), Cell(score.brierClimatology, decimals: 4),
                                 Cell(score.logLoss, decimals: 4), Cell(score.logLossClimatology, decimals: 4),
                                 Cell(score.skill, decimals: 3)])
                }
            }
            var notes = ["", "Trained on \(result.trainFrom ?? "?") to \(result.testFrom) (\(result.trainOpenings) openings); "
                         + "tested \(result.testFrom) up to \(result.testUntil) (\(result.testOpenings) openings)."]
            for window in result.windows {
                notes.append("")
                notes.append("Reliability, \(window.minutes)-minute window (predicted → observed, forecasts):")
                for bin in window.reliability where bin.count > 0 {
                    notes.append(String(format: "  %3.0f–%3.0f%%   %5.1f%% → %5.1f%%   %d", bin.lower * 100, bin.upper * 100,
                                        (bin.meanPredicted ?? 0) * 100, (bin.observed ?? 0) * 100, bin.count))
                }
            }
            try OutputWriter(format: output.format).write(
                result,
                tabular: Tabular(columns: ["window", "bridge", "points", "openings", "brier", "brier_clim", "log_loss",
                                           "log_loss_clim", "skill"], rows: rows),
                notes: notes)
        }
    }
}
