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

    /// Creates a window's results.
    public init(minutes: Int, overall: ForecastScoreDTO, bridges: [ForecastScoreDTO], reliability: [ReliabilityBinDTO]) {
        self.minutes = minutes
        self.overall = overall
        self.bridges = bridges
        self.reliability = reliability
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
