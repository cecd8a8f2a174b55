import BridgetDTOs
import Foundation

/// Fits opening models on the past and scores their forecasts on a held-out period.
///
/// Every 15 minutes of the test period (the source's wall clock) and for each window length, the forecast "an opening
/// starts within the next N minutes" is compared with what happened (a merged opening starting in that window).
/// Climatology forecasts the bridge's base rate for N minutes at every moment.
public struct Backtester: Sendable {
    public let mergeGap: TimeInterval
    public let windows: [Int]

    /// Creates a backtester.
    public init(mergeGap: TimeInterval, windows: [Int] = [15, 30]) {
        self.mergeGap = mergeGap
        self.windows = windows
    }

    /// Scores models fitted on events opening before `trainUntil` (a local day number of the source's clock) against the days from
    /// `trainUntil` up to, not including, `testUntil`.
    public func run(bridges: [BridgeInfoDTO], events: [BridgeEventDTO], trainUntil: Int, testUntil: Int) throws -> BacktestDTO {
        try run(bridges: bridges, records: events.compactMap(OpeningRecordDTO.init), trainUntil: trainUntil,
                testUntil: testUntil)
    }

    /// The same from lean records.
    public func run(bridges: [BridgeInfoDTO], records: [OpeningRecordDTO], trainUntil: Int, testUntil: Int) throws
        -> BacktestDTO
    {
        try run(bridges: bridges, periods: Periods(trainUntil: trainUntil, testUntil: testUntil, mergeGap: mergeGap)
            .fed(records, mergeGap: mergeGap), testUntil: testUntil)
    }

    /// The same from the history split into its two periods (one pass: `Periods`); the test period ends at
    /// `testUntil`.
    func run(bridges: [BridgeInfoDTO], periods: Periods, testUntil: Int) throws -> BacktestDTO {
        let trainUntil = periods.trainUntil
        guard testUntil > trainUntil else {
            throw AnalysisError.emptyTestPeriod(trainUntil: trainUntil, testUntil: testUntil)
        }
        let (train, startsByBridge, testOpenings) = periods.finished()
        guard train.rows > 0 else {
            throw AnalysisError.noTrainingData(trainUntil: trainUntil)
        }
        let models = OpeningModelBuilder().buildAll(bridges: bridges, tallies: train, builtAt: Date())
        let results = windows.map { minutes -> BacktestWindowDTO in
            var overall = Accumulator()
            var perBridge: [ForecastScoreDTO] = []
            var bins = [(count: Int, predicted: Double, observed: Int)](repeating: (0, 0, 0), count: 10)
            for (bridge, model) in zip(bridges, models) {
                var accumulator = Accumulator()
                let starts = startsByBridge[bridge.id] ?? []
                var cursor = 0
                var wall = Int64(trainUntil) * 86_400
                let end = Int64(testUntil) * 86_400
                while wall < end {
                    let reading = FloatingTimestamp(wallClockSeconds: wall)
                    let forecast = OpeningModelBuilder.forecast(model, bridge: bridge, at: reading, windowMinutes: minutes)
                    while cursor < starts.count && starts[cursor] < wall { cursor += 1 }
                    let happened = cursor < starts.count && starts[cursor] < wall + Int64(minutes * 60)
                    accumulator.add(forecast.chanceOfOpening, climatology: forecast.baseChanceOfOpening, happened: happened)
                    overall.add(forecast.chanceOfOpening, climatology: forecast.baseChanceOfOpening, happened: happened)
                    let bin = min(9, Int(forecast.chanceOfOpening * 10))
                    bins[bin].count += 1
                    bins[bin].predicted += forecast.chanceOfOpening
                    bins[bin].observed += happened ? 1 : 0
                    wall += Int64(OpeningModelDTO.slotMinutes * 60)
                }
                perBridge.append(accumulator.score(bridgeID: bridge.id, bridgeName: bridge.name))
            }
            let reliability = bins.enumerated().map { index, bin in
                ReliabilityBinDTO(lower: Double(index) / 10, upper: Double(index + 1) / 10, count: bin.count,
                                  meanPredicted: bin.count > 0 ? bin.predicted / Double(bin.count) : nil,
                                  observed: bin.count > 0 ? Double(bin.observed) / Double(bin.count) : nil)
            }
            return BacktestWindowDTO(minutes: minutes, overall: overall.score(bridgeID: nil, bridgeName: nil),
                                     bridges: perBridge, reliability: reliability)
        }
        let first = train.span.firstDay?.dateString
        return BacktestDTO(
            trainFrom: first, testFrom: FloatingTimestamp(wallClockSeconds: Int64(trainUntil) * 86_400).dateString,
            testUntil: FloatingTimestamp(wallClockSeconds: Int64(testUntil) * 86_400).dateString,
            trainOpenings: models.reduce(0) { $0 + $1.openings }, testOpenings: testOpenings, windows: results)
    }

    /// Running sums of the proper scores.
    struct Accumulator {
        var points = 0
        var positives = 0
        var brier = 0.0
        var brierClimatology = 0.0
        var logLoss = 0.0
        var logLossClimatology = 0.0

        mutating func add(_ predicted: Double, climatology: Double, happened: Bool) {
            let outcome = happened ? 1.0 : 0.0
            points += 1
            positives += happened ? 1 : 0
            brier += (predicted - outcome) * (predicted - outcome)
            brierClimatology += (climatology - outcome) * (climatology - outcome)
            logLoss += Self.negativeLogLikelihood(predicted, happened)
            logLossClimatology += Self.negativeLogLikelihood(climatology, happened)
        }

        /// −ln p(outcome), with p kept inside [1e-6, 1 − 1e-6] so a confident miss costs much but not infinitely.
        static func negativeLogLikelihood(_ probability: Double, _ happened: Bool) -> Double {
            let p = min(max(probability, 1e-6), 1 - 1e-6)
            return happened ? -log(p) : -log(1 - p)
        }

        func score(bridgeID: String?, bridgeName: String?) -> ForecastScoreDTO {
            let n = Double(max(points, 1))
            return ForecastScoreDTO(bridgeID: bridgeID, bridgeName: bridgeName, points: points, positives: positives,
                                    brier: brier / n, brierClimatology: brierClimatology / n, logLoss: logLoss / n,
                                    logLossClimatology: logLossClimatology / n)
        }
    }
}

extension Backtester {
    /// One pass over the history for a backtest: the training period's tallies (days before `trainUntil`) and the
    /// test period's opening starts (from `trainUntil`, before `testUntil` when given), each period merged on its
    /// own so that no opening crosses the cut, and the last local day seen.
    struct Periods: OpeningSink {
        let trainUntil: Int
        let testUntil: Int?
        private var train: OpeningPass<TallySink>
        private var test: OpeningPass<StartSink>
        private(set) var lastDay: Int?

        init(trainUntil: Int, testUntil: Int?, mergeGap: TimeInterval) {
            self.trainUntil = trainUntil
            self.testUntil = testUntil
            train = OpeningPass(TallySink(occupancy: true), scope: .everything, mergeGap: mergeGap)
            test = OpeningPass(StartSink(), scope: .everything, mergeGap: mergeGap)
        }

        mutating func begin(bridgeID: String) {}

        mutating func take(record: OpeningRecordDTO) {
            let day = Int(record.openWall.floorDivided(by: 86_400))
            if lastDay.map({ day > $0 }) ?? true { lastDay = day }
            // The outer pass has checked the order, so neither period can find it broken.
            if day < trainUntil {
                try? train.add(record)
            } else if testUntil.map({ day < $0 }) ?? true {
                try? test.add(record)
            }
        }

        /// The outer pass's openings would cross the cut: each period merges its own.
        mutating func take(opening: MergedOpening) {}

        /// The training tallies, the test starts (sorted per bridge) and the number of test openings.
        func finished() -> (train: Tallies, testStarts: [String: [Int64]], testOpenings: Int) {
            var train = train
            var test = test
            let starts = test.finish()
            let openings = starts.openings
            return (train.finish().finished(), starts.finished(), openings)
        }
    }
}
