import BridgetDTOs
import BridgetPersistence
import BridgetPersistenceTesting
import BridgetSQLite
import Foundation
import GRDB
import Testing

/// What only the SQLite file can show: its schema, its pragmas, and how it fails.
@Suite("SQLite store")
struct SQLiteBridgeStoreTests {
    @Test("a commit by another connection to the file wakes the log's readers (the -wal file's mark), as one through any store of the file in this process does (its bell)")
    func wakeups() async throws {
        let path = TemporaryFolder().path + "/store.sqlite"
        let store = try await Self.store(at: path, with: [])
        let heard = WakeupCounter(store.changeWakeups())
        defer { heard.stop() }
        #expect(await heard.listens(), "the store's wake-ups never said they listen")
        // Another connection (another process's, as far as the file can tell): no bell rings, the log file changes.
        let quiet = await heard.quietCount()
        try await Self.waitingQueue(path).write { try $0.execute(sql: "CREATE TABLE wake_probe (x); DROP TABLE wake_probe") }
        #expect(await heard.grows(past: quiet), "another connection's commit did not wake the reader")
        // Another store of the same file in this process rings the same bell.
        let again = await heard.quietCount()
        let other = try SQLiteBridgeStore(path: path)
        _ = try await other.upsertEvents([StoreFixture.event(minute: 0)])
        #expect(await heard.grows(past: again), "a write through another store of the file did not wake the reader")
    }

    /// A new store at `path` holding the catalog and `events`.
    @discardableResult
    static func store(at path: String, with events: [BridgeEventDTO]) async throws -> SQLiteBridgeStore {
        let store = try SQLiteBridgeStore(path: path)
        try await store.upsertBridges(BridgeCatalog.seattle.bridges)
        _ = try await store.upsertEvents(events)
        return store
    }

    /// A queue on a store's file with a busy timeout: the store just written may still be checkpointing its log in
    /// the background.
    static func waitingQueue(_ path: String) throws -> DatabaseQueue {
        var waiting = Configuration()
        waiting.busyMode = .timeout(10)
        return try DatabaseQueue(path: path, configuration: waiting)
    }

    /// A new store file holding an observed opening (minute 0) and a planned record, `ndw-1` version 1 (minute 10).
    static func storeWithRecord() async throws -> (path: String, record: BridgeEventDTO) {
        let path = TemporaryFolder().path + "/store.sqlite"
        let record = StoreFixture.record("ndw-1", version: 1, minute: 10)
        try await store(at: path, with: [StoreFixture.event(minute: 0), record])
        return (path, record)
    }

    /// Rewrites a store's file with `sql` (outside a transaction), as an earlier schema would have left it.
    static func rewrite(_ path: String, _ sql: String) async throws {
        let queue = try waitingQueue(path)
        try await queue.writeWithoutTransaction { try $0.execute(sql: sql) }
        try queue.close()
    }

    @Test("a model's dynamics the file holds damaged (not JSON, a share of 7, weights that do not sum to 1, a negative share) are read as none, the slots kept")
    func damagedDynamics() async throws {
        let path = TemporaryFolder().path + "/store.sqlite"
        let store = try await Self.store(at: path, with: [])
        let slot = OpeningSlotDTO(starts: 1, occurrences: 10, startProbability: 0.1, openProbability: 0.01,
                                  meanRemainingMinutes: 3)
        let follow = FollowDTO(fromBridgeID: "2", maxLagMinutes: 2, sourceOpenings: 10, followed: 7, expectedByChance: 1, chanceSpread: 1,
                               share: 0.6, originShares: ["": 0.6], lagWeights: [0.5, 0.5])
        let model = OpeningModelDTO(
            bridgeID: "3", builtAt: Date(timeIntervalSince1970: 1_790_000_000), firstDay: nil, lastDay: nil, openings: 1,
            sourceEvents: 1, sourceLatestOpening: nil, baseStartProbability: 0.1, baseOpenProbability: 0.01,
            slots: Array(repeating: slot, count: OpeningModelDTO.slotsPerWeek),
            dynamics: OpeningDynamicsDTO(followers: [follow], broughtShare: 0.3, durationCounts: [0, 2],
                                         holidaysAsSundays: true))
        try await store.saveOpeningModels([model])
        #expect(try await store.openingModel(bridgeID: "3")?.dynamics == model.dynamics)
        let good = try #require(try await Self.waitingQueue(path).read {
            try String.fetchOne($0, sql: "SELECT dynamics FROM opening_models WHERE bridge_id = '3'") })
        for damaged in ["not json", good.replacingOccurrences(of: "\"share\":0.6", with: "\"share\":7"),
                        good.replacingOccurrences(of: "[0.5,0.5]", with: "[0.5,0.75]"),
                        good.replacingOccurrences(of: "\"broughtShare\":0.3", with: "\"broughtShare\":-1")] {
            #expect(damaged != good || damaged == "not json")
            try await Self.rewrite(path, "UPDATE opening_models SET dynamics = '\(damaged.replacingOccurrences(of: "'", with: "''"))'")
            let read = try #require(try await store.openingModel(bridgeID: "3"))
            #expect(read.dynamics == .none && read.slots == model.slots, "\(damaged)")
        }
    }

    @Test("the sync lock is a file beside the store: two stores on one file take turns; the holder is named; a folder that cannot be written is a store error")
    func syncLockAcrossInstances() async throws {
        let path = TemporaryFolder().path + "/store.sqlite"
        let first = try SQLiteBridgeStore(path: path)
        let second = try SQLiteBridgeStore(path: path)
        #expect(first.syncLockPath == path + ".sync.lock")
        try await first.withSyncLock(holder: "api-1 pid 10") {
            let refused = await #expect(throws: SyncInProgress.self) {
                try await second.withSyncLock(holder: "api-2 pid 20") { Issue.record("both held the sync lock") }
            }
            #expect(refused?.holder == "api-1 pid 10")
        }
        #expect(try await second.withSyncLock(holder: "api-2 pid 20") { 2 } == 2)
        // The lock is the file's, not the text's: once released, the file holds no holder.
        #expect(try String(contentsOfFile: path + ".sync.lock", encoding: .utf8).isEmpty)

        // A lock file that cannot be opened (here a folder in its place) is the store's error, and nothing runs.
        let other = TemporaryFolder().path + "/store.sqlite"
        let store = try SQLiteBridgeStore(path: other)
        try FileManager.default.createDirectory(atPath: other + ".sync.lock", withIntermediateDirectories: false)
        let error = await #expect(throws: StoreError.self) {
            try await store.withSyncLock(holder: "h") { Issue.record("ran without the lock") }
        }
        #expect(error?.code == "store.failed" && error?.description.contains("sync lock") == true)
    }

    @Test("readiness: the file deleted, replaced by another or cut short is said, before any query reads it")
    func readiness() async throws {
        let folder = TemporaryFolder().path
        let path = folder + "/store.sqlite"
        let store = try await Self.store(at: path, with: (0..<2_000).map { StoreFixture.event(minute: $0) })
        try await store.checkReadiness()

        // Cut short: fewer bytes than the header's pages (after the log is copied in, so the header counts them).
        try await store.checkpoint()
        try await store.checkReadiness() // a server looks every second: it has seen the file whole
        let whole = try Data(contentsOf: URL(fileURLWithPath: path))
        try whole.prefix(whole.count / 2).write(to: URL(fileURLWithPath: path)) // same file, fewer bytes
        let cut = await #expect(throws: StoreError.self) { try await store.checkReadiness() }
        #expect(cut?.code == "store.corrupt", "\(String(describing: cut))")
        try whole.write(to: URL(fileURLWithPath: path))
        try await store.checkReadiness()

        // Cut short while newer rows wait in the log: the pages SQLite counts no longer fit in the file.
        _ = try await store.upsertEvents((2_000..<2_100).map { StoreFixture.event(minute: $0) })
        try whole.prefix(whole.count / 2).write(to: URL(fileURLWithPath: path))
        let cutWithLog = await #expect(throws: StoreError.self) { try await store.checkReadiness() }
        #expect(cutWithLog?.code == "store.corrupt", "\(String(describing: cutWithLog))")
        try whole.write(to: URL(fileURLWithPath: path))

        // Replaced: another file at the path (as `mv new.sqlite store.sqlite` leaves it); deleted: none at all.
        let other = folder + "/other.sqlite"
        _ = try await Self.store(at: other, with: [])
        #expect(rename(other, path) == 0)
        let replaced = await #expect(throws: StoreError.self) { try await store.checkReadiness() }
        #expect(replaced == .replaced(path: path, gone: false))
        try FileManager.default.removeItem(atPath: path)
        let gone = await #expect(throws: StoreError.self) { try await store.checkReadiness() }
        #expect(gone == .replaced(path: path, gone: true))
    }

    @Test("the file is WAL, sound, and readable with plain SQL")
    func schemaAndPragmas() async throws {
        let path = TemporaryFolder().path + "/store.sqlite"
        let store = try await Self.store(at: path, with: [StoreFixture.event(minute: 0, minutes: 4)])
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
            #expect(row["status"] as String? == nil) // observed (v9)
            #expect(row["record_id"] as String? == nil)
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM grdb_migrations") == 16)
        }
    }

    @Test("a stored time that does not read is reported as damage, not left out of the records",
          arguments: [("closed_at", "yesterday"), ("open_local", "2026-06-01 05:10"),
                      ("opened_at", "2026-06-01T12:10:00.000")])
    func unreadableTime(_ column: String, _ text: String) async throws {
        let path = TemporaryFolder().path + "/store.sqlite"
        let store = try await Self.store(at: path, with: [StoreFixture.event(minute: 0), StoreFixture.event(minute: 10)])
        #expect(try await store.openingRecords().count == 2)
        let queue = try DatabaseQueue(path: path)
        try await queue.write { db in
            try db.execute(sql: "UPDATE events SET \(column) = ? WHERE opened_at = ?",
                           arguments: [text, "2026-06-01T12:10:00.000Z"])
        }
        try queue.close()
        await #expect(throws: StoreError.corruptEvent(detail: "an unreadable \(column) '\(text)'")) {
            try await store.openingRecords()
        }
    }

    @Test("a bulk summary that does not read back whole (not JSON, a count of no kind, a negative count) is reported as damage, and pages nobody",
          arguments: ["not json", #"{"counts":{"moved":5},"bridgeIDs":["3"],"openedFromMS":0,"openedThroughMS":1,"historyVersion":1}"#,
                      #"{"counts":{"new":-5},"bridgeIDs":["3"],"openedFromMS":0,"openedThroughMS":1,"historyVersion":1}"#])
    func damagedSummary(_ summary: String) async throws {
        let path = TemporaryFolder().path + "/store.sqlite"
        let store = try await Self.store(at: path, with: [StoreFixture.event(minute: 0)])
        let queue = try DatabaseQueue(path: path)
        try await queue.write { db in
            try db.execute(sql: "INSERT INTO change_log (recorded_ms, kind, summary) VALUES (0, 'bulk', ?)",
                           arguments: [summary])
        }
        try queue.close()
        await #expect(throws: StoreError.self) { try await store.changes(after: 0, bridgeIDs: nil, limit: 10) }
        // Alerts read openings' entries only: with an alert to match, a write after it is stored and matched as ever.
        try await store.saveAlert(AlertRuleDTO(
            name: "fremont", bridgeIDs: [StoreFixture.fremont.id], timeZone: "UTC",
            destination: AlertDestination(kind: .webhook, url: "https://example.org/hook")))
        let after = try await store.upsertEvents([StoreFixture.event(minute: 30)])
        #expect(after.inserted == 1)
        #expect(try await store.changes(after: 2, bridgeIDs: nil, limit: 10).compactMap(\.opening).count == 1)
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
            _ = try await store.upsertEvents((0..<5_000).map { StoreFixture.event(minute: batch * 5_000 + $0) })
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
        let error = #expect(throws: StoreError.notSQLite(path: path)) { _ = try SQLiteBridgeStore(path: path) }
        #expect(error?.code == "store.not-sqlite")
        #expect(FileManager.default.contents(atPath: path) == garbage)
    }

    @Test("a store path under a file gives a clear error")
    func unwritableFolder() throws {
        let blocker = TemporaryFolder().path + "/plain-file"
        try Data("x".utf8).write(to: URL(fileURLWithPath: blocker))
        #expect {
            _ = try SQLiteBridgeStore(path: blocker + "/bridget.sqlite")
        } throws: { error in
            guard case .cannotCreateFolder(let folder, _) = error as? StoreError else { return false }
            return folder == blocker
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
        #expect(throws: StoreError.newer(path: path)) { _ = try SQLiteBridgeStore(path: path) }
    }

    @Test("a store of the previous schema (v7), marked or not, migrates: its events are observed and have no record")
    func migratesTheV7Schema() async throws {
        for marked in [true, false] {
            let path = TemporaryFolder().path + "/store.sqlite"
            try await Self.store(at: path, with: [StoreFixture.event(minute: 0)])
            // Back to v7 as v7 wrote it: no record table, no columns, no v8 in the list of migrations.
            try await Self.rewrite(path, """
                DROP INDEX events_live;
                ALTER TABLE events DROP COLUMN live;
                DROP TABLE live_feed;
                DROP TABLE event_records;
                ALTER TABLE events DROP COLUMN record_version;
                ALTER TABLE events DROP COLUMN record_id;
                ALTER TABLE events DROP COLUMN status;
                DELETE FROM grdb_migrations WHERE identifier IN ('v8: event status and record versions',
                                                                 'v9: observed openings store no status',
                                                                 'v11: record ids beside the events',
                                                                 'v13: openings seen live, and the live state feed');
                """ + (marked ? "" : "PRAGMA application_id = 0;"))
            let store = try SQLiteBridgeStore(path: path)
            #expect(try await store.allEvents() == [StoreFixture.event(minute: 0)])
            #expect(try await store.openingRecords().count == 1)
            let moved = StoreFixture.record("ndw-1", version: 2, minute: 20)
            _ = try await store.upsertEvents([StoreFixture.record("ndw-1", version: 1, minute: 10)])
            #expect(try await store.upsertEvents([moved]) == UpsertCounts(updated: 1))
            #expect(try await store.events(matching: EventQuery(status: .planned)) == [moved])
        }
    }

    @Test("a v8 store (status written 'observed' under a CHECK) migrates: its rows kept, observed stored as NULL")
    func migratesTheV8Schema() async throws {
        let (path, planned) = try await Self.storeWithRecord()
        // The events table as v8 left it.
        try await Self.rewrite(path, """
            ALTER TABLE events RENAME TO events_v9;
            CREATE TABLE events (
                bridge_id TEXT NOT NULL REFERENCES bridges(id), opened_at TEXT NOT NULL, entity_name TEXT NOT NULL,
                open_local TEXT NOT NULL, closed_at TEXT, close_local TEXT, minutes_open INTEGER,
                duration_minutes REAL, latitude REAL, longitude REAL,
                status TEXT NOT NULL DEFAULT 'observed' CHECK (status IN ('observed', 'planned')),
                record_id TEXT, record_version INTEGER,
                PRIMARY KEY (bridge_id, opened_at), CHECK (closed_at IS NULL OR closed_at >= opened_at)
            ) WITHOUT ROWID;
            INSERT INTO events SELECT bridge_id, opened_at, entity_name, open_local, closed_at, close_local,
                minutes_open, duration_minutes, latitude, longitude, coalesce(status, 'observed'), record_id,
                record_version FROM events_v9;
            DROP TABLE events_v9;
            CREATE INDEX events_by_time ON events (opened_at);
            CREATE INDEX events_by_record ON events (record_id) WHERE record_id IS NOT NULL;
            DROP TABLE event_records;
            DROP TABLE live_feed;
            DELETE FROM grdb_migrations WHERE identifier IN ('v9: observed openings store no status',
                                                             'v11: record ids beside the events',
                                                             'v13: openings seen live, and the live state feed');
            """)
        let queue = try Self.waitingQueue(path)
        #expect(try await queue.read { try String.fetchAll($0, sql: "SELECT status FROM events ORDER BY status") }
                == ["observed", "planned"])
        try queue.close()
        let store = try SQLiteBridgeStore(path: path)
        #expect(Set(try await store.allEvents()) == [StoreFixture.event(minute: 0), planned])
        #expect(try await store.events(matching: EventQuery(status: .observed)) == [StoreFixture.event(minute: 0)])
        #expect(try await store.events(matching: EventQuery(status: .planned)) == [planned])
        #expect(try await store.openingRecords().count == 1)
        let migrated = try Self.waitingQueue(path)
        #expect(try await migrated.read { try String?.fetchAll($0, sql: "SELECT status FROM events ORDER BY status") }
                == [nil, "planned"])
        #expect(try await migrated.read { try String.fetchOne($0, sql: "PRAGMA integrity_check") } == "ok")
        try migrated.close()
    }

    @Test("a v10 store (record ids in a partial index) migrates: its records are listed and still replaced")
    func migratesTheV10Schema() async throws {
        let (path, _) = try await Self.storeWithRecord()
        try await Self.rewrite(path, """
            DROP TABLE event_records;
            CREATE INDEX events_by_record ON events (record_id) WHERE record_id IS NOT NULL;
            DELETE FROM grdb_migrations WHERE identifier = 'v11: record ids beside the events';
            """)
        let store = try SQLiteBridgeStore(path: path)
        let migrated = try Self.waitingQueue(path)
        #expect(try await migrated.read { try String.fetchAll($0, sql: "SELECT record_id FROM event_records") }
                == ["ndw-1"])
        #expect(try await migrated.read {
            try Int.fetchOne($0, sql: "SELECT count(*) FROM sqlite_master WHERE name = 'events_by_record'")
        } == 0)
        try migrated.close()
        // The listed record is found: an older version is left, a newer one at another opening replaces it.
        #expect(try await store.upsertEvents([StoreFixture.record("ndw-1", version: 0, minute: 30)])
                == UpsertCounts(unchanged: 1))
        let moved = StoreFixture.record("ndw-1", version: 2, minute: 20)
        #expect(try await store.upsertEvents([moved]) == UpsertCounts(updated: 1))
        #expect(Set(try await store.allEvents()) == [StoreFixture.event(minute: 0), moved])
        // Pruning the events prunes their listing too.
        #expect(try await store.deleteEvents(openedBefore: moved.openedAt.addingTimeInterval(60)) == 2)
        let pruned = try Self.waitingQueue(path)
        #expect(try await pruned.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM event_records") } == 0)
        try pruned.close()
    }

    @Test("read-only: reads the store as it is and writes nothing; a missing or outdated store is refused")
    func readOnly() async throws {
        let path = TemporaryFolder().path + "/store.sqlite"
        try await Self.store(at: path, with: (0..<3).map { StoreFixture.event(minute: $0) })
        let reader = try SQLiteBridgeStore(path: path, access: .readOnly)
        #expect(reader.isReadOnly)
        #expect(try await reader.eventCount(bridgeID: nil) == 3)
        #expect(try await reader.historyVersion() > 0)
        let refused = await #expect(throws: StoreError.self) {
            _ = try await reader.upsertEvents([StoreFixture.event(minute: 9)])
        }
        #expect(refused?.sqliteFailure == .unwritable, "\(String(describing: refused))")
        #expect(try await SQLiteBridgeStore(path: path).eventCount(bridgeID: nil) == 3)

        #expect(throws: StoreError.missing(path: path + "-missing", isEmptyFile: false)) {
            _ = try SQLiteBridgeStore(path: path + "-missing", access: .readOnly)
        }
        #expect(!FileManager.default.fileExists(atPath: path + "-missing"))

        // A store one migration behind needs a write to upgrade: read-only refuses it and leaves it as it was.
        let queue = try DatabaseQueue(path: path)
        let last = try await queue.write { db in
            let last = try String.fetchOne(db, sql: "SELECT max(identifier) FROM grdb_migrations")
            try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = ?", arguments: [last])
            return last
        }
        #expect(throws: StoreError.outdated(path: path)) { _ = try SQLiteBridgeStore(path: path, access: .readOnly) }
        #expect(try await queue.read { db in
            try String.fetchOne(db, sql: "SELECT max(identifier) FROM grdb_migrations")
        } != last)
    }

    @Test("read-write on first write: reading writes nothing to open or close; the first write opens the writer")
    func readWriteOnFirstWrite() async throws {
        let path = TemporaryFolder().path + "/store.sqlite"
        // Everything in the file, and the writer closed.
        try await Self.store(at: path, with: (0..<3).map { StoreFixture.event(minute: $0) }).checkpoint()
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        func logBytes() -> Int {
            (try? FileManager.default.attributesOfItem(atPath: path + "-wal"))?[.size] as? Int ?? 0
        }
        #expect(logBytes() == 0)
        do {
            let reader = try SQLiteBridgeStore(path: path, access: .readWriteOnFirstWrite)
            #expect(!reader.isReadOnly)
            #expect(try await reader.eventCount(bridgeID: nil) == 3)
            #expect(try await reader.openingModels(bridgeIDs: ["1"]).isEmpty)
        }
        // Opened read-write, SQLite's log gets a commit as the store opens and is copied into the file as it closes.
        #expect(logBytes() == 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)

        let store = try SQLiteBridgeStore(path: path, access: .readWriteOnFirstWrite)
        #expect(try await store.upsertEvents([StoreFixture.event(minute: 9)]) == UpsertCounts(inserted: 1))
        #expect(try await store.eventCount(bridgeID: nil) == 4)
        #expect(try await SQLiteBridgeStore(path: path, access: .readOnly).eventCount(bridgeID: nil) == 4)
        try await store.checkpoint()
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) != before)

        // A store one migration behind is migrated as it opens, as read-write would.
        let queue = try DatabaseQueue(path: path)
        try await queue.write { db in
            try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = (SELECT max(identifier) FROM grdb_migrations)")
        }
        try queue.close()
        #expect(throws: StoreError.outdated(path: path)) { _ = try SQLiteBridgeStore(path: path, access: .readOnly) }
        let migrated = try SQLiteBridgeStore(path: path, access: .readWriteOnFirstWrite)
        #expect(try await migrated.eventCount(bridgeID: nil) == 4)
        _ = try SQLiteBridgeStore(path: path, access: .readOnly)
    }

    /// The files SQLite leaves beside a database while it writes or reads one in WAL mode.
    static func sideFiles(_ path: String) -> [String] {
        ["-wal", "-shm", "-journal"].map { path + $0 }.filter { FileManager.default.fileExists(atPath: $0) }
    }

    @Test("another application's database is refused before anything writes, read-write and read-only alike")
    func foreignDatabase() async throws {
        let path = TemporaryFolder().path + "/places.sqlite"
        let queue = try DatabaseQueue(path: path)
        try await queue.writeWithoutTransaction { db in
            try db.execute(sql: """
                PRAGMA journal_mode = WAL;
                CREATE TABLE moz_places (id INTEGER PRIMARY KEY, url TEXT);
                INSERT INTO moz_places (url) VALUES ('https://example.org/');
                """)
        }
        try queue.close()
        let original = FileManager.default.contents(atPath: path)
        for access in [SQLiteBridgeStore.Access.readWrite, .readOnly] {
            let error = #expect(throws: StoreError.foreign(path: path, applicationID: 0, userVersion: 0,
                                                           tables: ["moz_places"])) {
                _ = try SQLiteBridgeStore(path: path, access: access)
            }
            #expect(error?.code == "store.foreign")
            #expect(error?.description.contains("is a SQLite database of another application (application_id 0, "
                + "tables: moz_places), not a Bridget store") == true, "\(String(describing: error))")
            #expect(FileManager.default.contents(atPath: path) == original)
            #expect(Self.sideFiles(path).isEmpty)
        }
    }

    @Test("a new store and an empty file are marked with Bridget's application_id before the switch to WAL")
    func marked() async throws {
        let folder = TemporaryFolder().path
        try Data().write(to: URL(fileURLWithPath: folder + "/empty.sqlite"))
        for name in ["new.sqlite", "empty.sqlite"] {
            let path = folder + "/" + name
            _ = try SQLiteBridgeStore(path: path)
            // The mark is in the file itself, not only in its log: read the header's bytes 68-71.
            let header = try #require(FileManager.default.contents(atPath: path)?.prefix(72))
            #expect(Array(header.suffix(4)) == Array("BRDG".utf8))
            #expect(SQLiteBridgeStore.applicationID == 0x4252_4447)
        }
    }

    @Test("a store made before the mark is recognised by its schema and marked; one with a table of its own is not")
    func unmarkedStores() async throws {
        let path = TemporaryFolder().path + "/store.sqlite"
        try await Self.store(at: path, with: [StoreFixture.event(minute: 0)])
        // The store's background checkpoint may still hold the file a moment (a loaded clean-clone run once saw
        // "database is locked" here): wait for it, as the store itself does.
        var waiting = Configuration()
        waiting.busyMode = .timeout(10)
        let queue = try DatabaseQueue(path: path, configuration: waiting)
        try await queue.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA application_id = 0") }
        let reader = try SQLiteBridgeStore(path: path, access: .readOnly)
        #expect(try await reader.eventCount(bridgeID: nil) == 1)
        #expect(try await queue.read { db in try Int32.fetchOne(db, sql: "PRAGMA application_id") } == 0)
        #expect(try await SQLiteBridgeStore(path: path).eventCount(bridgeID: nil) == 1)
        #expect(try await queue.read { db in try Int32.fetchOne(db, sql: "PRAGMA application_id") }
                == SQLiteBridgeStore.applicationID)

        try await queue.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA application_id = 0; CREATE TABLE notes (text TEXT)")
        }
        try queue.close()
        let error = #expect(throws: StoreError.foreignTables(path: path, tables: ["notes"])) {
            _ = try SQLiteBridgeStore(path: path)
        }
        #expect(error?.description.contains("tables of another application (notes)") == true,
                "\(String(describing: error))")
    }

    @Test("a database whose tables are still only in its write-ahead log is read with its log, or refused without its index")
    func tablesOnlyInTheLog() async throws {
        let folder = TemporaryFolder().path
        let path = folder + "/live.sqlite"
        let queue = try DatabaseQueue(path: path)
        try await queue.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0")
            try db.execute(sql: "CREATE TABLE moz_places (id INTEGER PRIMARY KEY)")
        }
        // Copies while it is open: the file has no table yet, its log has one (as after a crash, or while it is used).
        let withIndex = folder + "/with-index.sqlite"
        let withoutIndex = folder + "/without-index.sqlite"
        for (copy, suffixes) in [(withIndex, ["", "-wal", "-shm"]), (withoutIndex, ["", "-wal"])] {
            for suffix in suffixes { try FileManager.default.copyItem(atPath: path + suffix, toPath: copy + suffix) }
        }
        try queue.close()
        for copy in [withIndex, withoutIndex] {
            let original = (FileManager.default.contents(atPath: copy), FileManager.default.contents(atPath: copy + "-wal"))
            let error = #expect(throws: StoreError.self) { _ = try SQLiteBridgeStore(path: copy) }
            if copy == withIndex {
                #expect(error == .foreign(path: copy, applicationID: 0, userVersion: 0, tables: ["moz_places"]))
                #expect(error?.description.contains("tables: moz_places") == true, "\(String(describing: error))")
            } else {
                #expect(error == .unverifiableLog(path: copy))
                #expect(error?.description.contains("write-ahead log") == true, "\(String(describing: error))")
                #expect(!FileManager.default.fileExists(atPath: copy + "-shm"))
            }
            #expect(FileManager.default.contents(atPath: copy) == original.0)
            #expect(FileManager.default.contents(atPath: copy + "-wal") == original.1)
        }
    }

    @Test("a folder or a device at the store path is named for what it is")
    func notAFile() throws {
        let folder = TemporaryFolder().path
        for access in [SQLiteBridgeStore.Access.readWrite, .readOnly] {
            let asFolder = #expect(throws: StoreError.isFolder(path: folder)) {
                _ = try SQLiteBridgeStore(path: folder, access: access)
            }
            #expect(asFolder?.description == "the store path \(folder) is a folder, not a file")
            let device = #expect(throws: StoreError.notRegularFile(path: "/dev/null", kind: "character device")) {
                _ = try SQLiteBridgeStore(path: "/dev/null", access: access)
            }
            #expect(device?.description == "the store path /dev/null is a character device, not a regular file")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
    }

    @Test("reopening keeps the data and applies no migration twice")
    func reopen() async throws {
        let path = TemporaryFolder().path + "/store.sqlite"
        try await Self.store(at: path, with: (0..<3).map { StoreFixture.event(minute: $0) })
        let reopened = try SQLiteBridgeStore(path: path)
        #expect(try await reopened.eventCount(bridgeID: nil) == 3)
    }
}
