/// A `situationRecord` the parser could not turn into a `DatexBridgeOpening`: where it is, who it is, and the
/// first rule it broke. The rest of the feed is still read.
public struct DatexRejectedRecord: Sendable, Hashable, CustomStringConvertible {
    /// The rule a record broke.
    public enum Reason: Sendable, Hashable, CustomStringConvertible {
        /// The `situationRecord` has no `id` attribute (or an empty one).
        case missingRecordID
        /// The record is not inside a `situation` with an `id`.
        case missingSituationID
        /// `generalNetworkManagementType` is absent or not `bridgeSwingInOperation` (what it was, when present).
        case notBridgeOperation(found: String?)
        /// No bridge id could be found in the situation id (see `DatexBridgeOpening.bridgeID(inSituationID:)`).
        case noBridgeID
        /// `validity/validityTimeSpecification/overallStartTime` is absent.
        case missingStartTime
        /// A time element does not read as a DATEX II time with a zone (the element's name, its text).
        case invalidTime(element: String, text: String)
        /// `overallEndTime` is before `overallStartTime`.
        case endBeforeStart
        /// A latitude/longitude is missing from its pair, not a number or out of range (the location element, the texts).
        case invalidCoordinate(element: String, latitude: String?, longitude: String?)

        public var description: String {
            switch self {
            case .missingRecordID: "the situationRecord has no id"
            case .missingSituationID: "the record is not inside a situation with an id"
            case let .notBridgeOperation(found?): "generalNetworkManagementType is '\(found)', not bridgeSwingInOperation"
            case .notBridgeOperation(nil): "the record has no generalNetworkManagementType (bridgeSwingInOperation expected)"
            case .noBridgeID: "the situation id holds no ISRS location code nor <source>_<bridge>_<sequence> parts"
            case .missingStartTime: "the record has no validity/validityTimeSpecification/overallStartTime"
            case let .invalidTime(element, text):
                "\(element) '\(text)' is not a time YYYY-MM-DDThh:mm:ss[.fff] with Z or an offset ±hh:mm"
            case .endBeforeStart: "overallEndTime is before overallStartTime"
            case let .invalidCoordinate(element, latitude, longitude):
                "\(element) latitude '\(latitude ?? "(absent)")', longitude '\(longitude ?? "(absent)")' is not a position"
            }
        }
    }

    /// The situation's id, when it has one.
    public let situationID: String?
    /// The record's id, when it has one.
    public let recordID: String?
    /// The line where the record's start tag ends (1-based), as the XML parser reports it. NDW's feed is one line.
    public let line: Int
    /// The column where the record's start tag ends (1-based).
    public let column: Int
    /// The first rule the record broke.
    public let reason: Reason

    /// Creates a rejection.
    public init(situationID: String?, recordID: String?, line: Int, column: Int, reason: Reason) {
        self.situationID = situationID
        self.recordID = recordID
        self.line = line
        self.column = column
        self.reason = reason
    }

    public var description: String {
        let who = recordID.map { "record \($0)" } ?? situationID.map { "a record of situation \($0)" } ?? "a record"
        return "\(who) at line \(line), column \(column): \(reason)"
    }
}
