import Foundation

/// One movable bridge, identified by its source's id (Socrata's `entityid`, a string such as "3", ids not
/// contiguous; NDW's ISRS location code).
public struct BridgeInfoDTO: Sendable, Codable, Equatable, Hashable, Identifiable {
    /// The source's id (Socrata's `entityid`, NDW's location code).
    public let id: String
    /// The dataset's `entityname` (e.g. "Fremont").
    public let name: String
    /// A longer name for people (e.g. "Fremont Bridge").
    public let displayName: String
    /// Latitude the dataset carries for this bridge.
    public let latitude: Double
    /// Longitude the dataset carries for this bridge.
    public let longitude: Double
    /// The waterway the bridge crosses.
    public let waterway: String
    /// Mechanism, e.g. "bascule" or "swing".
    public let kind: String

    /// Creates a bridge description.
    public init(
        id: String, name: String, displayName: String, latitude: Double, longitude: Double,
        waterway: String, kind: String
    ) {
        self.id = id
        self.name = name
        self.displayName = displayName
        self.latitude = latitude
        self.longitude = longitude
        self.waterway = waterway
        self.kind = kind
    }

    /// Whether the bridge crosses the Lake Washington Ship Canal, whose bridges keep weekday rush-hour curfews.
    public var isShipCanalBridge: Bool { waterway.contains("Ship Canal") }
}
