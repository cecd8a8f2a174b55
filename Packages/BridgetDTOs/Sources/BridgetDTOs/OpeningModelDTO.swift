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

    /// Creates a model.
    public init(
        bridgeID: String, builtAt: Date, firstDay: String?, lastDay: String?, openings: Int, sourceEvents: Int,
        sourceLatestOpening: Date?, baseStartProbability: Double, baseOpenProbability: Double, slots: [OpeningSlotDTO],
        monthFactors: [Double] = Array(repeating: 1, count: 12), sourceVersion: Int64 = 0
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
    }

    /// The same model, marked as built from history version `version`.
    public func stamped(version: Int64) -> OpeningModelDTO {
        OpeningModelDTO(
            bridgeID: bridgeID, builtAt: builtAt, firstDay: firstDay, lastDay: lastDay, openings: openings,
            sourceEvents: sourceEvents, sourceLatestOpening: sourceLatestOpening,
            baseStartProbability: baseStartProbability, baseOpenProbability: baseOpenProbability, slots: slots,
            monthFactors: monthFactors, sourceVersion: version)
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

    /// Creates a forecast.
    public init(bridgeID: String, bridgeName: String, at: String, windowMinutes: Int, chanceOfOpening: Double,
                chanceOpenOnArrival: Double, expectedDelayMinutes: Double, baseChanceOfOpening: Double,
                sampleStarts: Int, sampleOccurrences: Int) {
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
