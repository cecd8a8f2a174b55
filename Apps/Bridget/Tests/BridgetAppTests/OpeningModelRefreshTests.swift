import BridgetAnalysis
import BridgetApp
import BridgetDTOs
import BridgetPersistence
import Foundation
import Testing

@Suite("Opening model rebuilds")
struct OpeningModelRefreshTests {
    /// A store's history that counts the builds read from it (each build reads the catalog once).
    final class CountingHistory: EventHistory {
        let history: StoreEventHistory
        let catalogReads = Locked(0)

        init(_ history: StoreEventHistory) { self.history = history }

        var builds: Int { catalogReads.withLock { $0 } }

        func bridges() async throws -> [BridgeInfoDTO] {
            catalogReads.withLock { $0 += 1 }
            return try await history.bridges()
        }

        func deleteEvents(openedBefore cutoff: Date) async throws -> Int {
            try await history.deleteEvents(openedBefore: cutoff)
        }

        func foldOpeningRecords<State: Sendable>(
            bridgeIDs: [String]?, into initial: State,
            _ update: @escaping @Sendable (inout State, [OpeningRecordDTO]) throws -> Void
        ) async throws -> State {
            try await history.foldOpeningRecords(bridgeIDs: bridgeIDs, into: initial, update)
        }

        func trafficFlows(bridgeID: String) async throws -> [TrafficFlowDTO] {
            try await history.trafficFlows(bridgeID: bridgeID)
        }
    }

    @Test("answers that find the models out of date at once share one rebuild, and each gets models of the history as it is")
    func oneRebuildForManyAskers() async throws {
        let path = NSTemporaryDirectory() + "bridget-refresh-" + UUID().uuidString + "/store.sqlite"
        let resolved = try ConfigurationLoader(environment: [:]).resolve(
            yaml: SyncPipelineTests.yaml.replacingOccurrences(of: "kind: memory", with: "path: \(path)"), origin: "test")
        let assembly = BridgetAssembly(configuration: BridgetConfiguration(resolved, environment: [:]),
                                       now: { Date(timeIntervalSince1970: 1_790_000_000) })
        let store = try await assembly.makeStore()
        _ = try await assembly.makeSyncPipeline(store: store).run(full: false)
        let history = CountingHistory(StoreEventHistory(store: store))
        let processor = SerialProcessor(history: history, rules: assembly.analysisRules,
                                        now: { Date(timeIntervalSince1970: 1_790_000_000) })
        let refresh = OpeningModelRefresh()
        let bridges = Set(try await store.bridges().map(\.id))
        // Current after the sync: read as stored, no build.
        let stored = try await refresh.current(bridgeIDs: bridges, store: store, processor: processor, note: { _ in })
        #expect(stored.count == bridges.count && history.builds == 0)
        // The history changes (its oldest day pruned): the models are out of date, and twelve answers ask at once.
        let oldest = try #require(try await store.events(matching: EventQuery(limit: 1)).first?.openedAt)
        #expect(try await store.deleteEvents(openedBefore: oldest.addingTimeInterval(86_400)) > 0)
        let version = try await store.historyVersion()
        let answers = try await withThrowingTaskGroup(of: [OpeningModelDTO].self) { group in
            for _ in 0..<12 {
                group.addTask {
                    try await refresh.current(bridgeIDs: bridges, store: store, processor: processor, note: { _ in })
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(answers.count == 12)
        #expect(answers.allSatisfy { $0.count == bridges.count && $0.allSatisfy { $0.sourceVersion == version } })
        #expect(history.builds == 1, "one rebuild for twelve askers, not \(history.builds)")
        // An explicit rebuild (a sync's) always builds, after any under way.
        try await refresh.rebuild(store: store, processor: processor)
        #expect(history.builds == 2)
    }
}
