import BridgetDTOs
import Foundation

/// One physical opening: one stored row, or several fragments of one bridge less than the merge gap apart.
public struct MergedOpening: Sendable, Equatable {
    public let bridgeID: String
    /// When the first fragment opened.
    public let start: Date
    /// When the last fragment closed; `nil` when that is unknown.
    public let end: Date?
    /// The first fragment's Seattle wall-clock reading.
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
        let ordered = zip(records, records.dropFirst()).allSatisfy { ($0.bridgeID, $0.openedAt) <= ($1.bridgeID, $1.openedAt) }
            ? records : records.sorted { ($0.bridgeID, $0.openedAt) < ($1.bridgeID, $1.openedAt) }
        var result: [MergedOpening] = []
        result.reserveCapacity(ordered.count)
        var current: (bridge: String, start: Int64, end: Int64?, wall: Int64, count: Int)?
        func flush() {
            guard let open = current else { return }
            result.append(MergedOpening(
                bridgeID: open.bridge, start: Date(timeIntervalSince1970: Double(open.start)),
                end: open.end.map { Date(timeIntervalSince1970: Double($0)) },
                startLocal: FloatingTimestamp(wallClockSeconds: open.wall), fragments: open.count))
        }
        for record in ordered {
            if var open = current, open.bridge == record.bridgeID, let end = open.end,
               Double(record.openedAt - end) < gap {
                open.end = record.closedAt.map { max($0, end) }
                open.count += 1
                current = open
            } else {
                flush()
                current = (record.bridgeID, record.openedAt, record.closedAt, record.openWall, 1)
            }
        }
        flush()
        return result
    }
}
