import BridgetContext
import BridgetCore
import BridgetDTOs
import BridgetPersistence
import BridgetSQLite
import Foundation
import GRDB
import Testing

@Suite("Sync pipeline")
struct SyncPipelineTests {
    func assembly(_ yaml: String) throws -> BridgetAssembly {
        let resolved = try ConfigurationLoader(environment: [:]).resolve(yaml: yaml, origin: "test")
        return BridgetAssembly(configuration: BridgetConfiguration(resolved, environment: [:]),
                               now: { Date(timeIntervalSince1970: 1_790_000_000) })
    }

    static let yaml = """
        provider:
          sample:
            days: 30
            end_date: 2026-06-30
            invalid_rate: 0.05
            page_size: 200
        store:
          kind: memory
        sync:
          batch_size: 64
        """

    @Test("every fetched row is stored or counted as rejected; a second sync inserts nothing")
    func syncAccountsForEveryRow() async throws {
        let assembly = try assembly(Self.yaml)
        let store = try await assembly.makeStore()
        let first = try await assembly.makeSyncPipeline(store: store).run(full: false)
        #expect(first.pages > 1)
        #expect(first.fetched == first.inserted + first.updated + first.unchanged + first.rejected)
        #expect(first.rejected > 0 && first.rejectedByReason.values.reduce(0, +) == first.rejected)
        #expect(try await store.eventCount(bridgeID: nil) == first.inserted)

        let second = try await assembly.makeSyncPipeline(store: store).run(full: false)
        #expect(second.inserted == 0 && second.updated == 0)
        #expect(second.since == first.watermarkAfter.map { $0.addingTimeInterval(-48 * 3600) })
        #expect(second.fetched < first.fetched)

        let full = try await assembly.makeSyncPipeline(store: store).run(full: true)
        #expect(full.inserted == 0 && full.fetched == first.fetched && full.since == nil)
        let runs = try await store.syncRuns(limit: 10)
        #expect(runs.map(\.status) == [.succeeded, .succeeded, .succeeded])
        #expect(runs.last?.counts.inserted == first.inserted)
    }

    @Test("a sync that stores nothing new rebuilds models left behind the history, and only those")
    func syncCatchesUpModels() async throws {
        let assembly = try assembly(Self.yaml)
        let store = try await assembly.makeStore()
        let ids = try await store.bridges().map(\.id) + BridgeCatalog.seattle.bridges.map(\.id)
        _ = try await assembly.makeSyncPipeline(store: store).run(full: false)
        let built = try await store.historyVersion()
        #expect(try await store.openingModels(bridgeIDs: ids).allSatisfy { $0.sourceVersion == built })
        // Rows changed with no rebuild after them: what a host killed between its rows and its rebuild leaves.
        let oldest = try #require(try await store.events(matching: EventQuery(limit: 1)).first?.openedAt)
        #expect(try await store.deleteEvents(openedBefore: oldest.addingTimeInterval(86_400)) > 0)
        let behind = try await store.historyVersion()
        #expect(behind > built)
        let rebuilds = assembly.modelRebuilds.rebuilds(for: store)
        #expect(rebuilds.started == 1)

        let second = try await assembly.makeSyncPipeline(store: store).run(full: false)
        #expect(second.inserted == 0 && second.updated == 0)
        let models = try await store.openingModels(bridgeIDs: ids)
        #expect(!models.isEmpty && models.allSatisfy { $0.sourceVersion == behind })
        #expect(rebuilds.started == 2)
        // In step: the next sync that stores nothing rebuilds nothing.
        _ = try await assembly.makeSyncPipeline(store: store).run(full: false)
        #expect(rebuilds.started == 2)
    }

    @Test("a command that reads opens the store without writing; a process that stays opens its writer at once")
    func storeOpens() async throws {
        let path = NSTemporaryDirectory() + "bridget-opens-" + UUID().uuidString + "/store.sqlite"
        let assembly = try assembly(Self.yaml.replacingOccurrences(of: "kind: memory", with: "path: \(path)"))
        do {
            let store = try await assembly.makeStore()
            _ = try await assembly.makeSyncPipeline(store: store).run(full: false)
            try await #require(store as? SQLiteBridgeStore).checkpoint()
        }
        func log() -> Int { (try? FileManager.default.attributesOfItem(atPath: path + "-wal"))?[.size] as? Int ?? 0 }
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(log() == 0)
        do {
            let reader = try await assembly.makeStore(forReading: true)
            #expect(try await reader.eventCount(bridgeID: nil) > 0)
            #expect(log() == 0)
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        // The writer's open sets up the log with a commit: there as soon as the store is open.
        let staying = try await assembly.makeStore(forReading: true, writerAtOnce: true)
        #expect(log() > 0)
        #expect(!staying.isReadOnly)
    }

    @Test("a sync whose model rebuild fails on a damaged store keeps its rows and is recorded as failed")
    func failedRebuildIsRecorded() async throws {
        let path = NSTemporaryDirectory() + "bridget-pipeline-" + UUID().uuidString + "/store.sqlite"
        let assembly = try assembly(Self.yaml.replacingOccurrences(of: "kind: memory", with: "path: \(path)"))
        let store = try await assembly.makeStore()
        let first = try await assembly.makeSyncPipeline(store: store).run(full: false)
        // A damaged row the sync never sends (and so never repairs), and ten rows it will insert again, so the
        // model must be rebuilt.
        let queue = try DatabaseQueue(path: path)
        try await queue.write { db in
            try db.execute(sql: """
                INSERT INTO events (bridge_id, opened_at, entity_name, open_local)
                VALUES ('3', '2001-01-01T08:00:00.000Z', 'Fremont', 'noon')
                """)
            try db.execute(sql: """
                DELETE FROM events WHERE (bridge_id, opened_at) IN
                    (SELECT bridge_id, opened_at FROM events ORDER BY opened_at DESC LIMIT 10)
                """)
        }
        try queue.close()
        let error = await #expect(throws: StoreError.self) {
            try await assembly.makeSyncPipeline(store: store).run(full: true)
        }
        #expect(error?.code == "store.corrupt")
        let runs = try await store.syncRuns(limit: 2)
        #expect(runs.map(\.status) == [.failed, .succeeded])
        #expect(runs.first?.finishedAt != nil && runs.first?.error?.contains("open_local") == true)
        #expect(runs.first?.counts.inserted == 10) // the rows deleted above are back
        #expect(try await store.eventCount(bridgeID: nil) == first.inserted + 1)
    }

    @Test("a cancelled sync keeps its committed batches and is recorded as cancelled")
    func cancellation() async throws {
        let assembly = try assembly(Self.yaml)
        let store = try await assembly.makeStore()
        let pipeline = try assembly.makeSyncPipeline(store: store)
        let task = Task {
            try await pipeline.run(full: false) { progress in
                if progress.pages == 2 { withUnsafeCurrentTask { $0?.cancel() } }
            }
        }
        let interrupted = try await task.value
        #expect(!interrupted.completed)
        #expect(interrupted.inserted > 0)
        let runs = try await store.syncRuns(limit: 1)
        #expect(runs.first?.status == .cancelled)
        let kept = try await store.eventCount(bridgeID: nil)
        #expect(kept == interrupted.inserted) // the report tells exactly what was committed
        let resumed = try await pipeline.run(full: false)
        #expect(try await store.eventCount(bridgeID: nil) == kept + resumed.inserted)
    }
}
