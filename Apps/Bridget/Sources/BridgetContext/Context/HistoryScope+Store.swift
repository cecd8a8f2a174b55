import BridgetAnalysis
import BridgetDTOs
import BridgetPersistence

/// The store queries of a scope (the scope itself is Analysis's: the same filters for events and answers).
extension HistoryScope {
    /// Store queries for the scope: one per bridge (or one for all).
    package func queries(limit: Int? = nil, newestFirst: Bool = false, after: EventKey? = nil) -> [EventQuery] {
        let ids: [String?] = bridgeIDs.isEmpty ? [nil] : bridgeIDs
        return ids.map { EventQuery(bridgeID: $0, openedFrom: from, openedBefore: before, limit: limit,
                                    newestFirst: newestFirst, after: after) }
    }

    /// The events in scope, merged across bridges in time order (bridge id breaking ties, both reversed newest
    /// first), at most `limit`, after `after` in that order (the last event of a page before).
    package func events(in store: any EventStore, limit: Int?, newestFirst: Bool, after: EventKey? = nil)
        async throws -> [BridgeEventDTO]
    {
        var merged: [BridgeEventDTO] = []
        for query in queries(limit: limit, newestFirst: newestFirst, after: after) {
            merged += try await store.events(matching: query)
        }
        guard bridgeIDs.count > 1 else { return merged }
        merged.sort { newestFirst ? ($0.openedAt, $0.bridgeID) > ($1.openedAt, $1.bridgeID)
                                  : ($0.openedAt, $0.bridgeID) < ($1.openedAt, $1.bridgeID) }
        if let limit { merged = Array(merged.prefix(limit)) }
        return merged
    }
}
