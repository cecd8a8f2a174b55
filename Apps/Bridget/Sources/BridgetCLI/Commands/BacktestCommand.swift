import ArgumentParser
import BridgetApp
import BridgetAnalysis
import BridgetDTOs
import BridgetPersistence
import Foundation

/// `bridget backtest`: does the model beat the base rate on data it has not seen?
struct BacktestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backtest",
        abstract: "Fit on the past, score on a held-out period: Brier score and log loss against climatology.",
        discussion: """
            The model is fitted on openings before --train-until and asked, every 15 \
            minutes of the test period, for the chance that an opening starts within the \
            next 15 and 30 minutes. Brier score and log loss (lower is better) are \
            compared with climatology, the bridge's base rate; skill = 1 − Brier/Brier of \
            climatology. The reliability table groups forecasts in deciles and shows how \
            often the opening happened: a calibrated model observes about what it \
            predicts. Without --train-until the last quarter of the stored days is held out. \
            Days are local dates; --test-until is exclusive, like every --until (--until is \
            the same option). --bridge scores those bridges only; --since leaves out the history \
            before it.
              bridget backtest
              bridget backtest --train-until 2026-06-01 \\
                --test-until 2026-09-01
            """)

    @OptionGroup var global: GlobalOptions
    @OptionGroup var output: FormatOptions
    @OptionGroup var history: HistoryOptions

    @Option(name: .long, help: ArgumentHelp(
        "First day of the test period (2026-06-01, or 90d ago); training uses the days before "
            + "(default: the last quarter of the stored days is the test period).", valueName: "date"))
    var trainUntil: String?

    @Option(name: .long, help: ArgumentHelp(
        "First day after the test period (default: the day after the last stored day).", valueName: "date"))
    var testUntil: String?

    func run() async throws {
        try await reportingErrors {
            let context = try global.context()
            let store = try await context.openStoreForReading()
            try await context.requireHistory(store, for: "backtest")
            let grammar = context.timeGrammar
            func day(_ text: String, _ option: String) throws -> LocalDay {
                LocalDay(containing: try grammar.instant(text, option: option, direction: .back), time: grammar.clock)
            }
            guard testUntil == nil || history.until == nil else {
                throw BridgetError.validation("bad-range", "--until and --test-until are the same option; give one")
            }
            var scope = try await history.scope(context, store: store)
            let test = try (testUntil.map { try day($0, "--test-until") }) ?? scope.before.map {
                LocalDay(containing: $0.addingTimeInterval(-1), time: grammar.clock).number
            }.map { LocalDay(number: $0 + 1) }
            scope.before = nil // the test period's end is `test`, in days
            let first = try await store.events(matching: EventQuery(openedFrom: scope.from, limit: 1, happened: true)).first
            let last = try await store.events(matching: EventQuery(limit: 1, newestFirst: true, happened: true)).first
            let firstDay = first.map { LocalDay(containing: $0.openedAt, time: grammar.clock).number } ?? 0
            let lastStored = last.map { LocalDay(containing: $0.openedAt, time: grammar.clock).number } ?? firstDay
            let train: LocalDay
            if let trainUntil {
                train = try day(trainUntil, "--train-until")
                guard train.number <= lastStored else {
                    throw BridgetError.validation(
                        "bad-range", "--train-until \(trainUntil) is after the stored history (\(LocalDay(number: firstDay)) to "
                            + "\(LocalDay(number: lastStored))): nothing is left to test",
                        hint: "choose a day within the history, or leave --train-until out to test on its last quarter")
                }
            } else {
                let lastDay = test.map { $0.number - 1 } ?? lastStored
                train = LocalDay(number: firstDay + max(1, (lastDay - firstDay + 1) * 3 / 4))
                Terminal.note("testing on the last quarter of the history, from \(train) (--train-until chooses)")
            }
            let result = try await context.assembly.makeProcessor(store: store)
                .backtest(trainUntil: train.number, testUntil: test?.number, in: scope)
            var rows: [[Cell]] = []
            for window in result.windows {
                for score in window.bridges + [window.overall] {
                    rows.append([Cell("\(window.minutes) min"), Cell(score.bridgeName ?? "all bridges"), Cell(score.points),
                                 Cell(score.positives), Cell(score.brier, decimals: 4), Cell(score.brierClimatology, decimals: 4),
                                 Cell(score.logLoss, decimals: 4), Cell(score.logLossClimatology, decimals: 4),
                                 Cell(score.skill, decimals: 3)])
                }
            }
            var notes = ["", Self.verdict(result), "Trained on \(result.trainFrom ?? "?") to \(result.testFrom) (\(result.trainOpenings) openings); "
                         + "tested \(result.testFrom) up to \(result.testUntil) (\(result.testOpenings) openings)."]
            for window in result.windows {
                notes.append("")
                notes.append("Reliability, \(window.minutes)-minute window (predicted → observed, forecasts):")
                for bin in window.reliability where bin.count > 0 {
                    notes.append(String(format: "  %3.0f–%3.0f%%   %5.1f%% → %5.1f%%   %d", bin.lower * 100, bin.upper * 100,
                                        (bin.meanPredicted ?? 0) * 100, (bin.observed ?? 0) * 100, bin.count))
                }
            }
            var facts: [[Cell]] = []
            for window in result.windows {
                for score in window.bridges + [window.overall] {
                    facts.append([Cell(window.minutes), Cell(score.bridgeID ?? ""), Cell(score.bridgeName ?? "all bridges"),
                                  Cell(result.testFrom), Cell(result.testUntil), Cell(score.points), Cell(score.positives),
                                  Cell(raw: score.brier), Cell(raw: score.brierClimatology), Cell(raw: score.logLoss),
                                  Cell(raw: score.logLossClimatology), Cell(raw: score.skill)])
                }
            }
            try OutputWriter(format: output.format).write(
                result,
                tabular: Tabular(columns: ["window", "bridge", "points", "openings", "brier", "brier_clim", "log_loss",
                                           "log_loss_clim", "skill"], rows: rows),
                csv: Tabular(columns: ["window_minutes", "bridge_id", "bridge", "test_from", "test_until", "points",
                                       "openings", "brier", "brier_climatology", "log_loss", "log_loss_climatology",
                                       "skill"], rows: facts),
                notes: notes)
        }
    }

    /// One plain sentence: whether the forecasts beat the base rate, and how far predicted and observed chances
    /// lie apart in the reliability bins with at least 30 forecasts.
    static func verdict(_ result: BacktestDTO) -> String {
        guard let window = result.windows.first else { return "No forecasts could be scored." }
        let scored = window.bridges.filter { $0.points > 0 && $0.positives > 0 }
        let beating = scored.filter { $0.skill > 0 }
        let head: String
        if scored.isEmpty {
            head = "No bridge opened in the test period, so the forecasts cannot be judged"
        } else if beating.count == scored.count {
            head = "Forecasts beat the base rate on every bridge (\(window.minutes)-minute window)"
        } else if beating.isEmpty {
            head = "Forecasts do not beat the base rate on any bridge (\(window.minutes)-minute window)"
        } else {
            let losing = scored.filter { $0.skill <= 0 }.compactMap(\.bridgeName)
            head = "Forecasts beat the base rate on \(beating.count) of \(scored.count) bridges, not on "
                + losing.joined(separator: ", ") + " (\(window.minutes)-minute window)"
        }
        let gaps = window.reliability.filter { $0.count >= 30 }.compactMap { bin -> Double? in
            guard let predicted = bin.meanPredicted, let observed = bin.observed else { return nil }
            return abs(predicted - observed) * 100
        }
        guard let worst = gaps.max() else { return head + "." }
        return head + String(format: "; reliable within %.0f points.", worst.rounded(.up))
    }
}
