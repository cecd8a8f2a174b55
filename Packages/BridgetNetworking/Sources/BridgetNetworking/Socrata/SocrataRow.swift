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

    /// The field named by UTF-8 bytes, matched without building a string: the candidates by first byte, then
    /// length and bytes (every key of every row comes through here).
    init?(_ name: UnsafeBufferPointer<UInt8>) {
        func equals(_ text: StaticString) -> Bool {
            // Asked only past the guard below: `name` has at least 8 bytes, so it has a base address.
            text.utf8CodeUnitCount == name.count && memcmp(text.utf8Start, name.baseAddress!, name.count) == 0
        }
        guard name.count >= 8 else { return nil }
        switch name[0] {
        case UInt8(ascii: "e"):
            if equals("entityid") { self = .entityid } else if equals("entityname") { self = .entityname }
            else if equals("entitytype") { self = .entitytype } else { return nil }
        case UInt8(ascii: "o"): if equals("opendatetime") { self = .opendatetime } else { return nil }
        case UInt8(ascii: "c"): if equals("closedatetime") { self = .closedatetime } else { return nil }
        case UInt8(ascii: "m"): if equals("minutesopen") { self = .minutesopen } else { return nil }
        case UInt8(ascii: "l"):
            if equals("latitude") { self = .latitude } else if equals("longitude") { self = .longitude } else { return nil }
        default: return nil
        }
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
