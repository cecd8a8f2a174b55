import BridgetDTOs

/// How often and when one bridge opens in the synthetic data.
public struct SampleBridgeProfile: Sendable, Equatable {
    /// Mean openings in a year.
    public let openingsPerYear: Double
    /// Relative weight of each Seattle local hour of the day (24 entries).
    public let hourWeights: [Double]
    /// Whether small vessels are held on weekdays 07:00–09:00 and 16:00–18:00 (the Ship Canal rule).
    public let keepsRushHourCurfew: Bool

    /// Creates a profile.
    public init(openingsPerYear: Double, hourWeights: [Double], keepsRushHourCurfew: Bool) {
        precondition(hourWeights.count == 24, "one weight per hour")
        self.openingsPerYear = openingsPerYear
        self.hourWeights = hourWeights
        self.keepsRushHourCurfew = keepsRushHourCurfew
    }

    /// Recreational traffic: quiet at night, busy from late morning to early evening.
    static let daytime: [Double] = [
        0.3, 0.2, 0.15, 0.1, 0.15, 0.4, 0.8, 1.2, 1.4, 1.6, 2.0, 2.3,
        2.5, 2.6, 2.6, 2.4, 2.2, 2.0, 1.8, 1.5, 1.1, 0.8, 0.6, 0.4,
    ]
    /// Industrial traffic: flatter, with working-hours tug and barge movements.
    static let industrial: [Double] = [
        0.6, 0.5, 0.5, 0.5, 0.6, 0.8, 1.0, 1.2, 1.3, 1.4, 1.4, 1.4,
        1.4, 1.4, 1.3, 1.3, 1.2, 1.1, 1.0, 0.9, 0.8, 0.8, 0.7, 0.6,
    ]

    /// Rates chosen so the network totals about 14,000 openings a year, Fremont busiest, as observed.
    public static func seattleDefault(for bridge: BridgeInfoDTO) -> SampleBridgeProfile {
        let curfew = bridge.isShipCanalBridge
        switch bridge.id {
        case "3": return SampleBridgeProfile(openingsPerYear: 3_600, hourWeights: daytime, keepsRushHourCurfew: curfew)
        case "2": return SampleBridgeProfile(openingsPerYear: 2_800, hourWeights: daytime, keepsRushHourCurfew: curfew)
        case "21": return SampleBridgeProfile(openingsPerYear: 2_400, hourWeights: daytime, keepsRushHourCurfew: curfew)
        case "4": return SampleBridgeProfile(openingsPerYear: 1_750, hourWeights: daytime, keepsRushHourCurfew: curfew)
        case "6": return SampleBridgeProfile(openingsPerYear: 1_650, hourWeights: industrial, keepsRushHourCurfew: curfew)
        case "1": return SampleBridgeProfile(openingsPerYear: 1_350, hourWeights: industrial, keepsRushHourCurfew: curfew)
        case "29": return SampleBridgeProfile(openingsPerYear: 950, hourWeights: industrial, keepsRushHourCurfew: curfew)
        default: return SampleBridgeProfile(openingsPerYear: 1_000, hourWeights: daytime, keepsRushHourCurfew: curfew)
        }
    }

    /// Whether the curfew forbids a small-vessel opening starting at this hour on this weekday (1 = Sunday).
    public func isCurfew(weekday: Int, hour: Int) -> Bool {
        keepsRushHourCurfew && (2...6).contains(weekday) && ((7..<9).contains(hour) || (16..<18).contains(hour))
    }
}
