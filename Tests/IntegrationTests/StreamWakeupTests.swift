import BridgetDTOs
import BridgetTestSupport
import Foundation
import Testing

/// A commit wakes the server's stream hub when it happens: another process's commit to a SQLite file (the `-wal`
/// file's mark) or, through a shared PostgreSQL store, any host's (`LISTEN`/`NOTIFY`). The hub's poll
/// (`stream.poll_ms`) is only the fallback, set here to its longest, a minute.
@Suite("Stream wake-ups")
struct StreamWakeupTests {
    enum StoreKind: String, CaseIterable, Sendable {
        case sqlite, postgres
    }

    @Test("a change imported by another process reaches a stream client at once, not at the hub's next poll a minute on",
          arguments: StoreKind.allCases)
    func importWakesTheHub(_ kind: StoreKind) async throws {
        let bridget = BridgetProcess()
        var environment: [String: String] = [:]
        var store = "store:\n  path: \(bridget.storePath)"
        if kind == .postgres {
            store = PostgresExecutableTests.storeYAML(url: try PostgresExecutableTests.server().url,
                                                      schema: PostgresExecutableTests.freshSchema())
            environment = try PostgresExecutableTests.environment()
        }
        let config = try bridget.write("wake.yaml", store + """

            refresh:
              enabled: false
            stream:
              poll_ms: 60000
              heartbeat_seconds: 600
            """)
        let server = try await ServeTests.Server(bridget, config: config, environment: environment)
        defer { server.terminate() }
        // The hub read the log as the server started: without a wake-up, its next read is a minute from then.
        let started = ContinuousClock.now
        let stream = try StreamClient(port: try #require(server.base.port))
        defer { stream.hangUp() }
        for _ in 0..<1_200 where stream.head == nil { try await Task.sleep(for: .milliseconds(50)) } // a hang detector
        #expect(stream.head?.status == 200)

        let hourAgo = LocalClock.seattle.reading(for: Date().addingTimeInterval(-3_600)).localText
        let file = try bridget.write("recent.ndjson", BulkChangesTests.row(BulkChangesTests.bridges[0], hourAgo) + "\n")
        let imported = try await bridget.run(["import", file, "--config", config], environment: environment)
        #expect(imported.status == 0, "\(imported.stderr)")
        let committed = ContinuousClock.now
        let events = await stream.next(1)
        let arrived = ContinuousClock.now
        #expect(events.map(\.event) == ["change"])
        // The hub read the log as the server started and, woken by nothing, reads it next a minute later. The change
        // arrives within seconds of its commit when the commit wakes the hub (the bound, 15 s, is a hang detector for
        // that); without a wake-up it waits for the poll, unless the import itself ended most of a minute late.
        #expect(arrived - committed < .seconds(15),
                "the change arrived \(arrived - committed) after its import, which ended \(committed - started) after the start")
    }
}
