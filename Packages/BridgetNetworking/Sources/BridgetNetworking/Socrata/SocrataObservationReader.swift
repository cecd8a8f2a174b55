import BridgetDTOs
import Foundation

/// Reads Socrata rows (every value a string, null fields omitted) as source-neutral `OpeningObservation`s: the
/// format's own rules live here, the rules every source shares in validation.
///
/// - A field holding a control character (NUL, a line break, an escape, DEL, C1) inside its text is a defect of the
///   record (`control-character`): a NUL would be stored whole and printed cut, a line break or an escape would
///   break a table line or drive a terminal. The whitespace trimmed from around a value stays accepted.
/// - `entityid`, `minutesopen` are trimmed of spaces and tabs, `entityname` of line breaks too.
/// - `opendatetime`/`closedatetime` are floating Seattle readings (`YYYY-MM-DDTHH:MM:SS[.fff]`): `TimeReading.local`.
/// - Numbers are read as `Double` would, with the dataset's plain decimals read without `strtod`.
///
/// A reader remembers the coordinate texts last read for each bridge: a bridge's rows repeat the same texts (the
/// scanners hand out one shared string for a repeated value), and reading a 17-digit longitude for every row was a
/// visible share of an import. Use one reader per sequence of rows (it is a value: copies do not share memory).
public struct SocrataObservationReader: Sendable {
    /// The coordinate texts last read for each bridge, and what they read as: a short list searched in order (a
    /// dataset has a handful of bridges), as a hashed lookup cost more per row than the search.
    private var coordinates: [(bridgeID: String, latitude: String?, longitude: String?,
                               read: (ObservedField<Double>, ObservedField<Double>))] = []

    /// A reader with nothing remembered.
    public init() {}

    /// The observation a row reports.
    public mutating func observation(_ row: SocrataRow) -> OpeningObservation {
        observation(row, source: Self.source(row))
    }

    /// The observations of rows, in order; the rows are kept once, as the observations' records.
    public mutating func observations<Rows: Sequence<SocrataRow>>(_ rows: Rows) -> [OpeningObservation] {
        let table = SocrataRecordTable(Array(rows))
        // Each row is read where it lies, through a pointer: passed as a value, every row was copied first (its
        // strings retained, then released), a visible share of an import.
        return table.rows.withUnsafeBufferPointer { rows in
            // Called for an index of the buffer only, so it is not empty and has a base address.
            rows.indices.map { observation(rows.baseAddress! + $0, source: SourceRecord(table, index: $0)) }
        }
    }

    private mutating func observation(_ row: SocrataRow, source: SourceRecord) -> OpeningObservation {
        withUnsafePointer(to: row) { observation($0, source: source) }
    }

    private mutating func observation(_ row: UnsafePointer<SocrataRow>, source: SourceRecord) -> OpeningObservation {
        let id = row.pointee.entityid.map { Self.trimmed($0, newlines: false) }
        let opened = Self.reading(row.pointee.opendatetime)
        let closed = Self.reading(row.pointee.closedatetime)
        let duration = Self.number(row.pointee.minutesopen.map { Self.trimmed($0, newlines: false) })
        let (latitude, longitude) = position(row, bridgeID: id ?? "")
        // The name and the id are kept as texts, so they are scanned; every other field is parsed strictly, and
        // one that holds a control character does not parse: only then is the whole row scanned, so the reason is
        // the control character whatever else the row breaks. (Scanning every field of every row cost a visible
        // share of a sync.)
        let unreadable = opened.isUnreadable || closed.isUnreadable || duration.isUnreadable
            || latitude.isUnreadable || longitude.isUnreadable
        let holdsControlCharacter = Self.inside(row.pointee.entityname, .whitespaceAndNewlines)
            || Self.inside(row.pointee.entityid, .whitespace) || (unreadable && Self.holdsControlCharacter(row.pointee))
        // Built once from its parts: an observation read back while being built was copied whole.
        return OpeningObservation(
            bridgeID: id, bridgeName: row.pointee.entityname.map { Self.trimmed($0, newlines: true) }, opened: opened,
            closed: closed, openedText: opened.value == nil ? nil : row.pointee.opendatetime,
            closedText: closed.value == nil ? nil : row.pointee.closedatetime, durationMinutes: duration,
            latitude: latitude, longitude: longitude, defect: holdsControlCharacter ? .controlCharacter : nil,
            source: source)
    }

    /// Whether a row's opening reading lies near one of `clock`'s offset changes, where its instant can depend on
    /// the rows before it: a batch is never cut just before such a row. Costs one timestamp parse.
    public static func mayDependOnBatch(_ row: SocrataRow, clock: LocalClock) -> Bool {
        guard let text = row.opendatetime, let reading = FloatingTimestamp(text) else { return false }
        return clock.nearOffsetChange(reading)
    }

    /// The row as a source record: its fields in column order, absent fields absent.
    public static func source(_ row: SocrataRow) -> SourceRecord {
        SourceRecord(fields: row.fields)
    }

    private mutating func position(_ record: UnsafePointer<SocrataRow>, bridgeID: String)
        -> (ObservedField<Double>, ObservedField<Double>)
    {
        if record.pointee.latitude == nil, record.pointee.longitude == nil { return (.absent, .absent) }
        let index = coordinates.firstIndex { $0.bridgeID == bridgeID }
        if let index, coordinates[index].latitude == record.pointee.latitude,
           coordinates[index].longitude == record.pointee.longitude
        {
            return coordinates[index].read
        }
        let read = (Self.number(record.pointee.latitude), Self.number(record.pointee.longitude))
        if let index {
            coordinates[index] = (bridgeID, record.pointee.latitude, record.pointee.longitude, read)
        } else {
            coordinates.append((bridgeID, record.pointee.latitude, record.pointee.longitude, read))
        }
        return read
    }

    private static func reading(_ text: String?) -> ObservedField<TimeReading> {
        guard let text else { return .absent }
        guard let reading = FloatingTimestamp(text) else { return .unreadable(text) }
        return .value(.local(reading))
    }

    private static func number(_ text: String?) -> ObservedField<Double> {
        guard let text else { return .absent }
        guard let value = number(text) else { return .unreadable(text) }
        return .value(value)
    }
}

extension SocrataObservationReader {
    /// Whether a field Bridget reads holds a control character inside its text (`entitytype` is neither read nor
    /// stored). The whitespace trimmed from around a value (tabs and line breaks included) stays accepted.
    static func holdsControlCharacter(_ row: SocrataRow) -> Bool {
        inside(row.entityid, .whitespace) || inside(row.entityname, .whitespaceAndNewlines)
            || inside(row.opendatetime, .nothing) || inside(row.closedatetime, .nothing)
            || inside(row.minutesopen, .whitespace) || inside(row.latitude, .nothing) || inside(row.longitude, .nothing)
    }

    /// What reading trims from around a field.
    enum Trimmed { case nothing, whitespace, whitespaceAndNewlines }

    /// Whether `text` holds a control character once trimmed as reading trims it.
    static func inside(_ text: String?, _ trimming: Trimmed) -> Bool {
        guard let text, hasControlCharacter(text) else { return false }
        switch trimming {
        case .nothing: return true
        case .whitespace: return hasControlCharacter(trimmed(text, newlines: false))
        case .whitespaceAndNewlines: return hasControlCharacter(trimmed(text, newlines: true))
        }
    }

    /// Whether `text` holds a Unicode control character (category Cc): U+0000-U+001F, U+007F, or U+0080-U+009F
    /// (UTF-8 C2 80 to C2 9F).
    static func hasControlCharacter(_ text: String) -> Bool {
        func scan<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> Bool {
            var afterC2 = false
            for byte in bytes {
                if byte < 0x20 || byte == 0x7F || (afterC2 && byte < 0xA0) { return true }
                afterC2 = byte == 0xC2
            }
            return false
        }
        return text.utf8.withContiguousStorageIfAvailable(scan) ?? scan(text.utf8)
    }

    /// `text` without leading and trailing spaces (and line breaks, with `newlines`). Nearly every value has nothing
    /// to trim, which shows in its first and last bytes: that case skips Foundation, whose trimming bridges through
    /// NSString.
    static func trimmed(_ text: String, newlines: Bool) -> String {
        guard let first = text.utf8.first, let last = text.utf8.last else { return text }
        func plain(_ byte: UInt8) -> Bool { byte > 0x20 && byte < 0x7F }
        if plain(first), plain(last) { return text }
        return text.trimmingCharacters(in: newlines ? .whitespacesAndNewlines : .whitespaces)
    }

    /// `Double(text)`, with the dataset's plain decimals ("7", "47.65981674194336", "-122.3") read without `strtod`:
    /// three numbers a row made `strtod` a visible share of an import. A plain decimal whose digits fit 2^53 and
    /// whose fraction has at most 22 digits is `digits / 10^fraction`, one correctly rounded division of two exact
    /// doubles, so it equals what `Double(text)` gives. Anything else goes to `Double(text)`.
    static func number(_ text: String) -> Double? {
        var text = text
        if let value = text.withUTF8(plainDecimal) { return value }
        // `Double(_:)` hands the text to `strtod` as a C string, which ends at a NUL: "4\0junk" would read as 4.
        guard !text.utf8.contains(0) else { return nil }
        return Double(text)
    }

    private static let powersOfTen: [Double] = (0...22).map { pow(10, Double($0)) }

    private static func plainDecimal(_ bytes: UnsafeBufferPointer<UInt8>) -> Double? {
        var index = 0
        let negative = bytes.first == UInt8(ascii: "-")
        if negative { index = 1 }
        var mantissa: UInt64 = 0
        var digits = 0
        var fraction = -1 // digits after the point; -1 before any point
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "."), fraction < 0, digits > 0 {
                fraction = 0
            } else if byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
                guard digits < 19 else { return nil }
                mantissa = mantissa * 10 + UInt64(byte - UInt8(ascii: "0"))
                digits += 1
                if fraction >= 0 { fraction += 1 }
            } else {
                return nil
            }
            index += 1
        }
        guard digits > 0, fraction != 0, mantissa <= 1 << 53, fraction <= 22 else { return nil }
        let value = Double(mantissa) / powersOfTen[max(fraction, 0)]
        return negative ? -value : value
    }
}

extension ObservedField {
    /// Whether the field was present but could not be read.
    var isUnreadable: Bool {
        if case .unreadable = self { return true }
        return false
    }
}

extension SocrataRow {
    /// The row's fields in column order, absent fields absent.
    public var fields: [SourceRecord.Field] {
        SocrataField.allCases.compactMap { field in self[field].map { SourceRecord.Field(name: field.rawValue, value: $0) } }
    }
}

/// A page's or a batch's rows, kept once for their observations' records.
final class SocrataRecordTable: SourceRecordTable {
    let rows: [SocrataRow]

    init(_ rows: [SocrataRow]) { self.rows = rows }

    func fields(at index: Int) -> [SourceRecord.Field] { rows[index].fields }
}
