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
        var byBridge: [String: [BridgeEventDTO]] = [:]
        for event in events { byBridge[event.bridgeID, default: []].append(event) }
        var result: [MergedOpening] = []
        result.reserveCapacity(events.count)
        for bridgeID in byBridge.keys.sorted() {
            let rows = byBridge[bridgeID, default: []].sorted { $0.openedAt < $1.openedAt }
            var current: (start: Date, end: Date?, local: FloatingTimestamp, count: Int)?
            for row in rows {
                guard let local = FloatingTimestamp(row.openLocal) else { continue }
                if var open = current, let end = open.end, row.openedAt.timeIntervalSince(end) < gap {
                    open.end = row.closedAt.map { max($0, end) }
                    open.count += 1
                    current = open
                } else {
                    if let open = current {
                        result.append(MergedOpening(bridgeID: bridgeID, start: open.start, end: open.end,
                                                    startLocal: open.local, fragments: open.count))
                    }
                    current = (row.openedAt, row.closedAt, local, 1)
                }
            }
            if let open = current {
                result.append(MergedOpening(bridgeID: bridgeID, start: open.start, end: open.end, startLocal: open.local,
                                            fragments: open.count))
            }
        }
        return result
    }
}
