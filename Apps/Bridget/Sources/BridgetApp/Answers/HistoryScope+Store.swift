import BridgetAnalysis
import BridgetDTOs
import BridgetPersistence

/// The store queries of a scope (the scope itself is Analysis's: the same filters for events and answers).
extension HistoryScope {
    /// Store queries for the scope: one per bridge (or one for all).
    package func queries(limit: Int? = nil, newestFirst: Bool = false) -> [EventQuery] {
        let ids: [String?] = bridgeIDs.isEmpty ? [nil] : bridgeIDs
        return ids.map { EventQuery(bridgeID: $0, openedFrom: from, openedBefore: before, limit: limit,
                                    newestFirst: newestFirst) }
    }

    /// The events in scope, merged across bridges in time order, at most `limit`.
    package func events(in store: any EventStore, limit: Int?, newestFirst: Bool) async throws -> [BridgeEventDTO] {
        var merged: [BridgeEventDTO] = []
        for query in queries(limit: limit, newestFirst: newestFirst) {
            merged += try await store.events(matching: query)
        }
        guard bridgeIDs.count > 1 else { return merged }
        merged.sort { newestFirst ? ($0.openedAt, $0.bridgeID) > ($1.openedAt, $1.bridgeID)
                                  : ($0.openedAt, $0.bridgeID) < ($1.openedAt, $1.bridgeID) }
        if let limit { merged = Array(merged.prefix(limit)) }
        return merged
    }
}
