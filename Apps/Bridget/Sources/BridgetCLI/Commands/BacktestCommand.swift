import ArgumentParser
import BridgetAnalysis
import BridgetAnswers
import BridgetCore
import BridgetDTOs
import Foundation

/// `bridget backtest`: does the model beat the base rate on data it has not seen?
struct BacktestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backtest",
        abstract: "Fit on the past, score on a held-out period: the forecast, the time of week alone and the base rate.",
        discussion: """
            The model is fitted on openings before --train-until and asked, every 15 \
            minutes of the test period, for the chance that an opening starts within the \
            next 15 and 30 minutes, three ways: the forecast (the time of week, the rules, \
            and the test period's openings before that moment at the other bridges), the \
            time of week alone, and climatology (the bridge's base rate). Skill = 1 − \
            Brier/Brier of climatology, with a 95% interval (jackknife over the test days); \
            "beats" is said only where the interval is above zero. Each bridge is scored on \
            all moments and on those within 30 min after a neighbour's opening (the bridge a \
            vessel passes just before, learnt from the history). The reliability table groups \
            forecasts in deciles and shows how often the opening happened: a calibrated \
            model observes about what it predicts. Without --train-until the last quarter of the stored days is held out, 92 days at most. \
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
            let answers = try await HistoryAnswers.reading(context)
            try await answers.requireHistory(for: "backtest")
            let grammar = context.timeGrammar
            func day(_ text: String, _ option: String) throws -> LocalDay {
                LocalDay(containing: try grammar.instant(text, option: option, direction: .back), time: grammar.clock)
            }
            guard testUntil == nil || history.until == nil else {
                throw BridgetError(.inputBadRange, "--until and --test-until are the same option; give one")
            }
            var scope = try await history.scope(answers)
            let test = try (testUntil.map { try day($0, "--test-until") }) ?? scope.before.map {
                LocalDay(containing: $0.addingTimeInterval(-1), time: grammar.clock).number
            }.map { LocalDay(number: $0 + 1) }
            scope.before = nil // the test period's end is `test`, in days
            let plan = try await answers.backtestPlan(trainUntil: try trainUntil.map { try day($0, "--train-until") },
                                                      testUntil: test, from: scope.from)
            if plan.defaulted {
                Terminal.note("testing on the last quarter of the history (\(Backtester.defaultTestDays) days at most), "
                              + "from \(plan.train) (--train-until chooses)")
            }
            let result = try await answers.backtest(plan, in: scope)
            let (rows, notes, facts) = (Self.rows(result), Self.notes(result), Self.facts(result))
            try OutputWriter(format: output.format).write(
                result,
                tabular: Tabular(columns: ["window", "bridge", "times_tested", "followed_by_opening", "forecast_skill (95%)",
                                           "time_of_week_skill (95%)", "after_neighbour", "off_by"], rows: rows),
                csv: Tabular(columns: ["window_minutes", "bridge_id", "bridge", "test_from", "test_until", "points",
                                       "openings", "brier", "brier_climatology", "log_loss", "log_loss_climatology",
                                       "skill", "skill_low", "skill_high", "slot_skill", "slot_skill_low", "slot_skill_high",
                                       "after_neighbour_points", "after_neighbour_skill", "after_neighbour_skill_low",
                                       "after_neighbour_skill_high", "after_neighbour_slot_skill",
                                       "after_neighbour_reliability_error"], rows: facts),
                notes: notes)
        }
    }

    /// The table: a row per window and bridge (and all bridges).
    static func rows(_ result: BacktestDTO) -> [[Cell]] {
        var rows: [[Cell]] = []
        for window in result.windows {
            for bridge in window.bridges.map(\.bridgeID) + [nil] {
                guard let all = window.comparison(bridgeID: bridge) else { continue }
                let after = window.comparison(bridgeID: bridge, subset: "after-neighbour")
                rows.append([
                    Cell("\(window.minutes) min"), Cell(all.bridgeName ?? "all bridges"), Cell(all.points),
                    Cell(all.positives), Cell(BacktestReading.skill(all.nowcast)), Cell(BacktestReading.skill(all.slot)),
                    Cell(after.map { $0.points > 0 ? String(format: "%+.3f", $0.nowcast.value) : "–" } ?? "–"),
                    Cell(after?.reliabilityError.map { String(format: "%.0f pts", ($0 * 100).rounded(.up)) } ?? "–"),
                ])
            }
        }
        return rows
    }

    /// The verdict, the periods, what the columns mean, and each window's reliability.
    static func notes(_ result: BacktestDTO) -> [String] {
        var notes = [""] + BacktestReading.verdict(result)
            + ["Trained on \(result.trainFrom ?? "?") to \(result.testFrom) (\(result.trainOpenings) openings); "
               + "tested \(result.testFrom) up to \(result.testUntil) (\(result.testOpenings) openings).",
               "times_tested: the moments a forecast was made (every 15 minutes of the test period); "
               + "followed_by_opening: those after which an opening started within the window (a moment, not an "
               + "opening: an opening follows several moments).",
               "skill: how much lower the forecast's Brier score is than always saying the bridge's average chance "
               + "(0 is no better than the average, 1 is perfect), with its 95% interval; forecast: the time of "
               + "week, the rules and what happened before at the other bridges; time_of_week: the slots alone.",
               "after_neighbour: the skill within 30 min after a neighbour's opening; off_by: how far, in "
               + "percentage points, those forecast chances were from how often an opening followed."]
        for window in result.windows {
            notes.append("")
            notes.append("Reliability, \(window.minutes)-minute window (predicted → observed, forecasts):")
            for bin in window.reliability where bin.count > 0 {
                notes.append(String(format: "  %3.0f–%3.0f%%   %5.1f%% → %5.1f%%   %d", bin.lower * 100, bin.upper * 100,
                                    (bin.meanPredicted ?? 0) * 100, (bin.observed ?? 0) * 100, bin.count))
            }
        }
        return notes
    }

    /// CSV: every figure, a row per window and bridge.
    static func facts(_ result: BacktestDTO) -> [[Cell]] {
        var facts: [[Cell]] = []
        for window in result.windows {
            for score in window.bridges + [window.overall] {
                let all = window.comparison(bridgeID: score.bridgeID)
                let after = window.comparison(bridgeID: score.bridgeID, subset: "after-neighbour")
                func raw(_ value: Double?) -> Cell { value.map { Cell(raw: $0) } ?? Cell("") }
                facts.append([Cell(window.minutes), Cell(score.bridgeID ?? ""), Cell(score.bridgeName ?? "all bridges"),
                              Cell(result.testFrom), Cell(result.testUntil), Cell(score.points), Cell(score.positives),
                              Cell(raw: score.brier), Cell(raw: score.brierClimatology), Cell(raw: score.logLoss),
                              Cell(raw: score.logLossClimatology), Cell(raw: score.skill),
                              raw(all?.nowcast.low), raw(all?.nowcast.high), raw(all?.slot.value), raw(all?.slot.low),
                              raw(all?.slot.high), Cell(after?.points ?? 0), raw(after?.nowcast.value),
                              raw(after?.nowcast.low), raw(after?.nowcast.high), raw(after?.slot.value),
                              raw(after?.reliabilityError)])
            }
        }
        return facts
    }
}
