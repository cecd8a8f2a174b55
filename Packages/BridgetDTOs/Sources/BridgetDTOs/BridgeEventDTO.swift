import Foundation

/// The natural key of an opening: the bridge and the instant it opened. (Socrata's `:id` changes on republish.)
public struct EventKey: Sendable, Codable, Equatable, Hashable, Comparable {
    /// The bridge's `entityid`.
    public let bridgeID: String
    /// The opening instant.
    public let openedAt: Date

    /// Creates a key.
    public init(bridgeID: String, openedAt: Date) {
        self.bridgeID = bridgeID
        self.openedAt = openedAt
    }

    public static func < (lhs: EventKey, rhs: EventKey) -> Bool {
        (lhs.openedAt, lhs.bridgeID) < (rhs.openedAt, rhs.bridgeID)
    }
}

/// One validated opening of one bridge.
///
/// Instants are absolute; the dataset's floating Seattle wall-clock strings are kept beside them, unchanged.
public struct BridgeEventDTO: Sendable, Codable, Equatable, Hashable {
    /// The bridge's `entityid`.
    public let bridgeID: String
    /// The dataset's `entityname` on this row.
    public let bridgeName: String
    /// When the bridge opened.
    public let openedAt: Date
    /// The raw `opendatetime` string (Seattle wall-clock time, no zone).
    public let openLocal: String
    /// When the bridge closed; `nil` when the row has no `closedatetime` (still open, or a sensor gap).
    public let closedAt: Date?
    /// The raw `closedatetime` string, when present.
    public let closeLocal: String?
    /// The dataset's `minutesopen`, when present.
    public let minutesOpen: Int?
    /// Latitude on the row, when present.
    public let latitude: Double?
    /// Longitude on the row, when present.
    public let longitude: Double?

    /// Creates an event.
    public init(
        bridgeID: String, bridgeName: String, openedAt: Date, openLocal: String,
        closedAt: Date?, closeLocal: String?, minutesOpen: Int?, latitude: Double?, longitude: Double?
    ) {
        self.bridgeID = bridgeID
        self.bridgeName = bridgeName
        self.openedAt = openedAt
        self.openLocal = openLocal
        self.closedAt = closedAt
        self.closeLocal = closeLocal
        self.minutesOpen = minutesOpen
        self.latitude = latitude
        self.longitude = longitude
    }

    /// The natural key (bridge, opening instant).
    public var key: EventKey { EventKey(bridgeID: bridgeID, openedAt: openedAt) }

    /// Minutes between opening and closing, or `nil` while the closing is unknown.
    public var durationMinutes: Double? {
        closedAt.map { $0.timeIntervalSince(openedAt) / 60 }
    }
}
