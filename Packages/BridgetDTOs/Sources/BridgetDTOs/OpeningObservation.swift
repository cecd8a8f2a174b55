import Foundation

/// One opening as a source reports it, before validation: the source-neutral form every provider and every import
/// yields, whatever its format (Socrata rows, DATEX II situation records, …). Validation turns it into a
/// `BridgeEventDTO` or a counted rejection.
///
/// Each field is what the source said: absent, a value, or present but unreadable (`ObservedField`), so that
/// validation can count a bad field under its own reason without knowing the format.
public struct OpeningObservation: Sendable, Hashable {
    /// The source's reference to the bridge (an id of the catalog the batch is judged against), as given.
    public var bridgeID: String?
    /// The bridge's name on this record.
    public var bridgeName: String?
    /// When the bridge opened: an instant, or a wall-clock reading in the source's time zone.
    public var opened: ObservedField<TimeReading>
    /// When it closed, the same way.
    public var closed: ObservedField<TimeReading>
    /// The local readings as the source wrote them, when it gave local readings: kept beside the instants as they
    /// are (validation would otherwise format each reading again; a million rows' worth is a visible cost).
    public var openedText: String?
    public var closedText: String?
    /// The source's own count of minutes open.
    public var durationMinutes: ObservedField<Double>
    /// The position on the record (WGS 84 degrees).
    public var latitude: ObservedField<Double>
    public var longitude: ObservedField<Double>
    /// Whether the opening happened or is announced.
    public var status: OpeningStatus
    /// The source's id of the record and its version, when the source has them: a record seen again with a higher
    /// version replaces the earlier one.
    public var recordID: String?
    public var recordVersion: Int?
    /// A defect the format's reader found in the record itself (a control character inside a text), judged before
    /// any other rule.
    public var defect: RejectionReason?
    /// The record as received, for provenance (a rejected record is kept as it came).
    public var source: SourceRecord

    /// Creates an observation.
    public init(
        bridgeID: String?, bridgeName: String?, opened: ObservedField<TimeReading>,
        closed: ObservedField<TimeReading> = .absent, openedText: String? = nil, closedText: String? = nil,
        durationMinutes: ObservedField<Double> = .absent,
        latitude: ObservedField<Double> = .absent, longitude: ObservedField<Double> = .absent,
        status: OpeningStatus = .observed, recordID: String? = nil, recordVersion: Int? = nil,
        defect: RejectionReason? = nil, source: SourceRecord = SourceRecord()
    ) {
        self.bridgeID = bridgeID
        self.bridgeName = bridgeName
        self.opened = opened
        self.closed = closed
        self.openedText = openedText
        self.closedText = closedText
        self.durationMinutes = durationMinutes
        self.latitude = latitude
        self.longitude = longitude
        self.status = status
        self.recordID = recordID
        self.recordVersion = recordVersion
        self.defect = defect
        self.source = source
    }
}

/// A field of an observation as the source gave it.
public enum ObservedField<Value: Sendable & Hashable>: Sendable, Hashable {
    /// The source left it out.
    case absent
    /// A value read from it.
    case value(Value)
    /// Present, but not readable as a value; the text as received.
    case unreadable(String)

    /// The value, when there is one.
    public var value: Value? {
        if case .value(let value) = self { return value }
        return nil
    }
}

/// A moment as a source gives it.
public enum TimeReading: Sendable, Hashable {
    /// An absolute instant (the source gave a UTC time or an offset).
    case instant(Date)
    /// A wall-clock reading with no zone, to be read in the source's time zone (`LocalClock`).
    case local(FloatingTimestamp)
}

/// Where an opening comes from: a published record of one that happened, one seen happen by polling a live state
/// feed, or an announcement.
public enum OpeningStatus: String, Sendable, Codable, CaseIterable, Comparable {
    /// It happened (or is under way), as the source's published record says.
    case observed
    /// It is announced for a time that may still come; a model learns from openings that happened only.
    case planned
    /// It happened (or is under way), as Bridget saw it by polling a live state feed: its times are the polls that
    /// saw the bridge raised and lowered (`BridgeEventDTO.live` says how uncertain they are). The published record,
    /// when it comes, replaces it.
    case live

    /// Whether an opening of this status happened (observed or live), as opposed to being announced.
    public var happened: Bool { self != .planned }

    public static func < (lhs: OpeningStatus, rhs: OpeningStatus) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// A record as its source sent it: its fields' names and texts, in the source's order.
///
/// Read only when needed (a rejected record is reported as it came): a source may keep its records once, for a
/// whole page, in a `SourceRecordTable`, and each observation points at its own. Making every row's fields as an
/// array cost a visible share of a sync.
public struct SourceRecord: Sendable, Hashable, Codable {
    /// One field.
    public struct Field: Sendable, Hashable, Codable {
        public var name: String
        public var value: String

        /// Creates a field.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    private let table: any SourceRecordTable
    private let index: Int

    /// A record of these fields.
    public init(fields: [Field] = []) {
        table = FieldTable(fields)
        index = 0
    }

    /// Record `index` of a table of records.
    public init(_ table: any SourceRecordTable, index: Int) {
        self.table = table
        self.index = index
    }

    /// The fields, in order; absent fields absent.
    public var fields: [Field] { table.fields(at: index) }

    /// A field's text, by name.
    public subscript(name: String) -> String? { fields.first { $0.name == name }?.value }

    public static func == (lhs: SourceRecord, rhs: SourceRecord) -> Bool { lhs.fields == rhs.fields }

    public func hash(into hasher: inout Hasher) { hasher.combine(fields) }

    /// Encoded as one JSON object in field order (`{"entityid":"3",…}`).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        for field in fields { try container.encode(field.value, forKey: Key(field.name)) }
    }

    /// Decoded from a JSON object of strings.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        self.init(fields: try container.allKeys.map {
            Field(name: $0.stringValue, value: try container.decode(String.self, forKey: $0))
        })
    }

    private struct Key: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(_ name: String) { stringValue = name }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// One record's fields, held as they are.
    private final class FieldTable: SourceRecordTable {
        let fields: [Field]
        init(_ fields: [Field]) { self.fields = fields }
        func fields(at index: Int) -> [Field] { fields }
    }
}

/// Records as a source received them, kept once for many observations (a page), each read by its index.
public protocol SourceRecordTable: AnyObject, Sendable {
    /// The fields of record `index`, in the source's order.
    func fields(at index: Int) -> [SourceRecord.Field]
}
