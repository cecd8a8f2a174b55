import BridgetDTOs
import BridgetPersistence
import Foundation
import Synchronization

/// Which history an answer was computed from: the store's history version, and how many times a long-running process
/// reopened the store (two files can hold the same version).
package struct HistoryKey: Sendable, Hashable {
    package let version: Int64
    package let generation: Int

    package init(version: Int64, generation: Int = 0) {
        self.version = version
        self.generation = generation
    }
}

/// What forecasts, route scores and best times read of one history, in memory: the catalog, every bridge's current
/// opening model, and each bridge's openings of the last weeks (what a forecast cites as evidence). Loaded once per
/// history, then answered without the store.
package struct ForecastBook: Sendable {
    /// The bridges the store keeps (none before the first sync).
    package let storedBridges: [BridgeInfoDTO]
    /// The stored catalog, or the embedded Seattle one before any sync (as names are resolved).
    package let catalog: BridgeCatalog
    /// Whether any opening is stored.
    package let hasHistory: Bool
    package let models: [String: OpeningModelDTO]
    package let recent: [String: RecentOpenings]
}

/// A bridge's openings from `from` on, oldest first: every stored one, so a window within them is answered here.
package struct RecentOpenings: Sendable {
    package let from: Date
    package let events: [BridgeEventDTO]

    /// The openings that started in `[start, end)`, oldest first; `nil` when the window begins before `from`.
    package func events(from start: Date, before end: Date) -> [BridgeEventDTO]? {
        guard start >= from else { return nil }
        let first = events.partitioningIndex { $0.openedAt >= start }
        let last = events[first...].partitioningIndex { $0.openedAt >= end }
        return Array(events[first..<last])
    }
}

/// A store's `ForecastBook` and catalog for its current history, each loaded once per `HistoryKey` however many
/// requests ask at the same moment (one load, every asker awaiting it); a failed load is not kept. A server shares
/// one; a command makes its own.
package final class HistoryMemory: Sendable {
    private let books = VersionedMemo<ForecastBook>()
    private let catalogs = VersionedMemo<BridgeCatalog>()

    package init() {}

    /// The book of `key`'s history, loaded from `store` the first time it is asked for.
    package func book(_ key: HistoryKey, context: AppContext, store: any BridgeStore) async throws -> ForecastBook {
        try await books.value(for: key) { try await Self.load(context: context, store: store) }
    }

    /// The catalog of `key`'s history (as `AppContext.catalog(in:)` reads it).
    package func catalog(_ key: HistoryKey, context: AppContext, store: any BridgeStore) async throws -> BridgeCatalog {
        try await catalogs.value(for: key) { try await context.catalog(in: store) }
    }

    /// How many weeks before a model's last day a book keeps openings: the five similar slots a forecast cites, and
    /// a week and a day either side for its window.
    static let evidenceDays = 5 * 7 + 8

    static func load(context: AppContext, store: any BridgeStore) async throws -> ForecastBook {
        let stored = try await store.bridges()
        let catalog = BridgeCatalog(bridges: stored.isEmpty ? BridgeCatalog.seattle.bridges : stored)
        let hasHistory = try await store.latestOpening() != nil
        let ids = catalog.bridges.map(\.id)
        let models = hasHistory ? try await OpeningModels(context: context, store: store).current(bridgeIDs: ids) : []
        var recent: [String: RecentOpenings] = [:]
        for model in models {
            guard let last = model.lastDay.flatMap(LocalDay.init) else { continue }
            let start = FloatingTimestamp(wallClockSeconds: Int64(last.number - evidenceDays) * 86_400)
            let from = context.clock.openingInstant(for: start)
            let events = try await store.events(matching: EventQuery(bridgeID: model.bridgeID, openedFrom: from))
            recent[model.bridgeID] = RecentOpenings(from: from, events: events)
        }
        return ForecastBook(storedBridges: stored, catalog: catalog, hasHistory: hasHistory,
                            models: Dictionary(models.map { ($0.bridgeID, $0) }) { first, _ in first },
                            recent: recent)
    }
}

/// Where answers find the book and catalog of a store's current history: a memory (a server's shared one, or one of
/// this command's own) and what says which history the store holds now (by default its version, asked each time).
package struct HistoryBooks: Sendable {
    package let context: AppContext
    package let store: any BridgeStore
    package let memory: HistoryMemory
    private let key: @Sendable () async throws -> HistoryKey

    package init(context: AppContext, store: any BridgeStore, memory: HistoryMemory = HistoryMemory(),
                 key: (@Sendable () async throws -> HistoryKey)? = nil) {
        self.context = context
        self.store = store
        self.memory = memory
        self.key = key ?? { HistoryKey(version: try await store.historyVersion()) }
    }

    /// The book of the store's current history.
    package func book() async throws -> ForecastBook {
        try await memory.book(try await key(), context: context, store: store)
    }

    /// The book of the store's current history, or `store-empty` (exit 66) when it holds no opening, so an answer
    /// never says "no model" about a store that has nothing yet.
    package func bookWithHistory(for question: String) async throws -> ForecastBook {
        let book = try await book()
        guard book.hasHistory else { throw context.storeEmpty(for: question) }
        return book
    }

    /// The catalog bridge named by an id or a name (as `AppContext.bridge(named:in:)` resolves it).
    package func bridge(named text: String) async throws -> BridgeInfoDTO {
        try context.bridge(named: text, in: try await memory.catalog(try await key(), context: context, store: store))
    }
}

/// One value per `HistoryKey`: the latest key's, loaded once by whoever asks first while the others wait for it.
final class VersionedMemo<Value: Sendable>: Sendable {
    private let state = Mutex<(key: HistoryKey, task: Task<Value, any Error>)?>(nil)

    func value(for key: HistoryKey, load: @escaping @Sendable () async throws -> Value) async throws -> Value {
        let task: Task<Value, any Error> = state.withLock { state in
            if let state, state.key == key { return state.task }
            let task = Task { try await load() }
            state = (key, task)
            return task
        }
        do {
            return try await task.value
        } catch {
            // Not kept: the next asker loads again (the store may be back).
            state.withLock { state in
                if let current = state, current.key == key, current.task == task { state = nil }
            }
            throw error
        }
    }
}

extension Collection {
    /// The first index whose element satisfies `belongs` (which must hold for a suffix), by binary search.
    func partitioningIndex(where belongs: (Element) -> Bool) -> Index {
        var low = startIndex
        var count = self.count
        while count > 0 {
            let half = count / 2
            let middle = index(low, offsetBy: half)
            if belongs(self[middle]) {
                count = half
            } else {
                low = index(after: middle)
                count -= half + 1
            }
        }
        return low
    }
}
