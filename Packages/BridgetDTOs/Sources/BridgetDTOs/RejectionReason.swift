import Foundation

/// Why a row was not accepted. Each reason is counted separately in every sync and import summary.
public enum RejectionReason: String, Sendable, Codable, CodingKeyRepresentable, CaseIterable, Comparable {
    case controlCharacter = "control-character"
    case unknownBridgeID = "unknown-bridge-id"
    case emptyName = "empty-name"
    case unparseableOpenTime = "unparseable-open-time"
    case unparseableCloseTime = "unparseable-close-time"
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
        case .unknownBridgeID: "entityid is missing or not a bridge in the catalog"
        case .emptyName: "entityname is missing or blank"
        case .unparseableOpenTime: "opendatetime is missing or not YYYY-MM-DDTHH:MM:SS.fff"
        case .unparseableCloseTime: "closedatetime is present but not YYYY-MM-DDTHH:MM:SS.fff"
        case .closeBeforeOpen: "closedatetime is before opendatetime"
        case .openTimeOutOfRange: "opendatetime is before the accepted range or in the future"
        case .unparseableMinutesOpen: "minutesopen is present but not a number"
        case .negativeMinutesOpen: "minutesopen is negative"
        case .inconsistentMinutesOpen: "minutesopen differs from close − open by more than 1 minute"
        case .coordinatesOutOfRange: "latitude/longitude is not a number in range"
        case .coordinatesFarFromBridge: "latitude/longitude is far from the bridge's position"
        case .duplicateInBatch: "the same (entityid, opening instant) appears earlier in the batch"
        }
    }

    public static func < (lhs: RejectionReason, rhs: RejectionReason) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

/// One rejected row, with the reason and the raw row for the report.
public struct RejectedRow: Sendable, Codable, Equatable {
    /// The first rule the row broke.
    public let reason: RejectionReason
    /// The row as received.
    public let row: SocrataRow
    /// The row's 0-based position in the batch it was judged in, when judged in a batch.
    public var index: Int?

    /// Creates a rejection record.
    public init(reason: RejectionReason, row: SocrataRow, index: Int? = nil) {
        self.reason = reason
        self.row = row
        self.index = index
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
