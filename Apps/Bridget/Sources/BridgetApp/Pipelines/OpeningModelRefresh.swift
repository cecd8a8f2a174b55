import BridgetAnalysis
import BridgetDTOs
import BridgetPersistence

/// Rebuilds the opening models and stores them, stamped with the history version they were built from (a read-only
/// store keeps its old ones, and the rebuilt models serve the run that asked).
///
/// One rebuild at a time in a process: a server's requests that find the models out of date while a sync stores rows
/// (each batch a new history version) and the sync's own rebuild after it would otherwise each run one, at once. An
/// asker that waited looks again first, and takes the models another asker's rebuild stored when they are current.
///
/// The version is read before the build: a write that lands during the build leaves the models marked older than
/// the history, so they are rebuilt next time instead of passing for fresh.
package final class OpeningModelRefresh: Sendable {
    /// The last rebuild asked for: the next one starts when it ends.
    private let last = Locked<Task<Void, Never>?>(nil)

    package init() {}

    /// Rebuilds every model, after any rebuild under way in this process.
    @discardableResult
    package func rebuild(store: any BridgeStore, processor: any BackgroundProcessing) async throws -> [OpeningModelDTO] {
        try await serially { try await Self.build(store: store, processor: processor) }
    }

    /// The stored models of `bridgeIDs` when they are current (built from the history as it is, in the current
    /// form); else every model rebuilt, after any rebuild under way in this process, unless that one made them
    /// current.
    package func current(bridgeIDs: Set<String>, store: any BridgeStore, processor: any BackgroundProcessing,
                         note: @escaping @Sendable (String) -> Void) async throws -> [OpeningModelDTO] {
        if let stored = try await Self.stored(bridgeIDs, in: store) { return stored }
        return try await serially {
            if let stored = try await Self.stored(bridgeIDs, in: store) { return stored }
            if store.isReadOnly {
                note("the stored opening model is out of date or missing and the store is read-only: "
                    + "building it for this run only")
            }
            return try await Self.build(store: store, processor: processor).filter { bridgeIDs.contains($0.bridgeID) }
        }
    }

    /// The stored models of `bridgeIDs`, or nil when one is missing, out of date with the history, or of an older
    /// form (learnt before the river model).
    private static func stored(_ bridgeIDs: Set<String>, in store: any BridgeStore) async throws -> [OpeningModelDTO]? {
        let version = try await store.historyVersion()
        let stored = try await store.openingModels(bridgeIDs: Array(bridgeIDs))
        let current = stored.count == bridgeIDs.count && stored.allSatisfy {
            $0.sourceVersion == version && $0.dynamics.format == OpeningDynamicsDTO.currentFormat
        }
        return current ? stored : nil
    }

    private static func build(store: any BridgeStore, processor: any BackgroundProcessing) async throws -> [OpeningModelDTO] {
        let version = try await store.historyVersion()
        let models = try await processor.buildOpeningModels().map { $0.stamped(version: version) }
        if !store.isReadOnly { try await store.saveOpeningModels(models) }
        return models
    }

    /// Runs `body` once the work asked for before it has ended. The work runs to its end whatever becomes of the
    /// asker (a request past its deadline): its models are stored for the next one.
    private func serially<Result: Sendable>(
        _ body: @escaping @Sendable () async throws -> Result
    ) async throws -> Result {
        let task = last.withLock { last -> Task<Result, any Error> in
            let previous = last
            let task = Task {
                await previous?.value
                return try await body()
            }
            last = Task { _ = try? await task.value }
            return task
        }
        return try await task.value
    }
}
