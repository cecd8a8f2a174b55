import BridgetDTOs
import Foundation

/// Fits opening models on the past and scores their forecasts on a held-out period.
///
/// Every 15 minutes of the test period (the source's wall clock) and for each window length, three forecasts of "an
/// opening starts within the next N minutes" are compared with what happened (a merged opening starting in that
/// window): the now-cast (`Nowcaster`, with the test period's openings before the moment as evidence), the slot model
/// alone (the same without evidence) and the base rate (the bridge's overall rate, the climatology that skill is
/// measured against). Each is scored on all points and on the points that follow a neighbour's opening (one of the
/// bridges whose openings bring openings here) within 30 minutes. Skill intervals are 95% grouped jackknife
/// intervals over the test days (a day's points move together), so "beats" is said only where the interval is
/// above zero.
public struct Backtester: Sendable {
    public let mergeGap: TimeInterval
    public let windows: [Int]
    /// The rules forecasts know (holidays, deviations); `nil`: none.
    public let rules: RuleCalendar?
    /// How recent a neighbour's opening makes a point one "after a neighbour's opening".
    public static let neighbourMinutes = 30
    /// The longest test period chosen for a caller that gives none: a quarter of a year is enough to judge a
    /// forecast, and a test period grows the work (every 15 minutes of it, every bridge, every window).
    public static let defaultTestDays = 92

    /// The first test day when none is given: the history's last quarter (by local days), at most
    /// `defaultTestDays`, the rest for training.
    public static func defaultTrainUntil(firstDay: Int, lastDay: Int) -> Int {
        let days = lastDay - firstDay + 1
        return firstDay + max(1, max(days * 3 / 4, days - defaultTestDays))
    }

    /// Creates a backtester.
    public init(mergeGap: TimeInterval, windows: [Int] = [15, 30], rules: RuleCalendar? = nil) {
        self.mergeGap = mergeGap
        self.windows = windows
        self.rules = rules
    }

    /// Scores models fitted on events opening before `trainUntil` (a local day number of the source's clock) against the days from
    /// `trainUntil` up to, not including, `testUntil`.
    /// Every bridge of `bridges` is learnt and is evidence; those of `scoring` (`nil`: all) are scored.
    public func run(bridges: [BridgeInfoDTO], events: [BridgeEventDTO], trainUntil: Int, testUntil: Int,
                    scoring: Set<String>? = nil) throws -> BacktestDTO {
        try run(bridges: bridges, records: events.compactMap(OpeningRecordDTO.init), trainUntil: trainUntil,
                testUntil: testUntil, scoring: scoring)
    }

    /// The same from lean records.
    public func run(bridges: [BridgeInfoDTO], records: [OpeningRecordDTO], trainUntil: Int, testUntil: Int,
                    scoring: Set<String>? = nil) throws -> BacktestDTO
    {
        try run(bridges: bridges, periods: Periods(trainUntil: trainUntil, testUntil: testUntil, mergeGap: mergeGap,
                                                   rules: rules)
            .fed(records, mergeGap: mergeGap), testUntil: testUntil, scoring: scoring)
    }

    /// The same from the history split into its two periods (one pass: `Periods`); the test period ends at
    /// `testUntil`. Every bridge of `bridges` is learnt and is evidence; those of `scoring` (`nil`: all) are scored,
    /// so a bridge scores the same whichever others are shown.
    func run(bridges: [BridgeInfoDTO], periods: Periods, testUntil: Int, scoring: Set<String>? = nil) throws
        -> BacktestDTO
    {
        let trainUntil = periods.trainUntil
        guard testUntil > trainUntil else {
            throw AnalysisError.emptyTestPeriod(trainUntil: trainUntil, testUntil: testUntil)
        }
        let (train, startsByBridge, testOpenings) = periods.finished()
        guard train.rows > 0 else {
            throw AnalysisError.noTrainingData(trainUntil: trainUntil)
        }
        let models = OpeningModelBuilder().buildAll(bridges: bridges, tallies: train, builtAt: Date())
        let nowcaster = Nowcaster(rules: rules, catalog: BridgeCatalog(bridges: bridges), models: models)
        // Every test opening of every bridge, by start: the evidence before each moment.
        let timeline = startsByBridge.flatMap { id, starts in starts.map { ($0, id) } }.sorted { $0 < $1 }
        let periodStart = Int64(trainUntil) * 86_400
        let end = Int64(testUntil) * 86_400
        let days = testUntil - trainUntil
        // Moment by moment: the evidence is read once for every bridge and window (`Nowcaster.riverMoment`).
        let scored = zip(bridges, models).filter { scoring?.contains($0.0.id) ?? true }
        let neighbours = scored.map { Self.neighbours(of: $0.1, among: models) }
        let startsOf = scored.map { startsByBridge[$0.0.id] ?? [] }
        var cursors = [Int](repeating: 0, count: scored.count)
        var tallies = windows.map { _ in scored.map { _ in BridgeTally(days: days) } }
        var overall = windows.map { _ in Accumulator() }
        var overallDaily = windows.map { _ in DailySums(days: days) }
        var bins = windows.map { _ in ReliabilityBins() }
        let horizon = windows.max() ?? 1
        var wall = periodStart
        while wall < end {
            let reading = FloatingTimestamp(wallClockSeconds: wall)
            let lookback = wall - Int64(NowcastEvidence.lookbackMinutes * 60)
            let seen = Self.seen(from: lookback, before: wall, in: timeline)
            let evidence = NowcastEvidence(seen: seen, isComplete: lookback >= periodStart)
            let shared = nowcaster.riverMoment(at: reading, evidence: evidence, horizon: horizon)
            let day = Int((wall - periodStart) / 86_400)
            for position in scored.indices {
                let starts = startsOf[position]
                while cursors[position] < starts.count && starts[cursors[position]] < wall { cursors[position] += 1 }
            }
            let afterNeighbour = neighbours.map { ids in
                seen.contains { ids.contains($0.bridgeID) && $0.minutesAgo <= Double(Self.neighbourMinutes) }
            }
            for (slot, minutes) in windows.enumerated() {
                for (position, (bridge, model)) in scored.enumerated() {
                    let nowcast = nowcaster.forecast(model, bridge: bridge, at: reading, windowMinutes: minutes,
                                                     evidence: evidence, shared: shared, explain: false)
                    let starts = startsOf[position]
                    let cursor = cursors[position]
                    let happened = cursor < starts.count && starts[cursor] < wall + Int64(minutes * 60)
                    let chance = nowcast.chanceOfOpening
                    let point = DailySums.Point(nowcast: chance, slot: nowcast.slotChanceOfOpening,
                                                base: nowcast.baseChanceOfOpening, happened: happened)
                    tallies[slot][position].add(point, day: day, after: afterNeighbour[position])
                    overall[slot].add(chance, climatology: nowcast.baseChanceOfOpening, happened: happened)
                    bins[slot].add(chance, happened: happened)
                    overallDaily[slot].add(point, day: day)
                }
            }
            wall += Int64(OpeningModelDTO.slotMinutes * 60)
        }
        let results = windowResults(scored: scored.map(\.0), tallies: tallies, overall: overall,
                                    overallDaily: overallDaily, bins: bins)
        let first = train.span.firstDay?.dateString
        return BacktestDTO(
            trainFrom: first, testFrom: FloatingTimestamp(wallClockSeconds: Int64(trainUntil) * 86_400).dateString,
            testUntil: FloatingTimestamp(wallClockSeconds: Int64(testUntil) * 86_400).dateString,
            trainOpenings: models.filter { scoring?.contains($0.bridgeID) ?? true }.reduce(0) { $0 + $1.openings },
            testOpenings: scoring.map { ids in ids.reduce(0) { $0 + (startsByBridge[$1]?.count ?? 0) } } ?? testOpenings,
            windows: results)
    }

    /// The openings of `timeline` (starts in seconds, in order) from `lookback` up to `wall`, as the evidence of the
    /// moment `wall`.
    private static func seen(from lookback: Int64, before wall: Int64, in timeline: [(Int64, String)])
        -> [NowcastEvidence.Seen]
    {
        var seen: [NowcastEvidence.Seen] = []
        var index = timeline.partitioningIndex { $0.0 >= lookback }
        while index < timeline.count && timeline[index].0 < wall {
            seen.append(.init(bridgeID: timeline[index].1, minutesAgo: Double(wall - timeline[index].0) / 60))
            index += 1
        }
        return seen
    }

    /// Each window's scores from its sums: overall and per bridge of `scored`, and the comparisons with the slot
    /// model and the base rate (overall; per bridge on all points and on those after a neighbour's opening).
    private func windowResults(scored: [BridgeInfoDTO], tallies: [[BridgeTally]], overall: [Accumulator],
                               overallDaily: [DailySums], bins: [ReliabilityBins]) -> [BacktestWindowDTO] {
        windows.indices.map { slot -> BacktestWindowDTO in
            var perBridge: [ForecastScoreDTO] = []
            var comparisons: [ModelSkillDTO] = [overallDaily[slot].comparison(
                bridgeID: nil, bridgeName: nil, subset: "all", reliabilityError: bins[slot].error)]
            for (position, bridge) in scored.enumerated() {
                let tally = tallies[slot][position]
                perBridge.append(tally.accumulator.score(bridgeID: bridge.id, bridgeName: bridge.name))
                comparisons.append(tally.all.comparison(bridgeID: bridge.id, bridgeName: bridge.name, subset: "all",
                                                        reliabilityError: nil))
                comparisons.append(tally.after.comparison(bridgeID: bridge.id, bridgeName: bridge.name,
                                                          subset: "after-neighbour",
                                                          reliabilityError: tally.afterBins.error))
            }
            return BacktestWindowDTO(minutes: windows[slot], overall: overall[slot].score(bridgeID: nil, bridgeName: nil),
                                     bridges: perBridge, reliability: bins[slot].dto, comparisons: comparisons)
        }
    }

    /// The bridges a vessel passes just before `model`'s: the other bridges whose links bring a tenth or more of
    /// their openings here, less those whose link goes through another of them (A brings openings at C sooner than
    /// here, and C's lag to the bridge is shorter than A's: A's vessels pass C on the way). A weaker link is what the
    /// maximum likelihood leaves of a common vessel (University and Ballard both seeing Fremont's), not a neighbour.
    /// On the Ship Canal: Ballard and University for Fremont, University for Montlake. Learnt, not told: a catalog
    /// needs no map.
    public static func neighbours(of model: OpeningModelDTO, among models: [OpeningModelDTO]) -> Set<String> {
        let strong = { (follow: FollowDTO) in follow.share >= 0.1 }
        let sources = model.dynamics.followers.filter { $0.fromBridgeID != model.bridgeID && strong($0) }
        let byID = Dictionary(models.map { ($0.bridgeID, $0) }, uniquingKeysWith: { first, _ in first })
        return Set(sources.filter { source in
            !sources.contains { via in
                guard via.fromBridgeID != source.fromBridgeID, via.medianLagMinutes < source.medianLagMinutes,
                      let leg = byID[via.fromBridgeID]?.dynamics.followers.first(where: {
                          $0.fromBridgeID == source.fromBridgeID && strong($0) }) else { return false }
                return leg.medianLagMinutes < source.medianLagMinutes
            }
        }.map(\.fromBridgeID))
    }

    /// One bridge's scores in one window: every point, and those after a neighbour's opening.
    struct BridgeTally {
        var accumulator = Accumulator()
        var all: DailySums
        var after: DailySums
        var afterBins = ReliabilityBins()

        init(days: Int) {
            all = DailySums(days: days)
            after = DailySums(days: days)
        }

        mutating func add(_ point: DailySums.Point, day: Int, after isAfter: Bool) {
            accumulator.add(point.nowcast, climatology: point.base, happened: point.happened)
            all.add(point, day: day)
            if isAfter {
                after.add(point, day: day)
                afterBins.add(point.nowcast, happened: point.happened)
            }
        }
    }

    /// Deciles of predicted chance: how often what was predicted happened.
    struct ReliabilityBins {
        var bins = [(count: Int, predicted: Double, observed: Int)](repeating: (0, 0, 0), count: 10)

        mutating func add(_ chance: Double, happened: Bool) {
            let bin = min(9, max(0, Int(chance * 10)))
            bins[bin].count += 1
            bins[bin].predicted += chance
            bins[bin].observed += happened ? 1 : 0
        }

        var dto: [ReliabilityBinDTO] {
            bins.enumerated().map { index, bin in
                ReliabilityBinDTO(lower: Double(index) / 10, upper: Double(index + 1) / 10, count: bin.count,
                                  meanPredicted: bin.count > 0 ? bin.predicted / Double(bin.count) : nil,
                                  observed: bin.count > 0 ? Double(bin.observed) / Double(bin.count) : nil)
            }
        }

        /// The points' mean gap between predicted and observed frequency, bin by bin (weighted by points): 0 is
        /// perfectly reliable. `nil` without points.
        var error: Double? {
            let total = bins.reduce(0) { $0 + $1.count }
            guard total > 0 else { return nil }
            return bins.reduce(0.0) { sum, bin in
                bin.count > 0 ? sum + abs(bin.predicted - Double(bin.observed)) : sum
            } / Double(total)
        }
    }

    /// Brier sums of the three forecasts, day by day: the skills and their jackknife intervals.
    struct DailySums {
        struct Point {
            let nowcast: Double
            let slot: Double
            let base: Double
            let happened: Bool
        }

        /// Per day: points, positives, and the Brier sums of the now-cast, the slot model and the base rate.
        private var points: [Int]
        private var positives: [Int]
        private var nowcast: [Double]
        private var slot: [Double]
        private var base: [Double]

        init(days: Int) {
            points = [Int](repeating: 0, count: max(days, 1))
            positives = points
            nowcast = [Double](repeating: 0, count: max(days, 1))
            slot = nowcast
            base = nowcast
        }

        mutating func add(_ point: Point, day: Int) {
            guard points.indices.contains(day) else { return }
            let outcome = point.happened ? 1.0 : 0.0
            points[day] += 1
            positives[day] += point.happened ? 1 : 0
            nowcast[day] += (point.nowcast - outcome) * (point.nowcast - outcome)
            slot[day] += (point.slot - outcome) * (point.slot - outcome)
            base[day] += (point.base - outcome) * (point.base - outcome)
        }

        func comparison(bridgeID: String?, bridgeName: String?, subset: String, reliabilityError: Double?)
            -> ModelSkillDTO
        {
            let (now, slots, rate, count) = (nowcast.reduce(0, +), slot.reduce(0, +), base.reduce(0, +), points.reduce(0, +))
            let skillOf = { (model: Double, climatology: Double) in climatology > 0 ? 1 - model / climatology : 0 }
            let nowcastSkill = jackknife(skillOf(now, rate)) { day in skillOf(now - nowcast[day], rate - base[day]) }
            let slotSkill = jackknife(skillOf(slots, rate)) { day in skillOf(slots - slot[day], rate - base[day]) }
            let gain = jackknife(skillOf(now, rate) - skillOf(slots, rate)) { day in
                skillOf(now - nowcast[day], rate - base[day]) - skillOf(slots - slot[day], rate - base[day])
            }
            return ModelSkillDTO(bridgeID: bridgeID, bridgeName: bridgeName, subset: subset, points: count,
                                 positives: positives.reduce(0, +), nowcast: nowcastSkill, slot: slotSkill, gain: gain,
                                 reliabilityError: reliabilityError)
        }

        /// The estimate with its 95% grouped-jackknife interval over the days that hold points.
        private func jackknife(_ estimate: Double, leavingOut: (Int) -> Double) -> SkillDTO {
            let days = points.indices.filter { points[$0] > 0 }
            guard days.count >= 2 else { return SkillDTO(value: estimate, low: nil, high: nil) }
            let values = days.map(leavingOut)
            let mean = values.reduce(0, +) / Double(values.count)
            let g = Double(values.count)
            let variance = (g - 1) / g * values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) }
            let half = 1.96 * variance.squareRoot()
            return SkillDTO(value: estimate, low: estimate - half, high: estimate + half)
        }
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

        init(trainUntil: Int, testUntil: Int?, mergeGap: TimeInterval, rules: RuleCalendar? = nil) {
            self.trainUntil = trainUntil
            self.testUntil = testUntil
            train = OpeningPass(TallySink(occupancy: true, rules: rules), scope: .everything, mergeGap: mergeGap)
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
