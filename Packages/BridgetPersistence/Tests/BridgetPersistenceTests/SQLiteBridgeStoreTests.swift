import BridgetDTOs
import BridgetPersistence
import Foundation
import GRDB
import Testing

/// What only the SQLite file can show: its schema, its pragmas, and how it fails.
@Suite("SQLite store")
struct SQLiteBridgeStoreTests {
    /// A new store at `path` holding the catalog and `events`.
    @discardableResult
    static func store(at path: String, with events: [BridgeEventDTO]) async throws -> SQLiteBridgeStore {
        let store = try SQLiteBridgeStore(path: path)
        try await store.upsertBridges(BridgeCatalog.seattle.bridges)
        _ = try await store.upsertEvents(events)
        return store
    }

    @Test("the file is WAL, sound, and readable with plain SQL")
    func schemaAndPragmas() async throws {
        let path = TemporaryFolder().path + "/store.sqlite"
        let store = try await Self.store(at: path, with: [Fixture.event(minute: 0, minutes: 4)])
        #expect(try await store.integrityCheck() == "ok")

        let queue = try DatabaseQueue(path: path)
        try await queue.read { db in
            #expect(try String.fetchOne(db, sql: "PRAGMA journal_mode") == "wal")
            #expect(try Int.fetchOne(db, sql: "PRAGMA page_size") == 16_384)
            let row = try #require(try Row.fetchOne(db, sql: "SELECT * FROM events"))
            #expect(row["bridge_id"] as String == "3")
            #expect(row["opened_at"] as String == "2026-06-01T12:00:00.000Z")
            #expect(row["open_local"] as String == "2026-06-01T05:00:00.000")
            #expect(row["duration_minutes"] as Double == 4)
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM grdb_migrations") == 7)
        }
    }

    @Test("a stored time that does not read is reported as damage, not left out of the records",
          arguments: [("closed_at", "yesterday"), ("open_local", "2026-06-01 05:10"),
                      ("opened_at", "2026-06-01T12:10:00.000")])
    func unreadableTime(_ column: String, _ text: String) async throws {
        let path = TemporaryFolder().path + "/store.sqlite"
        let store = try await Self.store(at: path, with: [Fixture.event(minute: 0), Fixture.event(minute: 10)])
        #expect(try await store.openingRecords().count == 2)
        let queue = try DatabaseQueue(path: path)
        try await queue.write { db in
            try db.execute(sql: "UPDATE events SET \(column) = ? WHERE opened_at = ?",
                           arguments: [text, "2026-06-01T12:10:00.000Z"])
        }
        try queue.close()
        let error = await #expect(throws: BridgetError.self) { try await store.openingRecords() }
        #expect(error?.code == "data.store-corrupt")
        #expect(error?.message.contains("unreadable \(column) '\(text)'") == true)
    }

    @Test("bulk writes are copied from the log into the file in the background, not left to a commit")
    func backgroundCheckpoint() async throws {
        let path = TemporaryFolder().path + "/store.sqlite"
        let store = try await Self.store(at: path, with: [])
        func size(_ file: String) -> Int {
            ((try? FileManager.default.attributesOfItem(atPath: file))?[.size] as? Int) ?? 0
        }
        let empty = size(path)
        // A few hundred log pages: far under the writer's own threshold (4,000), so only the background copies them.
        for batch in 0..<4 {
            _ = try await store.upsertEvents((0..<5_000).map { Fixture.event(minute: batch * 5_000 + $0) })
        }
        var waited = 0
        while size(path) < 4_000_000, waited < 200 { // up to 10 s
            try await Task.sleep(for: .milliseconds(50))
            waited += 1
        }
        #expect(size(path) >= 4_000_000, "the database file stayed at \(size(path)) bytes (\(empty) when empty)")
        #expect(try await store.eventCount(bridgeID: "3") == 20_000)
        #expect(try await store.integrityCheck() == "ok")
    }

    @Test("a file that is not SQLite gives a clear error and is left as it was")
    func corruptFile() throws {
        let path = TemporaryFolder().path + "/store.sqlite"
        let garbage = Data(repeating: 0x42, count: 8_192)
        try garbage.write(to: URL(fileURLWithPath: path))
        #expect {
            _ = try SQLiteBridgeStore(path: path)
        } throws: { error in
            (error as? BridgetError)?.code == "data.store-corrupt" && (error as? BridgetError)?.exitCode == 74
        }
        #expect(FileManager.default.contents(atPath: path) == garbage)
    }

    @Test("a store path under a file gives a clear error")
    func unwritableFolder() throws {
        let blocker = TemporaryFolder().path + "/plain-file"
        try Data("x".utf8).write(to: URL(fileURLWithPath: blocker))
        #expect {
            _ = try SQLiteBridgeStore(path: blocker + "/bridget.sqlite")
        } throws: { error in
            (error as? BridgetError)?.code == "data.store-folder"
        }
    }

    @Test("a store written by a newer Bridget is refused, not migrated")
    func newerSchema() async throws {
        let path = TemporaryFolder().path + "/store.sqlite"
        _ = try SQLiteBridgeStore(path: path)
        let queue = try DatabaseQueue(path: path)
        try await queue.write { db in
            try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99: from the future')")
        }
        #expect {
            _ = try SQLiteBridgeStore(path: path)
        } throws: { error in
            (error as? BridgetError)?.code == "data.store-newer"
        }
    }

    @Test("read-only: reads the store as it is and writes nothing; a missing or outdated store is refused")
    func readOnly() async throws {
        let path = TemporaryFolder().path + "/store.sqlite"
        try await Self.store(at: path, with: (0..<3).map { Fixture.event(minute: $0) })
        let reader = try SQLiteBridgeStore(path: path, access: .readOnly)
        #expect(reader.isReadOnly)
        #expect(try await reader.eventCount(bridgeID: nil) == 3)
        #expect(try await reader.historyVersion() > 0)
        await #expect(throws: BridgetError.self) { _ = try await reader.upsertEvents([Fixture.event(minute: 9)]) }
        #expect(try await SQLiteBridgeStore(path: path).eventCount(bridgeID: nil) == 3)

        #expect {
            _ = try SQLiteBridgeStore(path: path + "-missing", access: .readOnly)
        } throws: { error in
            (error as? BridgetError)?.code == "data.store-missing" && (error as? BridgetError)?.exitCode == 66
        }
        #expect(!FileManager.default.fileExists(atPath: path + "-missing"))

        // A store one migration behind needs a write to upgrade: read-only refuses it and leaves it as it was.
        let queue = try DatabaseQueue(path: path)
        let last = try await queue.write { db in
            let last = try String.fetchOne(db, sql: "SELECT max(identifier) FROM grdb_migrations")
            try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = ?", arguments: [last])
            return last
        }
        #expect {
            _ = try SQLiteBridgeStore(path: path, access: .readOnly)
        } throws: { error in
            (error as? BridgetError)?.code == "data.store-outdated"
        }
        #expect(try await queue.read { db in
            try String.fetchOne(db, sql: "SELECT max(identifier) FROM grdb_migrations")
        } != last)
    }

    @Test("reopening keeps the data and applies no migration twice")
    func reopen() async throws {
        let path = TemporaryFolder().path + "/store.sqlite"
        try await Self.store(at: path, with: (0..<3).map { Fixture.event(minute: $0) })
        let reopened = try SQLiteBridgeStore(path: path)
        #expect(try await reopened.eventCount(bridgeID: nil) == 3)
    }
}
