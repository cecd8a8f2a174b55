import Foundation

/// What happened to a stored opening.
public enum OpeningChangeKind: String, Sendable, Codable, CaseIterable {
    /// An opening that happened (or is under way) was stored for the first time.
    case new
    /// An announced (planned) opening was stored for the first time.
    case announced
    /// A stored opening's closing became known.
    case closed
    /// Another field of a stored opening changed (a corrected reading, a moved position).
    case updated
    /// A newer version of a source's record replaced the stored one: an announced opening that moved, or one now
    /// under way.
    case replaced
    /// An announced opening that its source no longer lists was removed.
    case withdrawn
}

/// One entry of a store's change log: a change to an opening, numbered in the order the changes were stored.
///
/// The fields are the opening as it stands after the change (a withdrawn one as it stood before): enough for a
/// client to keep a copy of the openings it follows, or to fetch the whole event by its key.
public struct OpeningChangeDTO: Sendable, Codable, Equatable, Hashable {
    /// The log's number for the change: it grows with every change stored, across every writer of the store.
    public let sequence: Int64
    /// When the store recorded it (the store's clock).
    public let recordedAt: Date
    public let kind: OpeningChangeKind
    public let bridgeID: String
    public let openedAt: Date
    public let closedAt: Date?
    public let status: OpeningStatus
    public let recordID: String?
    public let recordVersion: Int?

    /// Creates a change.
    public init(sequence: Int64, recordedAt: Date, kind: OpeningChangeKind, bridgeID: String, openedAt: Date,
                closedAt: Date?, status: OpeningStatus, recordID: String?, recordVersion: Int?) {
        self.sequence = sequence
        self.recordedAt = recordedAt
        self.kind = kind
        self.bridgeID = bridgeID
        self.openedAt = openedAt
        self.closedAt = closedAt
        self.status = status
        self.recordID = recordID
        self.recordVersion = recordVersion
    }

    /// The opening's key.
    public var key: EventKey { EventKey(bridgeID: bridgeID, openedAt: openedAt) }

    private enum CodingKeys: String, CodingKey {
        case sequence, recordedAt, kind, bridgeID, openedAt, closedAt, status, recordID, recordVersion
    }

    /// Encoded as every value is, but `recordedAt` to the millisecond (`2026-11-26T07:18:53.123Z`) whatever the
    /// encoder's date strategy: a log's time orders and measures changes a few milliseconds apart.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(sequence, forKey: .sequence)
        try container.encode(Self.millisecondText(recordedAt), forKey: .recordedAt)
        try container.encode(kind, forKey: .kind)
        try container.encode(bridgeID, forKey: .bridgeID)
        try container.encode(openedAt, forKey: .openedAt)
        try container.encodeIfPresent(closedAt, forKey: .closedAt)
        try container.encode(status, forKey: .status)
        try container.encodeIfPresent(recordID, forKey: .recordID)
        try container.encodeIfPresent(recordVersion, forKey: .recordVersion)
    }

    /// Decoded from what `encode(to:)` writes (or a `recordedAt` as the decoder's date strategy reads it).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        sequence = try container.decode(Int64.self, forKey: .sequence)
        recordedAt = try Self.decodeRecordedAt(container, .recordedAt)
        kind = try container.decode(OpeningChangeKind.self, forKey: .kind)
        bridgeID = try container.decode(String.self, forKey: .bridgeID)
        openedAt = try container.decode(Date.self, forKey: .openedAt)
        closedAt = try container.decodeIfPresent(Date.self, forKey: .closedAt)
        status = try container.decode(OpeningStatus.self, forKey: .status)
        recordID = try container.decodeIfPresent(String.self, forKey: .recordID)
        recordVersion = try container.decodeIfPresent(Int.self, forKey: .recordVersion)
    }

    /// `2026-11-26T07:18:53.123Z`: the UTC reading (`FloatingTimestamp`), then the milliseconds.
    public static func millisecondText(_ date: Date) -> String {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        let seconds = milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000
        let fraction = Int(milliseconds - seconds * 1000)
        return FloatingTimestamp(wallClockSeconds: seconds).localText + "." + String(fraction + 1000).dropFirst() + "Z"
    }

    /// A log entry's `recordedAt`: the millisecond text `encode(to:)` writes, or a date as the decoder's strategy
    /// reads one.
    static func decodeRecordedAt<Key: CodingKey>(_ container: KeyedDecodingContainer<Key>, _ key: Key) throws -> Date {
        if let text = try? container.decode(String.self, forKey: key), let date = date(millisecondText: text) {
            return date
        }
        return try container.decode(Date.self, forKey: key)
    }

    /// A `…Z` instant with or without a fraction (`InstantText`); `nil` for anything else.
    static func date(millisecondText text: String) -> Date? { InstantText.date(from: text) }
}
