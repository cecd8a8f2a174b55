import BridgetAnalysis
import BridgetDTOs
import BridgetPersistence
import Foundation

/// Where the stored openings come from: published records, openings seen live (still awaiting their published row,
/// or seen only live past the grace period), announcements; and how long the published record took to confirm an
/// opening seen live. `bridget stats` and the quality page say it.
package struct ProvenanceAnswer: Codable, Sendable {
    /// Published rows (status `observed`).
    package let published: Int
    /// Openings seen live whose published row may still come (younger than the grace period).
    package let liveAwaiting: Int
    /// Openings seen live with no published row after the grace period: the published table missed them.
    package let liveOnly: Int
    /// Announced openings.
    package let announced: Int
    /// The grace period, in days.
    package let graceDays: Int
    /// Openings seen live that a published row replaced, among the change log's last `changesRead` changes, and the
    /// median time from the sight to the published row (`nil`: none).
    package let confirmations: Int
    package let medianLagHours: Double?
    package let changesRead: Int

    /// A live opening with no published row this long after it is "seen only live".
    package static let grace: TimeInterval = 3 * 86_400
    /// How much of the change log the lag is measured over: the newest changes (a backfill's can be millions).
    package static let changesLooked = 50_000

    /// Where the rows of `scope` (every bridge, the whole history by default) come from; the lag is the change
    /// log's, whatever the scope.
    package static func current(store: any BridgeStore, now: Date, scope: HistoryScope = .everything) async throws
        -> ProvenanceAnswer
    {
        // Each bridge of the scope (or every bridge), within its range of opening times.
        func rows(_ status: OpeningStatus?) async throws -> [BridgeEventDTO] {
            var found: [BridgeEventDTO] = []
            for bridge in scope.bridgeIDs.isEmpty ? [nil] : scope.bridgeIDs.map(Optional.some) {
                found += try await store.events(matching: EventQuery(
                    bridgeID: bridge, openedFrom: scope.from, openedBefore: scope.before, status: status))
            }
            return found
        }
        let live = try await rows(.live)
        let planned = try await rows(.planned).count
        let total = scope == .everything ? try await store.eventCount(bridgeID: nil)
            : try await rows(.observed).count + live.count + planned
        let liveOnly = live.count { now.timeIntervalSince($0.openedAt) > grace }
        let bounds = try await store.changeLogBounds()
        var lags: [Double] = []
        var read = 0
        var after = max((bounds.oldest ?? 1) - 1, bounds.newest - Int64(changesLooked))
        while read < changesLooked {
            let page = try await store.changes(after: after, bridgeIDs: nil, limit: 5_000)
            guard let last = page.last else { break }
            read += page.count
            after = last.sequence
            for change in page.lazy.compactMap(\.opening)
            where change.kind == .replaced && change.status == .observed && change.recordID == nil {
                lags.append(change.recordedAt.timeIntervalSince(change.openedAt) / 3600)
            }
        }
        lags.sort()
        let median: Double? = lags.isEmpty ? nil
            : lags.count % 2 == 1 ? lags[lags.count / 2] : (lags[lags.count / 2 - 1] + lags[lags.count / 2]) / 2
        return ProvenanceAnswer(
            published: total - live.count - planned, liveAwaiting: live.count - liveOnly, liveOnly: liveOnly,
            announced: planned, graceDays: Int(grace / 86_400), confirmations: lags.count, medianLagHours: median,
            changesRead: read)
    }

    /// One sentence for a note or a page.
    package var sentence: String {
        var text = "Rows on record: \(published) published by the source"
        if liveAwaiting + liveOnly > 0 {
            text += ", \(liveAwaiting + liveOnly) seen live (\(liveAwaiting) awaiting their published row, \(liveOnly) "
                + "seen only live after \(graceDays) day\(graceDays == 1 ? "" : "s"))"
        }
        if announced > 0 { text += ", \(announced) announced" }
        text += "."
        if let medianLagHours {
            text += " \(confirmations) opening\(confirmations == 1 ? "" : "s") seen live were confirmed by their published "
                + "row, a median " + String(format: "%.1f", medianLagHours) + " h later."
        }
        return text
    }
}
