import BridgetPersistence
import Foundation

/// The pipelines over the configured parts: the assembly makes the provider, processor and rebuilds they run with.
extension BridgetAssembly {
    /// A sync pipeline over the configured parts.
    package func makeSyncPipeline(store: any BridgeStore, rejects: RejectedRowLog? = nil) throws -> SyncPipeline {
        var pipeline = SyncPipeline(
            provider: try makeProvider(), processor: makeProcessor(store: store), store: store,
            rebuilds: modelRebuilds.rebuilds(for: store), batchSize: configuration.batchSize, overlap: configuration.overlap, now: now, rejects: rejects)
        pipeline.claimSource = { [self] in try await claimSource(of: store) }
        return pipeline
    }

    /// An import pipeline over the configured parts.
    package func makeImportPipeline(store: any BridgeStore, rejects: RejectedRowLog? = nil) -> ImportPipeline {
        var pipeline = ImportPipeline(processor: makeProcessor(store: store), store: store,
                                      batchSize: configuration.importBatchSize, now: now, rejects: rejects, note: notes)
        pipeline.claimSource = { [self] in try await claimSource(of: store) }
        return pipeline
    }
}
