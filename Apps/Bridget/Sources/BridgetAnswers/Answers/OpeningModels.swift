import BridgetAnalysis
import BridgetContext
import BridgetDTOs
import BridgetPersistence

/// The opening models of a store, kept in step with its history: what `predict`, route scores, best times and the
/// pages read instead of the history.
package struct OpeningModels: Sendable {
    package let context: AppContext
    package let store: any BridgeStore

    package init(context: AppContext, store: any BridgeStore) {
        self.context = context
        self.store = store
    }

    /// The stored models of some bridges, all rebuilt first when the history changed since they were built (for
    /// this run only when the store is read-only).
    package func current(bridgeIDs: [String]) async throws -> [OpeningModelDTO] {
        let wanted = Set(bridgeIDs)
        let version = try await store.historyVersion()
        let stored = try await store.openingModels(bridgeIDs: Array(wanted))
        if stored.count == wanted.count, stored.allSatisfy({ $0.isBuilt(from: version) }) { return stored }
        if store.isReadOnly {
            context.note("the stored opening model is out of date or missing and the store is read-only: "
                + "building it for this run only")
        }
        let rebuilt = try await context.assembly.modelRebuilds.rebuilds(for: store)
            .models(from: version, store: store, processor: context.assembly.makeProcessor(store: store))
        return rebuilt.filter { wanted.contains($0.bridgeID) }
    }
}
