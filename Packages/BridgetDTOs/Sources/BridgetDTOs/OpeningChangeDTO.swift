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
        if let text = try? container.decode(String.self, forKey: .recordedAt), let date = Self.date(millisecondText: text) {
            recordedAt = date
        } else {
            recordedAt = try container.decode(Date.self, forKey: .recordedAt)
        }
        kind = try container.decode(OpeningChangeKind.self, forKey: .kind)
        bridgeID = try container.decode(String.self, forKey: .bridgeID)
        openedAt = try container.decode(Date.self, forKey: .openedAt)
        closedAt = try container.decodeIfPresent(Date.self, forKey: .closedAt)
        status = try container.decode(OpeningStatus.self, forKey: .status)
        recordID = try container.decodeIfPresent(String.self, forKey: .recordID)
        recordVersion = try container.decodeIfPresent(Int.self, forKey: .recordVersion)
    }

    /// `2026-11-26T07:18:53.123Z`.
    public static func millisecondText(_ date: Date) -> String {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        var seconds = milliseconds.quotientAndRemainder(dividingBy: 1000)
        if seconds.remainder < 0 { seconds = (seconds.quotient - 1, seconds.remainder + 1000) }
        let day = Int(seconds.quotient.quotientAndRemainder(dividingBy: 86_400).quotient
            - (seconds.quotient % 86_400 < 0 ? 1 : 0))
        let secondOfDay = Int(seconds.quotient - Int64(day) * 86_400)
        let (year, month, dayOfMonth) = civil(fromDays: day)
        return String(format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", year, month, dayOfMonth, secondOfDay / 3600,
                      secondOfDay / 60 % 60, secondOfDay % 60, Int(seconds.remainder))
    }

    /// A `…Z` instant with or without a fraction; `nil` for anything else.
    static func date(millisecondText text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)
    }

    /// The proleptic Gregorian date of a day number since 1970-01-01 (Howard Hinnant's algorithm).
    private static func civil(fromDays days: Int) -> (Int, Int, Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
