import Foundation

/// What the history says about one 15-minute slot of the week for one bridge.
public struct OpeningSlotDTO: Sendable, Codable, Equatable {
    /// Openings that started in this slot over the history.
    public let starts: Int
    /// How many times the slot occurred in the history (the days of its weekday).
    public let occurrences: Int
    /// Smoothed chance that at least one opening starts during one occurrence of the slot.
    public let startProbability: Double
    /// Smoothed chance that the bridge is open at a given minute of the slot.
    public let openProbability: Double
    /// Smoothed mean minutes until the bridge closes, when it is open at a minute of the slot.
    public let meanRemainingMinutes: Double

    /// Creates a slot.
    public init(starts: Int, occurrences: Int, startProbability: Double, openProbability: Double,
                meanRemainingMinutes: Double) {
        self.starts = starts
        self.occurrences = occurrences
        self.startProbability = startProbability
        self.openProbability = openProbability
        self.meanRemainingMinutes = meanRemainingMinutes
    }
}

/// A bridge's opening model: 672 slots of 15 minutes, Monday 00:00 first, in the source's local time.
///
/// Built from merged openings; each slot's figures are shrunk toward the bridge's overall rate, so a thin slot is
/// never exactly 0 or 1. It records the history it was built from, so a reader can tell when it is stale.
public struct OpeningModelDTO: Sendable, Codable, Equatable {
    /// Minutes per slot.
    public static let slotMinutes = 15
    /// Slots per week.
    public static let slotsPerWeek = 7 * 24 * 60 / slotMinutes

    public let bridgeID: String
    public let builtAt: Date
    /// The source's local dates of the history's first and last day.
    public let firstDay: String?
    public let lastDay: String?
    /// Merged openings behind the model.
    public let openings: Int
    /// Stored rows (events) of the whole history when built, and its newest opening.
    public let sourceEvents: Int
    public let sourceLatestOpening: Date?
    /// The store's history version when built (see `BridgeStore.historyVersion`): the staleness check.
    public let sourceVersion: Int64
    /// The bridge's overall chance that an opening starts in a slot (the climatology).
    public let baseStartProbability: Double
    /// The bridge's overall chance of being open at a minute.
    public let baseOpenProbability: Double
    /// The slots, Monday 00:00–00:15 first.
    public let slots: [OpeningSlotDTO]
    /// Openings per day in each month of the year (January first) against the whole history's, smoothed toward 1;
    /// 1 for a month the history does not cover. Forecasts scale the slot rates by it (the summer excess).
    public let monthFactors: [Double]
    /// Followers, durations and the holiday rule (`.none` for a model built without them).
    public let dynamics: OpeningDynamicsDTO

    /// Creates a model.
    public init(
        bridgeID: String, builtAt: Date, firstDay: String?, lastDay: String?, openings: Int, sourceEvents: Int,
        sourceLatestOpening: Date?, baseStartProbability: Double, baseOpenProbability: Double, slots: [OpeningSlotDTO],
        monthFactors: [Double] = Array(repeating: 1, count: 12), sourceVersion: Int64 = 0,
        dynamics: OpeningDynamicsDTO = .none
    ) {
        self.bridgeID = bridgeID
        self.builtAt = builtAt
        self.firstDay = firstDay
        self.lastDay = lastDay
        self.openings = openings
        self.sourceEvents = sourceEvents
        self.sourceLatestOpening = sourceLatestOpening
        self.baseStartProbability = baseStartProbability
        self.baseOpenProbability = baseOpenProbability
        self.slots = slots
        self.monthFactors = monthFactors.count == 12 ? monthFactors : Array(repeating: 1, count: 12)
        self.sourceVersion = sourceVersion
        self.dynamics = dynamics
    }

    /// The same model, marked as built from history version `version`.
    public func stamped(version: Int64) -> OpeningModelDTO {
        OpeningModelDTO(
            bridgeID: bridgeID, builtAt: builtAt, firstDay: firstDay, lastDay: lastDay, openings: openings,
            sourceEvents: sourceEvents, sourceLatestOpening: sourceLatestOpening,
            baseStartProbability: baseStartProbability, baseOpenProbability: baseOpenProbability, slots: slots,
            monthFactors: monthFactors, sourceVersion: version, dynamics: dynamics)
    }

    /// The same model with `dynamics`.
    public func with(dynamics: OpeningDynamicsDTO) -> OpeningModelDTO {
        OpeningModelDTO(
            bridgeID: bridgeID, builtAt: builtAt, firstDay: firstDay, lastDay: lastDay, openings: openings,
            sourceEvents: sourceEvents, sourceLatestOpening: sourceLatestOpening,
            baseStartProbability: baseStartProbability, baseOpenProbability: baseOpenProbability, slots: slots,
            monthFactors: monthFactors, sourceVersion: sourceVersion, dynamics: dynamics)
    }

    /// The slot index of a wall-clock reading (the source's clock).
    public static func slot(of reading: FloatingTimestamp) -> Int {
        let weekday = (reading.weekday + 5) % 7 // Monday = 0
        return weekday * 96 + reading.hour * 4 + reading.minute / slotMinutes
    }
}

/// A forecast for one bridge at one moment.
public struct ForecastDTO: Sendable, Codable, Equatable {
    public let bridgeID: String
    public let bridgeName: String
    /// The wall-clock time asked about (the source's clock).
    public let at: String
    public let windowMinutes: Int
    /// Chance that at least one opening starts within the window.
    public let chanceOfOpening: Double
    /// Chance that the bridge is open at `at`.
    public let chanceOpenOnArrival: Double
    /// Expected wait in minutes on arriving at `at`: chance open × mean remaining closure.
    public let expectedDelayMinutes: Double
    /// The bridge's chance of an opening in a window of this length at an average time (the climatology).
    public let baseChanceOfOpening: Double
    /// Evidence: openings and occurrences of the slots the window covers.
    public let sampleStarts: Int
    public let sampleOccurrences: Int
    /// The chance from the slots of the week alone (the season and the calendar applied), before what happened
    /// at the other bridges: `chanceOfOpening` is this moved by `reasons`.
    public let slotChanceOfOpening: Double
    /// What moved the chance, and what the forecast knows about the moment, strongest first.
    public let reasons: [ForecastReasonDTO]

    /// Creates a forecast.
    public init(bridgeID: String, bridgeName: String, at: String, windowMinutes: Int, chanceOfOpening: Double,
                chanceOpenOnArrival: Double, expectedDelayMinutes: Double, baseChanceOfOpening: Double,
                sampleStarts: Int, sampleOccurrences: Int, slotChanceOfOpening: Double? = nil,
                reasons: [ForecastReasonDTO] = []) {
        self.slotChanceOfOpening = slotChanceOfOpening ?? chanceOfOpening
        self.reasons = reasons
        self.bridgeID = bridgeID
        self.bridgeName = bridgeName
        self.at = at
        self.windowMinutes = windowMinutes
        self.chanceOfOpening = chanceOfOpening
        self.chanceOpenOnArrival = chanceOpenOnArrival
        self.expectedDelayMinutes = expectedDelayMinutes
        self.baseChanceOfOpening = baseChanceOfOpening
        self.sampleStarts = sampleStarts
        self.sampleOccurrences = sampleOccurrences
    }
}

/// A link from another bridge (`fromBridgeID`) to the model's bridge: a vessel that raised the other bridge goes on to
/// raise this one, after a lag. Learnt by maximum likelihood (`RiverLearner`) as part of one model of every bridge's
/// opening rate, and kept only when it beats a null made from the history itself (`expectedByChance`,
/// `chanceSpread`: the same count with this bridge's openings moved by whole weeks).
public struct FollowDTO: Sendable, Codable, Equatable {
    public let fromBridgeID: String
    /// The longest lag looked at, in minutes the bridge could open (a curfew's minutes are not counted: a vessel it
    /// holds is late, not gone).
    public let maxLagMinutes: Int
    /// Openings of the other bridge, and how many of them an opening here followed within `maxLagMinutes`.
    public let sourceOpenings: Int
    public let followed: Int
    /// The same count with this bridge's openings moved by whole weeks (time of week and season kept, any link
    /// broken): its mean and spread over the moves.
    public let expectedByChance: Double
    public let chanceSpread: Double
    /// The chance that an opening of the other bridge brings one here, over all of them.
    public let share: Double
    /// The same by where the other bridge's vessel came from: `""` a vessel starting out there, or the id of the
    /// bridge it raised before (a vessel passing through; this bridge's own id: a vessel going away from here).
    public let originShares: [String: Double]
    /// The lag's distribution: `lagWeights[m]` is the chance that a brought opening comes `m + 1` minutes later
    /// (minutes the bridge could open; sums to 1).
    public let lagWeights: [Double]

    public init(fromBridgeID: String, maxLagMinutes: Int, sourceOpenings: Int, followed: Int, expectedByChance: Double,
                chanceSpread: Double, share: Double, originShares: [String: Double] = [:], lagWeights: [Double]) {
        self.fromBridgeID = fromBridgeID
        self.maxLagMinutes = maxLagMinutes
        self.sourceOpenings = sourceOpenings
        self.followed = followed
        self.expectedByChance = expectedByChance
        self.chanceSpread = chanceSpread
        self.share = share
        self.originShares = originShares
        self.lagWeights = lagWeights
    }

    private enum CodingKeys: String, CodingKey {
        case fromBridgeID, maxLagMinutes, sourceOpenings, followed, expectedByChance, chanceSpread, share,
             originShares, lagWeights
    }

    /// Reads a link; one saved by an older version (without the null's spread or the shares by origin) reads with
    /// none, and its model is rebuilt (`OpeningDynamicsDTO.format`).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        fromBridgeID = try container.decode(String.self, forKey: .fromBridgeID)
        maxLagMinutes = try container.decode(Int.self, forKey: .maxLagMinutes)
        sourceOpenings = try container.decodeIfPresent(Int.self, forKey: .sourceOpenings) ?? 0
        followed = try container.decode(Int.self, forKey: .followed)
        expectedByChance = try container.decode(Double.self, forKey: .expectedByChance)
        chanceSpread = try container.decodeIfPresent(Double.self, forKey: .chanceSpread) ?? 0
        share = try container.decode(Double.self, forKey: .share)
        originShares = try container.decodeIfPresent([String: Double].self, forKey: .originShares) ?? [:]
        lagWeights = try container.decode([Double].self, forKey: .lagWeights)
    }

    /// The share for an opening of the other bridge whose vessel came from `origin` (`""`: starting out).
    public func share(origin: String) -> Double { originShares[origin] ?? share }

    /// How far the count beat chance, in the null's spreads.
    public var score: Double { chanceSpread > 0 ? (Double(followed) - expectedByChance) / chanceSpread : 0 }

    /// The chance that the lag exceeds `minutes` (whole minutes).
    public func survival(after minutes: Int) -> Double {
        guard minutes >= 0 else { return 1 }
        return lagWeights.dropFirst(min(minutes, lagWeights.count)).reduce(0, +)
    }

    /// The lag's median, in minutes.
    public var medianLagMinutes: Int {
        var sum = 0.0
        for (index, weight) in lagWeights.enumerated() {
            sum += weight
            if sum >= 0.5 { return index + 1 }
        }
        return maxLagMinutes
    }

    /// The lag range holding the middle 80% of brought openings, in minutes.
    public var lagRange: ClosedRange<Int> {
        var sum = 0.0
        var low: Int?
        for (index, weight) in lagWeights.enumerated() {
            sum += weight
            if low == nil && sum >= 0.1 { low = index + 1 }
            if sum >= 0.9 { return (low ?? index + 1)...(index + 1) }
        }
        return (low ?? 1)...maxLagMinutes
    }
}

/// What a model knows beyond its slots: the links that bring openings here, the share of its openings that start a
/// vessel's passage here (the background), how long openings last (for one under way), and whether federal holidays
/// that lift a curfew were counted as Sundays.
public struct OpeningDynamicsDTO: Sendable, Codable, Equatable {
    /// The form of the model this was learnt for: a model of an older form is rebuilt before it is forecast from.
    public static let currentFormat = 2
    public let format: Int
    /// The links into this bridge (its own included: a second vessel close behind), strongest first.
    public let followers: [FollowDTO]
    /// The share of this bridge's openings that those bring.
    public let broughtShare: Double
    /// The share of openings that start a vessel's passage here, by hour: weekdays 00–23, then weekend days 00–23
    /// (empty: `1 − broughtShare` at every hour).
    public let backgroundShares: [Double]
    /// Merged openings by whole minutes open (index = minutes, the last entry counts every longer one).
    public let durationCounts: [Int]
    /// Whether a federal holiday that lifts the bridge's curfew was counted (and is forecast) as a Sunday.
    public let holidaysAsSundays: Bool
    /// The chance that a link between two bridges with no link at all is kept (the test's false-link rate).
    public let falseLinkRate: Double

    public init(followers: [FollowDTO], broughtShare: Double, backgroundShares: [Double] = [], durationCounts: [Int],
                holidaysAsSundays: Bool, falseLinkRate: Double = 0, format: Int = OpeningDynamicsDTO.currentFormat) {
        self.format = format
        self.followers = followers
        self.broughtShare = broughtShare
        self.backgroundShares = backgroundShares
        self.durationCounts = durationCounts
        self.holidaysAsSundays = holidaysAsSundays
        self.falseLinkRate = falseLinkRate
    }

    private enum CodingKeys: String, CodingKey {
        case format, followers, broughtShare, backgroundShares, durationCounts, holidaysAsSundays, falseLinkRate
    }

    /// Reads dynamics; those saved by an older version read as format 1 (rebuilt before use).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        format = try container.decodeIfPresent(Int.self, forKey: .format) ?? 1
        followers = try container.decode([FollowDTO].self, forKey: .followers)
        broughtShare = try container.decode(Double.self, forKey: .broughtShare)
        backgroundShares = try container.decodeIfPresent([Double].self, forKey: .backgroundShares) ?? []
        durationCounts = try container.decode([Int].self, forKey: .durationCounts)
        holidaysAsSundays = try container.decode(Bool.self, forKey: .holidaysAsSundays)
        falseLinkRate = try container.decodeIfPresent(Double.self, forKey: .falseLinkRate) ?? 0
    }

    /// None: a model built without them forecasts from its slots alone.
    public static let none = OpeningDynamicsDTO(followers: [], broughtShare: 0, durationCounts: [],
                                                holidaysAsSundays: false)

    /// The share of openings at `hour` (0–23) of a weekday or a weekend day that start a vessel's passage here.
    public func backgroundShare(hour: Int, weekend: Bool) -> Double {
        let index = (weekend ? 24 : 0) + min(max(hour, 0), 23)
        return backgroundShares.count == 48 ? backgroundShares[index] : 1 - broughtShare
    }

    /// Whether every figure is one a model can hold: shares in 0…1, lag weights finite, non-negative and summing to
    /// 1, lags within a day, counts non-negative. A store hands back what it was given; a value that fails this (a
    /// damaged row, an edit by hand) is read as `.none`, never forecast from.
    public var isSound: Bool {
        let unit = { (value: Double) in value.isFinite && value >= 0 && value <= 1 }
        return unit(broughtShare) && unit(falseLinkRate) && durationCounts.allSatisfy { $0 >= 0 }
            && durationCounts.count <= 1_441 && (backgroundShares.isEmpty || backgroundShares.count == 48)
            && backgroundShares.allSatisfy(unit) && followers.count <= 1_000 && followers.allSatisfy { follow in
                unit(follow.share) && follow.originShares.count <= 1_000 && follow.originShares.values.allSatisfy(unit)
                    && (1...1_440).contains(follow.maxLagMinutes) && follow.lagWeights.count == follow.maxLagMinutes
                    && follow.lagWeights.allSatisfy(unit)
                    && abs(follow.lagWeights.reduce(0, +) - 1) < 1e-6
                    && follow.sourceOpenings >= 0 && follow.followed >= 0
                    && follow.expectedByChance.isFinite && follow.chanceSpread.isFinite && follow.chanceSpread >= 0
            }
    }

    /// Mean minutes still to go for an opening that has lasted `elapsed` minutes (`nil` without durations).
    public func meanRemaining(afterMinutes elapsed: Double) -> Double? {
        var weight = 0.0
        var sum = 0.0
        for (minutes, count) in durationCounts.enumerated() where Double(minutes) + 0.5 > elapsed && count > 0 {
            weight += Double(count)
            sum += Double(count) * (Double(minutes) + 0.5 - elapsed)
        }
        return weight > 0 ? sum / weight : nil
    }
}

/// One thing that moved a forecast, or that it knows about its moment.
public struct ForecastReasonDTO: Sendable, Codable, Equatable, Hashable {
    /// What kind: `follows` (another bridge opened: a vessel on its way), `discounted` (an opening elsewhere that
    /// brings none here: its vessel came from here, or has passed already), `holiday` (a federal holiday lifts the
    /// curfew), `curfew` (the rush-hour rule holds small vessels), `deviation` (closed for an event), `announced` (an
    /// opening is announced in the window), `under-way` (the bridge is open now), `evidence` (what happened before
    /// the moment is not known yet), `model` (a past moment's model was learnt from the history after it).
    public let kind: String
    /// For people: "Ballard opened 6 min ago: 71% of such openings are followed at Fremont within 20 min".
    public let text: String
    /// The chance of an opening in the window this reason alone gives (for `follows`, `announced`), if it is one.
    public let chance: Double?
    /// The other bridge, for `follows`.
    public let bridgeID: String?

    public init(kind: String, text: String, chance: Double? = nil, bridgeID: String? = nil) {
        self.kind = kind
        self.text = text
        self.chance = chance
        self.bridgeID = bridgeID
    }
}
