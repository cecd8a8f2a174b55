import BridgetAnalysis
import BridgetDTOs
import BridgetNetworking
import BridgetPersistence
import Foundation

/// The composition root: the only place that knows every implementation and picks one per boundary from the
/// configuration, with an exhaustive switch per kind (no `default:`; the compiler finds a forgotten arm).
struct BridgetAssembly: Sendable {
    let configuration: BridgetConfiguration
    let now: @Sendable () -> Date

    init(configuration: BridgetConfiguration, now: @escaping @Sendable () -> Date = { Date() }) {
        self.configuration = configuration
        self.now = now
    }

    /// The configured data source.
    func makeProvider() -> any NetworkProcessing {
        switch configuration.provider {
        case .sample:
            let settings = configuration.sample
            let lastDay = settings.endDate ?? LocalDay(number: LocalDay(containing: now()).number - 1)
            let generator = SampleOpeningGenerator(seed: settings.seed, invalidRowRate: settings.invalidRate)
            return SampleProvider(
                generator: generator, lastDay: lastDay.number, days: settings.days, pageSize: settings.pageSize)
        }
    }

    /// The configured store, opened and migrated.
    func makeStore() throws -> any BridgeStore {
        switch configuration.store {
        case .sqlite: try SQLiteBridgeStore(path: configuration.storePath)
        case .memory: InMemoryBridgeStore()
        }
    }

    /// The configured processor, reading history from `store`.
    func makeProcessor(store: any BridgeStore) -> any BackgroundProcessing {
        let history = StoreEventHistory(store: store)
        switch configuration.processor {
        case .serial:
            return SerialProcessor(
                history: history, maximumDistanceMeters: configuration.maximumDistanceMeters, now: now)
        }
    }

    /// A sync pipeline over the configured parts.
    func makeSyncPipeline(store: any BridgeStore) -> SyncPipeline {
        SyncPipeline(
            provider: makeProvider(), processor: makeProcessor(store: store), store: store,
            batchSize: configuration.batchSize, overlap: configuration.overlap, now: now)
    }

    /// Describes where data lives, for messages: the file path, or "memory".
    var storeDescription: String {
        switch configuration.store {
        case .sqlite: configuration.storePath
        case .memory: "memory (nothing is kept after the command)"
        }
    }
}

/// Lets Analysis read any `BridgeStore` through its `EventHistory` port.
struct StoreEventHistory: EventHistory {
    let store: any BridgeStore

    func bridges() async throws -> [BridgeInfoDTO] { try await store.bridges() }

    func events(bridgeID: String?) async throws -> [BridgeEventDTO] {
        try await store.events(matching: EventQuery(bridgeID: bridgeID))
    }

    func deleteEvents(openedBefore cutoff: Date) async throws -> Int {
        try await store.deleteEvents(openedBefore: cutoff)
    }
}
