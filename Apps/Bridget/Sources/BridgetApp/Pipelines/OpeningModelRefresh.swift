import BridgetAnalysis
import BridgetDTOs
import BridgetPersistence

/// Rebuilds the opening models and stores them, stamped with the history version they were built from (a read-only
/// store keeps its old ones, and the rebuilt models serve the run that asked).
///
/// The version is read before the build: a write that lands during the build leaves the models marked older than
/// the history, so they are rebuilt next time instead of passing for fresh.
package enum OpeningModelRefresh {
    @discardableResult
    package static func rebuild(store: any BridgeStore, processor: any BackgroundProcessing) async throws -> [OpeningModelDTO] {
        let version = try await store.historyVersion()
        let models = try await processor.buildOpeningModels().map { $0.stamped(version: version) }
        if !store.isReadOnly { try await store.saveOpeningModels(models) }
        return models
    }
}
