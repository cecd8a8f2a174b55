import Foundation

/// Openings of one bridge followed by openings of another more often than chance.
public struct CascadeDTO: Sendable, Codable, Equatable {
    public let fromBridgeID: String
    public let fromBridgeName: String
    public let toBridgeID: String
    public let toBridgeName: String
    /// Openings of `from` followed by an opening of `to` starting within `withinMinutes`.
    public let count: Int
    /// The count expected if `to` opened independently: the same count with its openings shifted by whole weeks
    /// (scaled for the openings the shift leaves uncovered), at least 0.5.
    public let expected: Double
    /// count / expected.
    public let lift: Double
    /// (count − expected) / √expected: how many Poisson standard deviations above chance; below about 3, noise.
    public let zScore: Double
    public let withinMinutes: Int

    /// Creates a cascade.
    public init(fromBridgeID: String, fromBridgeName: String, toBridgeID: String, toBridgeName: String, count: Int,
                expected: Double, lift: Double, zScore: Double, withinMinutes: Int) {
        self.fromBridgeID = fromBridgeID
        self.fromBridgeName = fromBridgeName
        self.toBridgeID = toBridgeID
        self.toBridgeName = toBridgeName
        self.count = count
        self.expected = expected
        self.lift = lift
        self.zScore = zScore
        self.withinMinutes = withinMinutes
    }
}

/// An opening that does not fit its bridge's history.
public struct AnomalyDTO: Sendable, Codable, Equatable {
    /// Why it stands out.
    public enum Reason: String, Sendable, Codable {
        /// Longer than the bridge's 99th-percentile duration.
        case long
        /// At a time the model gives a near-zero chance of an opening starting.
        case unlikelyTime = "unlikely-time"
    }

    public let bridgeID: String
    public let bridgeName: String
    public let openedAt: Date
    /// The source's wall-clock opening (`YYYY-MM-DDTHH:MM`).
    public let openLocal: String
    public let durationMinutes: Double?
    public let reasons: [Reason]
    /// The bridge's 99th-percentile duration.
    public let p99Minutes: Double?
    /// The model's chance of an opening starting in that 15-minute slot.
    public let slotChance: Double

    /// Creates an anomaly.
    public init(bridgeID: String, bridgeName: String, openedAt: Date, openLocal: String, durationMinutes: Double?,
                reasons: [Reason], p99Minutes: Double?, slotChance: Double) {
        self.bridgeID = bridgeID
        self.bridgeName = bridgeName
        self.openedAt = openedAt
        self.openLocal = openLocal
        self.durationMinutes = durationMinutes
        self.reasons = reasons
        self.p99Minutes = p99Minutes
        self.slotChance = slotChance
    }
}
