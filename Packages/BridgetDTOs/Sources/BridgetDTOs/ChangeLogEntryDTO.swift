import Foundation

/// One entry of a store's change log: a change to one opening, or the summary of a bulk write.
///
/// Encoded as the value it holds (each has a `kind`; a summary's is `bulk`), so a reader that only knows openings'
/// changes sees an unknown kind, not a malformed entry.
public enum ChangeLogEntryDTO: Sendable, Codable, Equatable, Hashable {
    /// A change to one opening: what status, the stream and alerts act on.
    case opening(OpeningChangeDTO)
    /// Many changes to older openings written together (an import, a backfill): read them again, don't follow them.
    case bulk(BulkChangeDTO)

    /// The log's number for the entry.
    public var sequence: Int64 {
        switch self {
        case .opening(let change): change.sequence
        case .bulk(let summary): summary.sequence
        }
    }

    /// When the store recorded it.
    public var recordedAt: Date {
        switch self {
        case .opening(let change): change.recordedAt
        case .bulk(let summary): summary.recordedAt
        }
    }

    /// The change to one opening, `nil` for a summary.
    public var opening: OpeningChangeDTO? {
        if case .opening(let change) = self { change } else { nil }
    }

    /// The bridges the entry concerns: the opening's, or every bridge a summary counts.
    public var bridgeIDs: [String] {
        switch self {
        case .opening(let change): [change.bridgeID]
        case .bulk(let summary): summary.bridgeIDs
        }
    }

    /// The entry's kind as its JSON says it: an opening change's kind, or `bulk`.
    public var kindName: String {
        switch self {
        case .opening(let change): change.kind.rawValue
        case .bulk: BulkChangeDTO.kindName
        }
    }

    private enum KindKey: String, CodingKey { case kind }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .opening(let change): try change.encode(to: encoder)
        case .bulk(let summary): try summary.encode(to: encoder)
        }
    }

    public init(from decoder: any Decoder) throws {
        let kind = try decoder.container(keyedBy: KindKey.self).decode(String.self, forKey: .kind)
        self = kind == BulkChangeDTO.kindName ? .bulk(try BulkChangeDTO(from: decoder))
            : .opening(try OpeningChangeDTO(from: decoder))
    }
}

/// The log's summary of a bulk write: how many openings changed in which way, at which bridges, opened when, and the
/// history version that holds them. Openings of the last day, announced ones, live ones and replacements are never
/// summarised: each of those has an entry of its own.
///
/// A reader acts on it by reading the openings again (`GET /v1/bridges/{id}/events?since=…&until=…`, `bridget events
/// --since … --until …`, or the whole history when it keeps aggregates), not by applying each change: there is no per-opening detail to apply.
public struct BulkChangeDTO: Sendable, Codable, Equatable, Hashable {
    /// The `kind` a summary has in JSON.
    public static let kindName = "bulk"

    public let sequence: Int64
    public let recordedAt: Date
    /// Openings summarised, by the kind each change would have had (`new`, `closed`, `updated`).
    public let counts: [OpeningChangeKind: Int]
    /// The bridges of those openings, sorted.
    public let bridgeIDs: [String]
    /// The earliest and the latest opening time among them.
    public let openedFrom: Date
    public let openedThrough: Date
    /// The store's history version once the write committed: a reader holding this version or a later one has it.
    public let historyVersion: Int64

    public init(sequence: Int64, recordedAt: Date, counts: [OpeningChangeKind: Int], bridgeIDs: [String],
                openedFrom: Date, openedThrough: Date, historyVersion: Int64) {
        self.sequence = sequence
        self.recordedAt = recordedAt
        self.counts = counts
        self.bridgeIDs = bridgeIDs
        self.openedFrom = openedFrom
        self.openedThrough = openedThrough
        self.historyVersion = historyVersion
    }

    /// Openings summarised, every kind together.
    public var total: Int { counts.values.reduce(0, +) }

    private enum CodingKeys: String, CodingKey {
        case sequence, recordedAt, kind, counts, total, bridgeIDs, openedFrom, openedThrough, historyVersion
    }

    /// `recordedAt` to the millisecond, as an opening's change; `counts` as an object keyed by kind, and their
    /// `total`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(sequence, forKey: .sequence)
        try container.encode(OpeningChangeDTO.millisecondText(recordedAt), forKey: .recordedAt)
        try container.encode(Self.kindName, forKey: .kind)
        try container.encode(Dictionary(uniqueKeysWithValues: counts.map { ($0.key.rawValue, $0.value) }),
                             forKey: .counts)
        try container.encode(total, forKey: .total)
        try container.encode(bridgeIDs, forKey: .bridgeIDs)
        try container.encode(openedFrom, forKey: .openedFrom)
        try container.encode(openedThrough, forKey: .openedThrough)
        try container.encode(historyVersion, forKey: .historyVersion)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let kind = try container.decode(String.self, forKey: .kind)
        guard kind == Self.kindName else {
            throw DecodingError.dataCorruptedError(forKey: .kind, in: container, debugDescription: "not a bulk summary")
        }
        sequence = try container.decode(Int64.self, forKey: .sequence)
        recordedAt = try OpeningChangeDTO.decodeRecordedAt(container, .recordedAt)
        var counts: [OpeningChangeKind: Int] = [:]
        for (name, count) in try container.decode([String: Int].self, forKey: .counts) {
            guard let kind = OpeningChangeKind(rawValue: name), count >= 0 else {
                throw DecodingError.dataCorruptedError(forKey: .counts, in: container,
                                                       debugDescription: "an unknown kind or a negative count")
            }
            counts[kind] = count
        }
        self.counts = counts
        bridgeIDs = try container.decode([String].self, forKey: .bridgeIDs)
        openedFrom = try container.decode(Date.self, forKey: .openedFrom)
        openedThrough = try container.decode(Date.self, forKey: .openedThrough)
        historyVersion = try container.decode(Int64.self, forKey: .historyVersion)
    }
}
