import Foundation

/// A bridge's opening pattern: when it opens, and how that relates to road traffic when flows are known.
public struct TrafficAnalysisDTO: Sendable, Codable, Equatable {
    public let bridgeID: String
    /// Openings analysed.
    public let openings: Int
    /// Openings by the source's local hour of day (24 entries).
    public let openingsByHour: [Int]
    /// Openings by weekday, Monday first (7 entries), as every week in Bridget (the heatmap, `hourOfWeek`).
    public let openingsByWeekday: [Int]
    /// The hours with the most openings, busiest first (up to three).
    public let peakHours: [Int]
    /// Correlation between openings and congestion, when traffic flows are available.
    public let congestionCorrelation: Double?

    /// Creates an analysis.
    public init(
        bridgeID: String, openings: Int, openingsByHour: [Int], openingsByWeekday: [Int], peakHours: [Int],
        congestionCorrelation: Double?
    ) {
        self.bridgeID = bridgeID
        self.openings = openings
        self.openingsByHour = openingsByHour
        self.openingsByWeekday = openingsByWeekday
        self.peakHours = peakHours
        self.congestionCorrelation = congestionCorrelation
    }
}
