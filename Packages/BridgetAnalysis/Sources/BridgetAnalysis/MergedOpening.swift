import BridgetDTOs
import Foundation

/// One physical opening: one stored row, or several fragments of one bridge less than the merge gap apart.
public struct MergedOpening: Sendable, Equatable {
    public let bridgeID: String
    /// When the first fragment opened.
    public let start: Date
    /// When the last fragment closed; `nil` when that is unknown.
    public let end: Date?
    /// The first fragment's wall-clock reading (the source's clock).
    public let startLocal: FloatingTimestamp
    /// Rows merged into this opening.
    public let fragments: Int

    /// Minutes from start to end, when the end is known.
    public var durationMinutes: Double? { end.map { $0.timeIntervalSince(start) / 60 } }

    /// Merges each bridge's rows whose opening follows the previous closing by less than `gap` seconds.
    ///
    /// Rows without a closing end an opening (nothing can be said to follow them); rows whose reading does not
    /// parse are skipped (validation never stores them). Output is ordered by bridge, then start.
    public static func merge(_ events: [BridgeEventDTO], gap: TimeInterval) -> [MergedOpening] {
        merge(records: events.compactMap(OpeningRecordDTO.init), gap: gap)
    }

    /// The same from lean records (any order).
    public static func merge(records: [OpeningRecordDTO], gap: TimeInterval) -> [MergedOpening] {
        let ordered = OpeningRecordDTO.inHistoryOrder(records)
        var result: [MergedOpening] = []
        result.reserveCapacity(ordered.count)
        var merger = OpeningMerger(gap: gap)
        var bridgeID: String?
        for record in ordered {
            if record.bridgeID != bridgeID {
                if let done = merger.finish() { result.append(done) }
                bridgeID = record.bridgeID
            }
            if let done = merger.add(record) { result.append(done) }
        }
        if let done = merger.finish() { result.append(done) }
        return result
    }
}
