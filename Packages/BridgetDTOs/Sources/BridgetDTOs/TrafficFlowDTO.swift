import Foundation

/// Road traffic observed near a bridge at one moment.
public struct TrafficFlowDTO: Sendable, Codable, Equatable, Hashable {
    /// The bridge the observation belongs to.
    public let bridgeID: String
    /// When it was observed.
    public let timestamp: Date
    /// Congestion from 0 (free flow) to 1 (standstill).
    public let congestionLevel: Double
    /// Vehicles per hour.
    public let trafficVolume: Int

    /// Creates an observation.
    public init(bridgeID: String, timestamp: Date, congestionLevel: Double, trafficVolume: Int) {
        self.bridgeID = bridgeID
        self.timestamp = timestamp
        self.congestionLevel = congestionLevel
        self.trafficVolume = trafficVolume
    }
}
