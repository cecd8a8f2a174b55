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
}
