@testable import BridgetCLI
import BridgetDTOs
import BridgetPersistence
import Foundation
import GRDB
import Testing

@Suite("Output formats and arguments")
struct OutputTests {
    @Test func csvEscapesLikeRFC4180() {
        let table = Tabular(columns: ["name", "note"], rows: [[Cell("Fremont"), Cell("a, \"b\"\nc")]])
        #expect(table.renderCSV() == "name,note\nFremont,\"a, \"\"b\"\"\nc\"")
    }

    @Test("tables align numbers right and text left")
    func tableAlignment() {
        let table = Tabular(columns: ["bridge", "n"], rows: [[Cell("Fremont"), Cell(5)], [Cell("Ballard"), Cell(120)]])
        #expect(table.renderTable() == "bridge     n\n───────  ───\nFremont    5\nBallard  120")
    }

    @Test("heatmap levels, and colour only when asked")
    func heatmap() {
        #expect(Heatmap.level(0, maximum: 10) == 0)
        #expect(Heatmap.level(1, maximum: 10) == 1)
        #expect(Heatmap.level(3, maximum: 10) == 2)
        #expect(Heatmap.level(10, maximum: 10) == 4)
        var counts = [[Int]](repeating: [Int](repeating: 0, count: 24), count: 7)
        counts[0][8] = 4
        counts[6][23] = 1
        let plain = Heatmap(colored: false).render(title: "T", counts: counts)
        let lines = plain.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 9 && lines[2].hasPrefix("Mon") && lines[8].hasPrefix("Sun"))
        #expect(lines[2].dropFirst(5 + 16).hasPrefix("██") && lines[8].hasSuffix("░░"))
        #expect(!plain.contains("\u{1B}"))
        #expect(Heatmap(colored: true).render(title: "T", counts: counts).contains("\u{1B}[38;5;19m██"))
    }

    @Test("a progress line shows rows, rate and, with a total, a bar and the time left")
    func progressLine() {
        let known = ProgressMeter.line(verb: "importing", rows: 250_000, bytes: 50, total: .bytes(200), elapsed: 10,
                                       detail: nil)
        #expect(known == "importing [######..................]  25% 250,000 rows · 25,000 rows/s · ETA 0:30")
        let open = ProgressMeter.line(verb: "syncing", rows: 1_234, bytes: nil, total: nil, elapsed: 2, detail: "page 3")
        #expect(open == "syncing: page 3 · 1,234 rows · 617 rows/s")
        #expect(ProgressMeter.clock(3_725) == "1:02:05")
        // After a resume from half-way, the rate and the time left count only this run's rows and bytes.
        let resumed = ProgressMeter.line(verb: "importing", rows: 150_000, bytes: 150, total: .bytes(200), elapsed: 10,
                                         detail: nil, resumed: (100_000, 100))
        #expect(resumed == "importing [##################......]  75% 150,000 rows · 5,000 rows/s · ETA 0:10")
    }

    @Test("a leading --config moves after the subcommand, before any --")
    func leadingConfig() {
        #expect(BridgetCommand.hoistingLeadingConfig(["--config", "a.yaml", "sync", "--full"])
                == ["sync", "--full", "--config", "a.yaml"])
        #expect(BridgetCommand.hoistingLeadingConfig(["--config=a.yaml", "config", "validate", "--", "-x.yaml"])
                == ["config", "validate", "--config=a.yaml", "--", "-x.yaml"])
        #expect(BridgetCommand.hoistingLeadingConfig(["stats", "--config", "a.yaml"]) == ["stats", "--config", "a.yaml"])
        #expect(BridgetCommand.hoistingLeadingConfig(["--config", "a.yaml"]) == ["--config", "a.yaml"])
    }
}

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
