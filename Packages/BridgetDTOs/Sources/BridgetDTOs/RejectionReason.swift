import Foundation

/// Why a record was not accepted. Each reason is counted separately in every sync and import summary.
public enum RejectionReason: String, Sendable, Codable, CodingKeyRepresentable, CaseIterable, Comparable {
    case controlCharacter = "control-character"
    case unknownBridgeID = "unknown-bridge-id"
    case emptyName = "empty-name"
    case unparseableOpenTime = "unparseable-open-time"
    case unparseableCloseTime = "unparseable-close-time"
    case nonexistentLocalTime = "nonexistent-local-time"
    case closeBeforeOpen = "close-before-open"
    case openTimeOutOfRange = "open-time-out-of-range"
    case unparseableMinutesOpen = "unparseable-minutes-open"
    case negativeMinutesOpen = "negative-minutes-open"
    case inconsistentMinutesOpen = "inconsistent-minutes-open"
    case coordinatesOutOfRange = "coordinates-out-of-range"
    case coordinatesFarFromBridge = "coordinates-far-from-bridge"
    case duplicateInBatch = "duplicate-in-batch"

    /// A sentence for people.
    public var explanation: String {
        switch self {
        case .controlCharacter: "a field holds a control character (NUL, a line break, an escape…) inside its text"
        case .unknownBridgeID: "the bridge id is missing or not a bridge in the catalog"
        case .emptyName: "the bridge name is missing or blank"
        case .unparseableOpenTime: "the opening time is missing or not a time (Socrata: YYYY-MM-DDTHH:MM:SS.fff)"
        case .unparseableCloseTime: "the closing time is present but not a time"
        case .closeBeforeOpen: "the closing time is before the opening time"
        case .nonexistentLocalTime:
            "a local time that the clock skips when it goes forward (e.g. 02:30 on the second Sunday of March in Seattle)"
        case .openTimeOutOfRange: "the opening time is before the accepted range or in the future"
        case .unparseableMinutesOpen: "the minutes open are present but not a number"
        case .negativeMinutesOpen: "the minutes open are negative"
        case .inconsistentMinutesOpen: "the minutes open differ from close − open by more than 1 minute"
        case .coordinatesOutOfRange: "the latitude/longitude is not a number in range"
        case .coordinatesFarFromBridge: "the latitude/longitude is far from the bridge's position"
        case .duplicateInBatch: "a later row of the batch is the same opening (bridge, opening instant) and replaces it"
        }
    }

    public static func < (lhs: RejectionReason, rhs: RejectionReason) -> Bool {
        // `allCases` holds every case, so both are found.
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

/// One rejected record: the rule it broke, where it was in its batch, and the record as received.
public struct RejectedObservation: Sendable, Equatable {
    /// The first rule the record broke.
    public let reason: RejectionReason
    /// The record's 0-based position in the batch it was judged in.
    public var index: Int
    /// The record as received.
    public let source: SourceRecord

    /// Creates a rejection record.
    public init(reason: RejectionReason, index: Int, source: SourceRecord) {
        self.reason = reason
        self.index = index
        self.source = source
    }
}

/// Counts of rejected rows by reason.
public struct RejectionCounts: Sendable, Codable, Equatable {
    /// Count per reason; reasons with no rejection are absent.
    public private(set) var byReason: [RejectionReason: Int]

    /// Creates counts.
    public init(_ byReason: [RejectionReason: Int] = [:]) {
        self.byReason = byReason.filter { $0.value > 0 }
    }

    /// Total rejected rows.
    public var total: Int { byReason.values.reduce(0, +) }

    /// Count for a reason.
    public subscript(reason: RejectionReason) -> Int { byReason[reason] ?? 0 }

    /// Adds one rejection.
    public mutating func record(_ reason: RejectionReason, count: Int = 1) {
        byReason[reason, default: 0] += count
    }

    /// Adds another set of counts.
    public mutating func merge(_ other: RejectionCounts) {
        for (reason, count) in other.byReason { record(reason, count: count) }
    }

    /// "3 rejected: 2 close-before-open, 1 unknown-bridge-id" style summary; "0 rejected" when empty.
    public var summary: String {
        guard total > 0 else { return "0 rejected" }
        let parts = byReason.sorted { ($1.value, $0.key) < ($0.value, $1.key) }.map { "\($0.value) \($0.key.rawValue)" }
        return "\(total) rejected: " + parts.joined(separator: ", ")
    }
}

/// A reason is the failure of judging one record (`Result<BridgeEventDTO, RejectionReason>`).
extension RejectionReason: Error {}
