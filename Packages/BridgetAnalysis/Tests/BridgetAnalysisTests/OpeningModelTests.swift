import BridgetAnalysis
import BridgetDTOs
import Foundation
import Testing

@Suite("Opening model")
struct OpeningModelTests {
    let builtAt = Date(timeIntervalSince1970: 1_800_000_000)

    func slot(_ weekday: Int, _ hour: Int, _ minute: Int = 0) -> Int { weekday * 96 + hour * 4 + minute / 15 }

    @Test("known answers on a hand-built week: starts, occurrences, open minutes, remaining time, smoothing")
    func handBuilt() throws {
        // Two Mondays of history (2026-06-01 … 2026-06-08: days 8, so Monday occurs twice, other days once).
        let events = [
            Hand.event("2026-06-01T10:00:00.000", minutes: 4),
            Hand.event("2026-06-08T10:05:00.000", minutes: 4),
        ]
        let model = OpeningModelBuilder(smoothing: 0).buildAll(
            bridges: [Hand.fremont], events: events, mergeGap: 120, builtAt: builtAt)[0]
        #expect(model.slots.count == 672 && model.openings == 2 && model.sourceEvents == 2)
        let tenAM = model.slots[slot(0, 10)]
        #expect(tenAM.starts == 2 && tenAM.occurrences == 2)
        #expect(abs(tenAM.startProbability - (1 - exp(-1.0))) < 1e-12) // rate 2 starts / 2 occurrences
        #expect(tenAM.openProbability == 8.0 / 30) // 8 open minutes of 2 × 15
        #expect(tenAM.meanRemainingMinutes == 2.5) // remaining 4,3,2,1 twice
        #expect(model.slots[slot(1, 10)].startProbability == 0 && model.slots[slot(1, 10)].occurrences == 1)

        let smoothed = OpeningModelBuilder(smoothing: 4).buildAll(
            bridges: [Hand.fremont], events: events, mergeGap: 120, builtAt: builtAt)[0]
        let quiet = smoothed.slots[slot(3, 3)]
        #expect(quiet.startProbability > 0 && quiet.startProbability < smoothed.slots[slot(0, 10)].startProbability)
        #expect(smoothed.slots.allSatisfy { $0.startProbability < 1 && $0.openProbability < 1 })
    }

    @Test("empty history and a bridge with no events give a zero model, never NaN")
    func emptyHistory() {
        let models = OpeningModelBuilder().buildAll(bridges: [Hand.fremont, Hand.ballard],
                                                    events: [Hand.event("2026-06-01T10:00:00.000", minutes: 4)],
                                                    mergeGap: 120, builtAt: builtAt)
        let ballard = models[1]
        #expect(ballard.openings == 0 && ballard.slots.allSatisfy { $0.startProbability == 0 && !$0.meanRemainingMinutes.isNaN })
        let none = OpeningModelBuilder().buildAll(bridges: [Hand.fremont], events: [], mergeGap: 120, builtAt: builtAt)[0]
        #expect(none.slots.allSatisfy { $0.startProbability == 0 && $0.openProbability == 0 && $0.occurrences == 0 })
    }

    @Test("forecasts combine the covered slots and the arrival slot")
    func forecast() throws {
        let events = (0..<4).map { Hand.event("2026-06-0\($0 + 1)T10:00:00.000", minutes: 10) }
        let model = OpeningModelBuilder(smoothing: 0).buildAll(
            bridges: [Hand.fremont], events: events, mergeGap: 120, builtAt: builtAt)[0]
        let at = try #require(FloatingTimestamp("2026-06-15T10:00:00.000")) // a Monday
        let forecast = OpeningModelBuilder.forecast(model, bridge: Hand.fremont, at: at, windowMinutes: 15)
        #expect(abs(forecast.chanceOfOpening - model.slots[slot(0, 10)].startProbability) < 1e-9)
        #expect(forecast.chanceOpenOnArrival == model.slots[slot(0, 10)].openProbability)
        #expect(forecast.expectedDelayMinutes == forecast.chanceOpenOnArrival * model.slots[slot(0, 10)].meanRemainingMinutes)
        let night = OpeningModelBuilder.forecast(model, bridge: Hand.fremont,
                                                 at: try #require(FloatingTimestamp("2026-06-15T03:00:00.000")),
                                                 windowMinutes: 20)
        #expect(night.chanceOfOpening == 0 && night.expectedDelayMinutes == 0)
    }
}

@Suite("Backtest scoring")
struct BacktestScoringTests {
    @Test("Brier score and log loss on a hand-made week")
    func knownScores() throws {
        // Train: Monday 10:00 opens on two Mondays. Test: the third Monday, where it opens at 10:05.
        let events = ["2026-06-01T10:00:00.000", "2026-06-08T10:00:00.000", "2026-06-15T10:05:00.000"]
            .map { Hand.event($0, minutes: 3) }
        let trainUntil = CivilCalendar.daysFromCivil(year: 2026, month: 6, day: 15)
        let result = try Backtester(mergeGap: 120, windows: [15]).run(
            bridges: [Hand.fremont], events: events, trainUntil: trainUntil, testUntil: trainUntil + 1)
        let score = try #require(result.windows.first?.overall)
        #expect(score.points == 96 && score.positives == 1) // only the 10:00–10:15 window holds the 10:05 start
        #expect(score.brier < score.brierClimatology && score.logLoss < score.logLossClimatology)
        #expect(result.trainOpenings == 2 && result.testOpenings == 1)
        let bins = try #require(result.windows.first?.reliability)
        #expect(bins.map(\.count).reduce(0, +) == 96)
        #expect(throws: AnalysisError.noTrainingData(trainUntil: 5)) {
            try Backtester(mergeGap: 120).run(bridges: [Hand.fremont], events: events, trainUntil: 5, testUntil: 6)
        }
        #expect(throws: AnalysisError.emptyTestPeriod(trainUntil: 6, testUntil: 6)) {
            try Backtester(mergeGap: 120).run(bridges: [Hand.fremont], events: events, trainUntil: 6, testUntil: 6)
        }
    }
}
