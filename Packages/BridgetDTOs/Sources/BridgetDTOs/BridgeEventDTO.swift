import Foundation

/// The natural key of an opening: the bridge and the instant it opened. (Socrata's `:id` changes on republish.)
public struct EventKey: Sendable, Codable, Equatable, Hashable, Comparable {
    /// The bridge's id in its catalog (Socrata's `entityid`, NDW's location code).
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
/// Instants are absolute; the local wall-clock readings (in the source's time zone) are kept beside them.
public struct BridgeEventDTO: Sendable, Codable, Equatable, Hashable {
    /// The bridge's id in its catalog (Socrata's `entityid`, NDW's location code).
    public let bridgeID: String
    /// The bridge's name on this record.
    public let bridgeName: String
    /// When the bridge opened.
    public let openedAt: Date
    /// The opening as a wall-clock reading in the source's zone (`2026-09-23T22:35:00.000`, no zone).
    public let openLocal: String
    /// When the bridge closed; `nil` when the record has no closing (still open, or a sensor gap).
    public let closedAt: Date?
    /// The closing as a wall-clock reading, when there is one.
    public let closeLocal: String?
    /// The source's own minutes open, when it gave them.
    public let minutesOpen: Int?
    /// Latitude on the record, when present.
    public let latitude: Double?
    /// Longitude on the record, when present.
    public let longitude: Double?
    /// Whether the opening happened or is announced.
    public let status: OpeningStatus
    /// The source's id of the record and its version, when it has them (a higher version replaces a lower one).
    public let recordID: String?
    public let recordVersion: Int?
    /// For an opening seen live (`status == .live`): how uncertain its times are. `nil` for every other.
    public let live: LiveWindow?

    /// Creates an event.
    public init(
        bridgeID: String, bridgeName: String, openedAt: Date, openLocal: String,
        closedAt: Date?, closeLocal: String?, minutesOpen: Int?, latitude: Double?, longitude: Double?,
        status: OpeningStatus = .observed, recordID: String? = nil, recordVersion: Int? = nil, live: LiveWindow? = nil
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
        self.status = status
        self.recordID = recordID
        self.recordVersion = recordVersion
        self.live = live
    }

    private enum CodingKeys: String, CodingKey {
        case bridgeID, bridgeName, openedAt, openLocal, closedAt, closeLocal, minutesOpen, latitude, longitude, status,
             recordID, recordVersion, live
    }

    /// Decodes an event; one written before statuses existed is observed.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            bridgeID: try container.decode(String.self, forKey: .bridgeID),
            bridgeName: try container.decode(String.self, forKey: .bridgeName),
            openedAt: try container.decode(Date.self, forKey: .openedAt),
            openLocal: try container.decode(String.self, forKey: .openLocal),
            closedAt: try container.decodeIfPresent(Date.self, forKey: .closedAt),
            closeLocal: try container.decodeIfPresent(String.self, forKey: .closeLocal),
            minutesOpen: try container.decodeIfPresent(Int.self, forKey: .minutesOpen),
            latitude: try container.decodeIfPresent(Double.self, forKey: .latitude),
            longitude: try container.decodeIfPresent(Double.self, forKey: .longitude),
            status: try container.decodeIfPresent(OpeningStatus.self, forKey: .status) ?? .observed,
            recordID: try container.decodeIfPresent(String.self, forKey: .recordID),
            recordVersion: try container.decodeIfPresent(Int.self, forKey: .recordVersion),
            live: try container.decodeIfPresent(LiveWindow.self, forKey: .live))
    }

    /// The natural key (bridge, opening instant).
    public var key: EventKey { EventKey(bridgeID: bridgeID, openedAt: openedAt) }

    /// Minutes between opening and closing, or `nil` while the closing is unknown.
    public var durationMinutes: Double? {
        closedAt.map { $0.timeIntervalSince(openedAt) / 60 }
    }
}

/// How uncertain an opening seen live is. A live state feed has no times: an opening's start is the poll that first
/// saw the bridge raised, and it started after the poll before (`openedAfter`); its end is the poll that first saw it
/// lowered, after the last poll that saw it raised (`closedAfter`).
public struct LiveWindow: Sendable, Codable, Equatable, Hashable {
    /// The poll before the one that saw the bridge raised: the opening started after it. `nil` when no poll saw the
    /// bridge lowered before (the first poll, or after a gap in polling).
    public let openedAfter: Date?
    /// The last poll that saw the bridge raised: the opening ended after it. `nil` while it is under way.
    public let closedAfter: Date?
    /// The bridge was seen raised for longer than a sane opening lasts (or polling stopped during it), so its end is
    /// not known: the closing is when Bridget stopped believing it, not when the bridge came down.
    public let endUnknown: Bool

    /// Creates a window.
    public init(openedAfter: Date?, closedAfter: Date? = nil, endUnknown: Bool = false) {
        self.openedAfter = openedAfter
        self.closedAfter = closedAfter
        self.endUnknown = endUnknown
    }

    /// The stored text: `openedAfter|closedAfter|unknown` as milliseconds since 1970 (empty for none), e.g.
    /// `1795723200000||` or `1795723200000|1795723380000|unknown`.
    public var storedText: String {
        func milliseconds(_ date: Date?) -> String {
            guard let date, date.timeIntervalSince1970.isFinite, abs(date.timeIntervalSince1970) < 1e12 else { return "" }
            return String(Int64((date.timeIntervalSince1970 * 1000).rounded()))
        }
        return milliseconds(openedAfter) + "|" + milliseconds(closedAfter) + "|" + (endUnknown ? "unknown" : "")
    }

    /// A window from its stored text; `nil` for text that is not one.
    public init?(storedText text: String) {
        let parts = text.split(separator: "|", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[2].isEmpty || parts[2] == "unknown" else { return nil }
        func date(_ part: Substring) -> Date?? {
            if part.isEmpty { return .some(nil) }
            guard let value = Int64(part) else { return nil }
            return .some(Date(timeIntervalSince1970: Double(value) / 1000))
        }
        guard let opened = date(parts[0]), let closed = date(parts[1]) else { return nil }
        self.init(openedAfter: opened, closedAfter: closed, endUnknown: parts[2] == "unknown")
    }
}
