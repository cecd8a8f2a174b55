import Foundation

/// How well forecasts of one kind scored, against the climatology (the bridge's base rate).
public struct ForecastScoreDTO: Sendable, Codable, Equatable {
    /// The bridge, or `nil` for all bridges together.
    public let bridgeID: String?
    public let bridgeName: String?
    /// Forecast moments scored.
    public let points: Int
    /// Moments whose window did see an opening start.
    public let positives: Int
    /// Mean squared error of the model's probabilities (lower is better).
    public let brier: Double
    public let brierClimatology: Double
    /// Mean negative log-likelihood of the model's probabilities (lower is better).
    public let logLoss: Double
    public let logLossClimatology: Double

    /// 1 − brier / brierClimatology: above 0 means better than the base rate.
    public var skill: Double { brierClimatology > 0 ? 1 - brier / brierClimatology : 0 }

    /// Creates a score.
    public init(bridgeID: String?, bridgeName: String?, points: Int, positives: Int, brier: Double,
                brierClimatology: Double, logLoss: Double, logLossClimatology: Double) {
        self.bridgeID = bridgeID
        self.bridgeName = bridgeName
        self.points = points
        self.positives = positives
        self.brier = brier
        self.brierClimatology = brierClimatology
        self.logLoss = logLoss
        self.logLossClimatology = logLossClimatology
    }
}

/// One decile of predicted probability: how often what was predicted happened.
public struct ReliabilityBinDTO: Sendable, Codable, Equatable {
    public let lower: Double
    public let upper: Double
    public let count: Int
    public let meanPredicted: Double?
    public let observed: Double?

    /// Creates a bin.
    public init(lower: Double, upper: Double, count: Int, meanPredicted: Double?, observed: Double?) {
        self.lower = lower
        self.upper = upper
        self.count = count
        self.meanPredicted = meanPredicted
        self.observed = observed
    }
}

/// The scores of "an opening starts within the next N minutes" for one N.
public struct BacktestWindowDTO: Sendable, Codable, Equatable {
    public let minutes: Int
    public let overall: ForecastScoreDTO
    public let bridges: [ForecastScoreDTO]
    public let reliability: [ReliabilityBinDTO]
    /// The now-cast, the slot model and the base rate side by side, with intervals: over all bridges (first, no
    /// bridge id), then per bridge on all points and on the points after a neighbour's opening.
    public let comparisons: [ModelSkillDTO]

    /// Creates a window's results. `overall`, `bridges` and `reliability` score the now-cast (the forecast given).
    public init(minutes: Int, overall: ForecastScoreDTO, bridges: [ForecastScoreDTO], reliability: [ReliabilityBinDTO],
                comparisons: [ModelSkillDTO] = []) {
        self.minutes = minutes
        self.overall = overall
        self.bridges = bridges
        self.reliability = reliability
        self.comparisons = comparisons
    }

    /// The comparison of one bridge (`nil`: all) on one subset.
    public func comparison(bridgeID: String?, subset: String = "all") -> ModelSkillDTO? {
        comparisons.first { $0.bridgeID == bridgeID && $0.subset == subset }
    }
}

/// A backtest: models fitted on the history before `trainUntil`, scored every 15 minutes of the test period.
public struct BacktestDTO: Sendable, Codable, Equatable {
    /// The source's local dates: first training day, first test day, day after the last test day.
    public let trainFrom: String?
    public let testFrom: String
    public let testUntil: String
    public let trainOpenings: Int
    public let testOpenings: Int
    public let windows: [BacktestWindowDTO]

    /// Creates a backtest result.
    public init(trainFrom: String?, testFrom: String, testUntil: String, trainOpenings: Int, testOpenings: Int,
                windows: [BacktestWindowDTO]) {
        self.trainFrom = trainFrom
        self.testFrom = testFrom
        self.testUntil = testUntil
        self.trainOpenings = trainOpenings
        self.testOpenings = testOpenings
        self.windows = windows
    }
}

/// A skill over the base rate (1 − Brier / the base rate's Brier) with its 95% interval.
public struct SkillDTO: Sendable, Codable, Equatable {
    public let value: Double
    /// The interval's ends (grouped jackknife over the test days); `nil` with fewer than two days of points.
    public let low: Double?
    public let high: Double?

    public init(value: Double, low: Double?, high: Double?) {
        self.value = value
        self.low = low
        self.high = high
    }

    /// Whether the interval lies above zero: better, and not by chance.
    public var isAboveZero: Bool { (low ?? -1) > 0 }
    /// Whether the interval lies below zero.
    public var isBelowZero: Bool { (high ?? 1) < 0 }
}

/// Three forecasts on the same points: the now-cast, the slot model alone, and (as the reference) the base rate.
public struct ModelSkillDTO: Sendable, Codable, Equatable {
    /// The bridge, or `nil` for all bridges.
    public let bridgeID: String?
    public let bridgeName: String?
    /// `all` points, or `after-neighbour`: those within 30 minutes after an opening of a bridge whose openings bring
    /// openings here.
    public let subset: String
    public let points: Int
    public let positives: Int
    /// Skill over the base rate of the now-cast and of the slot model, and the now-cast's gain over the slot model.
    public let nowcast: SkillDTO
    public let slot: SkillDTO
    public let gain: SkillDTO
    /// The now-cast's reliability: the points' mean gap between predicted and observed frequency by decile (0 is
    /// perfect); `nil` where not measured.
    public let reliabilityError: Double?

    public init(bridgeID: String?, bridgeName: String?, subset: String, points: Int, positives: Int, nowcast: SkillDTO,
                slot: SkillDTO, gain: SkillDTO, reliabilityError: Double?) {
        self.bridgeID = bridgeID
        self.bridgeName = bridgeName
        self.subset = subset
        self.points = points
        self.positives = positives
        self.nowcast = nowcast
        self.slot = slot
        self.gain = gain
        self.reliabilityError = reliabilityError
    }
}
