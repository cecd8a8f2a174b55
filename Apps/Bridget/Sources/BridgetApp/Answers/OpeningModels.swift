import BridgetAnalysis
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
    /// this run only when the store is read-only), one rebuild at a time in this process.
    package func current(bridgeIDs: [String]) async throws -> [OpeningModelDTO] {
        try await context.assembly.modelRefresh.current(
            bridgeIDs: Set(bridgeIDs), store: store, processor: context.assembly.makeProcessor(store: store),
            note: context.note)
    }
}
