import BridgetDTOs
import Foundation

/// One row exactly as the Socrata API sends it: every value a string, null fields omitted.
///
/// Decoding is lenient about shape (a number where a string is expected is kept as its text; unknown fields are
/// ignored) so that judging a row is left to `EventValidator`, which counts every reason it rejects one.
public struct SocrataRow: Sendable, Codable, Equatable, Hashable {
    public var entitytype: String?
    public var entityname: String?
    public var entityid: String?
    public var opendatetime: String?
    public var closedatetime: String?
    public var minutesopen: String?
    public var latitude: String?
    public var longitude: String?

    /// Creates a row from its string fields.
    public init(
        entitytype: String? = "Bridge", entityname: String?, entityid: String?, opendatetime: String?,
        closedatetime: String?, minutesopen: String?, latitude: String?, longitude: String?
    ) {
        self.entitytype = entitytype
        self.entityname = entityname
        self.entityid = entityid
        self.opendatetime = opendatetime
        self.closedatetime = closedatetime
        self.minutesopen = minutesopen
        self.latitude = latitude
        self.longitude = longitude
    }

    /// The column names, in the order the API lists them (also the CSV header).
    public static let columns = SocrataField.allCases.map(\.rawValue)

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: SocrataField.self)
        func text(_ key: SocrataField) throws -> String? {
            guard container.contains(key), try !container.decodeNil(forKey: key) else { return nil }
            if let string = try? container.decode(String.self, forKey: key) { return string }
            if let integer = try? container.decode(Int64.self, forKey: key) { return String(integer) }
            if let double = try? container.decode(Double.self, forKey: key) { return String(double) }
            if let bool = try? container.decode(Bool.self, forKey: key) { return String(bool) }
            throw DecodingError.typeMismatch(
                String.self,
                .init(codingPath: container.codingPath + [key], debugDescription: "expected a string or number"))
        }
        entitytype = try text(.entitytype)
        entityname = try text(.entityname)
        entityid = try text(.entityid)
        opendatetime = try text(.opendatetime)
        closedatetime = try text(.closedatetime)
        minutesopen = try text(.minutesopen)
        latitude = try text(.latitude)
        longitude = try text(.longitude)
    }

    /// The row's value of a field.
    public subscript(field: SocrataField) -> String? {
        get {
            switch field {
            case .entitytype: entitytype
            case .entityname: entityname
            case .entityid: entityid
            case .opendatetime: opendatetime
            case .closedatetime: closedatetime
            case .minutesopen: minutesopen
            case .latitude: latitude
            case .longitude: longitude
            }
        }
        set {
            switch field {
            case .entitytype: entitytype = newValue
            case .entityname: entityname = newValue
            case .entityid: entityid = newValue
            case .opendatetime: opendatetime = newValue
            case .closedatetime: closedatetime = newValue
            case .minutesopen: minutesopen = newValue
            case .latitude: latitude = newValue
            case .longitude: longitude = newValue
            }
        }
    }
}

/// The eight fields of a row of the dataset, in the API's column order: the one place their names are spelled.
public enum SocrataField: String, Sendable, CaseIterable, CodingKey {
    case entitytype, entityname, entityid, opendatetime, closedatetime, minutesopen, latitude, longitude

    /// Whether the field's values repeat from row to row (a bridge's name and place), unlike its times.
    var repeats: Bool {
        switch self {
        case .entitytype, .entityname, .entityid, .latitude, .longitude: true
        case .opendatetime, .closedatetime, .minutesopen: false
        }
    }

    /// The field named by UTF-8 bytes, matched without building a string: the candidates by first byte and
    /// length, then one comparison (every key of every row comes through here).
    init?(_ name: UnsafeBufferPointer<UInt8>) {
        guard name.count >= 8, let start = name.baseAddress else { return nil }
        let candidates: [SocrataField] = switch (name[0], name.count) {
        case (UInt8(ascii: "e"), 8): [.entityid]
        case (UInt8(ascii: "e"), 10): [.entityname, .entitytype]
        case (UInt8(ascii: "o"), 12): [.opendatetime]
        case (UInt8(ascii: "c"), 13): [.closedatetime]
        case (UInt8(ascii: "m"), 11): [.minutesopen]
        case (UInt8(ascii: "l"), 8): [.latitude]
        case (UInt8(ascii: "l"), 9): [.longitude]
        default: []
        }
        for field in candidates {
            var text = field.rawValue
            if text.withUTF8({ memcmp($0.baseAddress!, start, name.count) == 0 }) {
                self = field
                return
            }
        }
        return nil
    }

    /// Its position among `allCases`.
    var index: Int {
        switch self {
        case .entitytype: 0
        case .entityname: 1
        case .entityid: 2
        case .opendatetime: 3
        case .closedatetime: 4
        case .minutesopen: 5
        case .latitude: 6
        case .longitude: 7
        }
    }
}
