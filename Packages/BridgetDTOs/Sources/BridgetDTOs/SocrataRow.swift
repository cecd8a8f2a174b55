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
    public static let columns = [
        "entitytype", "entityname", "entityid", "opendatetime", "closedatetime", "minutesopen", "latitude", "longitude",
    ]

    private enum CodingKeys: String, CodingKey {
        case entitytype, entityname, entityid, opendatetime, closedatetime, minutesopen, latitude, longitude
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        func text(_ key: CodingKeys) throws -> String? {
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

    /// The row's value for a column name of `columns`.
    public func value(forColumn column: String) -> String? {
        switch column {
        case "entitytype": entitytype
        case "entityname": entityname
        case "entityid": entityid
        case "opendatetime": opendatetime
        case "closedatetime": closedatetime
        case "minutesopen": minutesopen
        case "latitude": latitude
        case "longitude": longitude
        default: nil
        }
    }
}
