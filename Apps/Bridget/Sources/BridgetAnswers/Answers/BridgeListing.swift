import BridgetAnalysis
import BridgetDTOs
import BridgetPersistence
import Foundation

/// A catalog bridge with what is stored of it: `bridget bridges --format json` and `GET /v1/bridges`.
///
/// `openings` counts as `bridget stats` does (rows of a bridge less than `analysis.merge_gap_minutes` apart are one
/// opening), so "openings" means the same number in every answer; `rows` is what the store holds, one a record of
/// the source.
package struct BridgeListing: Encodable, Sendable, Equatable {
    package let bridge: BridgeInfoDTO
    /// Openings, merged as `stats` merges them.
    package let openings: Int
    /// Stored rows, fragments not merged.
    package let rows: Int
    /// The latest stored opening, if any.
    package let lastOpening: Date?

    package init(bridge: BridgeInfoDTO, openings: Int, rows: Int, lastOpening: Date?) {
        self.bridge = bridge
        self.openings = openings
        self.rows = rows
        self.lastOpening = lastOpening
    }

    /// A bridge with nothing stored.
    package init(unsynced bridge: BridgeInfoDTO) {
        self.init(bridge: bridge, openings: 0, rows: 0, lastOpening: nil)
    }

    /// The store's rows per bridge joined with the statistics' openings per bridge (`nil` when nothing is stored).
    package static func list(_ activity: [BridgeActivity], statistics: StatisticsDTO?) -> [BridgeListing] {
        let openings = Dictionary((statistics?.bridges ?? []).map { ($0.bridgeID, $0.openings) },
                                  uniquingKeysWith: { first, _ in first })
        return activity.map { item in
            BridgeListing(bridge: item.bridge, openings: openings[item.bridge.id] ?? 0, rows: item.openings,
                          lastOpening: item.lastOpening)
        }
    }
}

extension HistoryAnswers {
    /// `bridget bridges --format json`'s answer: per stored bridge, its openings as `statistics` counts them, its
    /// stored rows and its last opening (empty before any sync).
    package func bridges() async throws -> [BridgeListing] {
        let activity = try await store.bridgeActivity()
        let stored = activity.contains { $0.openings > 0 }
        return BridgeListing.list(activity, statistics: stored ? try await statistics(in: .everything) : nil)
    }
}
