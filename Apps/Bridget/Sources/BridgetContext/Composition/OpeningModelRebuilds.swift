import BridgetAnalysis
import BridgetCore
import BridgetDTOs
import BridgetPersistence

/// The rebuilds of one store's opening models in this process: each builds the models and stores them, stamped with
/// the history version it read before the build (a read-only store keeps its old ones, and the rebuilt models serve
/// whoever asked). A write that lands during a build leaves the models marked older than the history, so they are
/// rebuilt next time instead of passing for fresh.
///
/// However many ask at once (a server's requests that find the models out of date, a sync that stored rows), at most
/// one rebuild runs and one waits. An asker whose history version the running rebuild covers (it read that version or
/// a later one, or has not read yet) awaits it; any other awaits the waiting one, which reads the version when it
/// starts. So the rebuilds of a sync's many batches run one after another, never side by side, and an asker waits for
/// at most the running rebuild and the next.
package final class OpeningModelRebuilds: Sendable {
    private typealias Build = Task<[OpeningModelDTO], any Error>
    private struct State {
        var running: (id: Int, build: Build, version: Int64?)?
        var waiting: (id: Int, build: Build)?
        var started = 0
    }

    private let state = Locked(State())

    package init() {}

    /// How many rebuilds this process started over the store.
    package var started: Int { state.withLock { $0.started } }

    /// Models built from the store's history at `version` or later: a rebuild's that covers it, or a new one's.
    package func models(from version: Int64, store: any BridgeStore, processor: any BackgroundProcessing) async throws
        -> [OpeningModelDTO]
    {
        try await rebuild(from: version, store: store) { try await processor.buildOpeningModels() }.value
    }

    /// The rebuild that gives models built from the store's history at `version` or later: the running one when it
    /// covers `version`, else the waiting one, else a new one (running at once, or waiting for the running one), which
    /// builds with `build`.
    package func rebuild(from version: Int64, store: any BridgeStore,
                         build: @escaping @Sendable () async throws -> [OpeningModelDTO]) -> Task<[OpeningModelDTO], any Error>
    {
        state.withLock { state -> Build in
            if let running = state.running, running.version.map({ $0 >= version }) ?? true { return running.build }
            if let waiting = state.waiting { return waiting.build }
            state.started += 1
            let id = state.started
            let previous = state.running?.build
            let made = Build { try await self.run(id, after: previous, store: store, build: build) }
            if state.running == nil {
                state.running = (id, made, nil)
            } else {
                state.waiting = (id, made)
            }
            return made
        }
    }

    private func run(_ id: Int, after previous: Build?, store: any BridgeStore,
                     build: @Sendable () async throws -> [OpeningModelDTO]) async throws -> [OpeningModelDTO]
    {
        // Whatever became of the one before (its askers have its error), this one builds.
        if let previous { _ = try? await previous.value }
        defer { finished(id) }
        let version = try await store.historyVersion()
        state.withLock { state in
            if state.running?.id == id { state.running?.version = version }
        }
        let models = try await build().map { $0.stamped(version: version) }
        if !store.isReadOnly { try await store.saveOpeningModels(models) }
        return models
    }

    /// The waiting rebuild (if any) becomes the running one.
    private func finished(_ id: Int) {
        state.withLock { state in
            guard state.running?.id == id else { return }
            state.running = state.waiting.map { ($0.id, $0.build, nil) }
            state.waiting = nil
        }
    }

    /// Whether the store's models are behind its history: built from an older version or in an older form, or missing
    /// while it holds openings (a process killed between its rows and its rebuild leaves them so).
    package static func behind(store: any BridgeStore, version: Int64) async throws -> Bool {
        let stored = try await store.openingModels(bridgeIDs: try await store.bridges().map(\.id))
        if stored.isEmpty { return try await store.latestOpening() != nil }
        return stored.contains { !$0.isBuilt(from: version) }
    }
}

extension OpeningModelDTO {
    /// Whether this model was built from history version `version` in the current form (a model of an older form,
    /// learnt before the river model, counts as out of date).
    package func isBuilt(from version: Int64) -> Bool {
        sourceVersion == version && dynamics.format == OpeningDynamicsDTO.currentFormat
    }
}

/// Each store's `OpeningModelRebuilds` in this process, by the store's identity (a store that is not an object gets
/// a new one each time: its rebuilds are not shared).
package final class OpeningModelRebuildsByStore: Sendable {
    private final class Entry: @unchecked Sendable {
        // Written once at init, read under the registry's lock.
        weak var store: AnyObject?
        let rebuilds = OpeningModelRebuilds()
        init(store: AnyObject) { self.store = store }
    }

    private let entries = Locked<[ObjectIdentifier: Entry]>([:])

    package init() {}

    package func rebuilds(for store: any BridgeStore) -> OpeningModelRebuilds {
        guard type(of: store) is AnyObject.Type else { return OpeningModelRebuilds() }
        let object = store as AnyObject
        return entries.withLock { entries in
            // An identity can come back once its store is gone: an entry counts only while its store lives.
            entries = entries.filter { $0.value.store != nil }
            if let entry = entries[ObjectIdentifier(object)], entry.store === object { return entry.rebuilds }
            let entry = Entry(store: object)
            entries[ObjectIdentifier(object)] = entry
            return entry.rebuilds
        }
    }
}

extension BridgetAssembly {
    /// Rebuilds `store`'s opening models from its history as it stands now, or awaits a rebuild of this process that
    /// covers it (`OpeningModelRebuilds`).
    @discardableResult
    package func rebuildOpeningModels(store: any BridgeStore) async throws -> [OpeningModelDTO] {
        let version = try await store.historyVersion()
        return try await modelRebuilds.rebuilds(for: store)
            .models(from: version, store: store, processor: makeProcessor(store: store))
    }
}
