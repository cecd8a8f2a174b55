import BridgetDTOs
import BridgetPersistence
import BridgetPersistenceTesting
import BridgetPostgres
import Foundation
import PostgresNIO
import Testing

@Suite("PostgreSQL store")
struct PostgresStoreTests {
    // MARK: Wake-ups

    @Test("a commit through another host's store wakes this store's readers (LISTEN/NOTIFY); another schema's does not")
    func wakeupsAcrossHosts() async throws {
        let schema = TestServer.freshSchema()
        let here = try await TestServer.store(schema: schema)
        let there = try await TestServer.store(schema: schema)
        let elsewhere = try await TestServer.store()
        try await there.upsertBridges(BridgeCatalog.seattle.bridges)
        try await elsewhere.upsertBridges(BridgeCatalog.seattle.bridges)
        let heard = WakeupCounter(here.changeWakeups())
        defer { heard.stop() }
        #expect(await heard.listens(), "the store's wake-ups never said they listen")
        // Another schema's commit is not this store's: it wakes nothing here (the payload names the schema).
        let quiet = await heard.quietCount()
        _ = try await elsewhere.upsertEvents([StoreFixture.event(StoreFixture.ballard, minute: 1, minutes: 4)])
        #expect(await heard.quietCount() == quiet, "another schema's commit woke this store's reader")
        _ = try await there.upsertEvents([StoreFixture.event(StoreFixture.ballard, minute: 2, minutes: 4)])
        #expect(await heard.grows(past: quiet), "a commit on another host did not wake the reader")
        // A change written by plain SQL (any client of the database) notifies too: the trigger is the table's.
        let again = await heard.quietCount()
        try await TestServer.sql("""
            INSERT INTO change_log (recorded_ms, kind, summary) VALUES (0, 'bulk', '{}')
            """, schema: schema)
        #expect(await heard.grows(past: again), "an insert into change_log did not notify")
    }

    @Test("a listening connection that the server ends is made again: a commit after it still wakes the reader")
    func wakeupsOutliveTheirConnection() async throws {
        let schema = TestServer.freshSchema()
        let here = try await TestServer.store(schema: schema)
        let there = try await TestServer.store(schema: schema)
        try await there.upsertBridges(BridgeCatalog.seattle.bridges)
        let heard = WakeupCounter(here.changeWakeups())
        defer { heard.stop() }
        #expect(await heard.listens(), "the store's wake-ups never said they listen")
        let listening = await heard.quietCount()
        // Every listening session of the database ends (another test's listener makes itself again as this one does).
        try await TestServer.sql("""
            SELECT pg_terminate_backend(pid)::text FROM pg_stat_activity
            WHERE datname = current_database() AND query LIKE 'LISTEN%' AND pid <> pg_backend_pid()
            """)
        // The listener makes its connection again and says so with a wake-up: a commit may have come between.
        #expect(await heard.grows(past: listening), "the lost listening connection was not made again")
        let again = await heard.quietCount()
        _ = try await there.upsertEvents([StoreFixture.event(StoreFixture.ballard, minute: 3, minutes: 4)])
        #expect(await heard.grows(past: again), "a commit after the reconnection did not wake the reader")
    }

    // MARK: Opening

    @Test("a schema another application uses is refused and left as it was")
    func foreignSchema() async throws {
        let schema = TestServer.freshSchema()
        try await TestServer.sql("CREATE SCHEMA \(schema)")
        try await TestServer.sql("CREATE TABLE \(schema).customers (id int)")
        try await TestServer.sql("INSERT INTO \(schema).customers VALUES (7)")
        let error = await #expect(throws: PostgresStoreError.self) { try await TestServer.store(schema: schema) }
        guard case .foreign(_, let tables) = error else { Issue.record("\(String(describing: error))"); return }
        #expect(tables == ["customers"])
        #expect(error?.code == "store.foreign")
        #expect(try await TestServer.sql("SELECT id::text FROM \(schema).customers") == ["7"])
        #expect(try await TestServer.sql(
            "SELECT count(*)::text FROM information_schema.tables WHERE table_schema = '\(schema)'") == ["1"])
    }

    @Test("a store written by a newer Bridget is refused, never rewritten")
    func newerSchema() async throws {
        let schema = TestServer.freshSchema()
        _ = try await TestServer.store(schema: schema)
        try await TestServer.sql("INSERT INTO \(schema).bridget_schema (version, description) VALUES (99, 'future')")
        let error = await #expect(throws: PostgresStoreError.self) { try await TestServer.store(schema: schema) }
        guard case .newer(_, let version, _) = error else { Issue.record("\(String(describing: error))"); return }
        #expect(version == 99)
        #expect(try await TestServer.sql("SELECT max(version)::text FROM \(schema).bridget_schema") == ["99"])
    }

    @Test("processes opening one new store at once migrate it once")
    func concurrentMigrations() async throws {
        let schema = TestServer.freshSchema()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<4 { group.addTask { _ = try await TestServer.store(schema: schema) } }
            try await group.waitForAll()
        }
        #expect(try await TestServer.sql("SELECT count(*)::text FROM \(schema).bridget_schema") == ["8"]) // each migration once
    }

    @Test("a wrong password is refused by name, and the message holds no password")
    func wrongPassword() async throws {
        var settings = try TestServer.settings()
        settings.password = "not-the-password-\(UUID().uuidString)"
        let secret = settings.password!
        let error = await #expect(throws: PostgresStoreError.self) { try await PostgresBridgeStore(settings: settings) }
        guard case .authentication = error else { Issue.record("\(String(describing: error))"); return }
        #expect(error.map { !"\($0)".contains(secret) && !String(reflecting: $0).contains(secret) } == true)
    }

    @Test("a refused connection says so, with the address")
    func refusedConnection() async throws {
        var settings = try TestServer.settings()
        settings.port = 1 // nothing listens on port 1 of 127.0.0.1
        let error = await #expect(throws: PostgresStoreError.self) { try await PostgresBridgeStore(settings: settings) }
        guard case .unreachable(let address, let reason) = error else { Issue.record("\(String(describing: error))"); return }
        #expect(address.hasSuffix(":1"))
        #expect(reason.contains("refused"))
        #expect(error?.isTemporary == true)
    }

    @Test("sslmode require against a server without TLS says so; prefer falls back to plain")
    func tlsRequired() async throws {
        var settings = try TestServer.settings()
        settings.sslMode = .require
        let error = await #expect(throws: PostgresStoreError.self) { try await PostgresBridgeStore(settings: settings) }
        guard case .unreachable(_, let reason) = error else { Issue.record("\(String(describing: error))"); return }
        #expect(reason.contains("does not offer TLS"))
        settings.sslMode = .prefer
        let store = try await PostgresBridgeStore(settings: settings)
        #expect(try await store.integrityCheck() == "ok")
    }

    @Test("a database that does not exist is named")
    func missingDatabase() async throws {
        var settings = try TestServer.settings()
        settings.database = "no_such_database"
        let error = await #expect(throws: PostgresStoreError.self) { try await PostgresBridgeStore(settings: settings) }
        #expect(error == .noDatabase(database: "no_such_database", address: settings.address))
    }

    @Test("a URL with a password, another scheme or no database is refused without repeating it",
          arguments: ["postgres://bridget:hunter2@127.0.0.1/bridget", "mysql://bridget@127.0.0.1/bridget",
                      "postgres://bridget@127.0.0.1", "postgres://127.0.0.1/bridget", "not a url at all",
                      "postgres://bridget@127.0.0.1/bridget?sslmode=disable", "postgres://bridget@127.0.0.1:99999/bridget"])
    func badURLs(_ url: String) throws {
        let error = #expect(throws: PostgresStoreError.self) { try PostgresStoreSettings(url: url) }
        guard case .invalidURL(let reason) = error else { Issue.record("\(String(describing: error))"); return }
        #expect(!reason.contains("hunter2"))
        #expect(!reason.isEmpty)
    }

    @Test("a schema that is not a plain name is refused (it is written into SQL)",
          arguments: ["Public", "a-b", "x; DROP TABLE events", "", "1abc", "pg_bridget"])
    func badSchemas(_ schema: String) {
        #expect(throws: PostgresStoreError.self) {
            try PostgresStoreSettings(url: "postgres://bridget@127.0.0.1/bridget", schema: schema)
        }
    }

    @Test("a reserved word is a schema like any other (it is quoted)")
    func reservedWordSchema() async throws {
        let word = "select"
        _ = try? await TestServer.sql("DROP SCHEMA IF EXISTS \"select\" CASCADE")
        let store = try await TestServer.store(schema: word)
        try await store.upsertBridges(BridgeCatalog.seattle.bridges)
        #expect(try await store.upsertEvents([StoreFixture.event(minute: 1)]) == UpsertCounts(inserted: 1))
    }

    @Test("verify-full needs a host name, not an address")
    func verifyFullNeedsAName() {
        #expect(throws: PostgresStoreError.self) {
            try PostgresStoreSettings(url: "postgres://bridget@127.0.0.1/bridget", sslMode: .verifyFull)
        }
        #expect(throws: Never.self) {
            try PostgresStoreSettings(url: "postgres://bridget@db.example/bridget", sslMode: .verifyFull)
        }
    }

    @Test("settings describe themselves without the password")
    func settingsDescription() throws {
        let settings = try PostgresStoreSettings(url: "postgres://bridget@db.example:5433/bridget", password: "s3cret",
                                                 schema: "city")
        #expect(settings.description == "postgres://bridget@db.example:5433/bridget (schema city)")
        #expect(!String(reflecting: settings).contains("s3cret"))
        var dumped = ""
        dump(settings, to: &dumped)
        #expect(!dumped.contains("s3cret"))
        #expect(dumped.contains("db.example"))
    }

    // MARK: Writing

    @Test("a large batch goes in as one statement, counted; again, unchanged; changed, updated")
    func bulkUpsert() async throws {
        let store = try await TestServer.store()
        try await store.upsertBridges(BridgeCatalog.seattle.bridges)
        let events = (0..<5000).map { StoreFixture.event(minute: $0 * 20) }
        #expect(try await store.upsertEvents(events) == UpsertCounts(inserted: 5000))
        let version = try await store.historyVersion()
        #expect(try await store.upsertEvents(events) == UpsertCounts(unchanged: 5000))
        #expect(try await store.historyVersion() == version)
        let changed = (0..<10).map { StoreFixture.event(minute: $0 * 20, minutes: 9) }
        #expect(try await store.upsertEvents(changed) == UpsertCounts(updated: 10))
        #expect(try await store.historyVersion() > version)
        #expect(try await store.eventCount(bridgeID: nil) == 5000)
        #expect(try await store.allEvents().prefix(3).map(\.minutesOpen) == [9, 9, 9])
    }

    @Test("instants keep their milliseconds exactly as the SQLite store does")
    func milliseconds() async throws {
        let store = try await TestServer.store()
        try await store.upsertBridges(BridgeCatalog.seattle.bridges)
        let events = [0, 1, 499, 500, 999].map { StoreFixture.event(minute: $0, milliseconds: $0) }
        _ = try await store.upsertEvents(events)
        #expect(try await store.allEvents() == events)
    }

    @Test("texts with tabs, newlines and backslashes go through the bulk path and read back exactly")
    func awkwardTexts() async throws {
        let store = try await TestServer.store()
        try await store.upsertBridges(BridgeCatalog.seattle.bridges)
        let plain = StoreFixture.event(minute: 0)
        let awkward = BridgeEventDTO(
            bridgeID: plain.bridgeID, bridgeName: "Fre\tmont \\N\nBridge\r é", openedAt: plain.openedAt,
            openLocal: plain.openLocal, closedAt: nil, closeLocal: nil, minutesOpen: nil, latitude: 1e-7,
            longitude: -122.349_712_345_678_9)
        #expect(try await store.upsertEvents([awkward]) == UpsertCounts(inserted: 1))
        #expect(try await store.allEvents() == [awkward])
        #expect(try await store.upsertEvents([awkward]) == UpsertCounts(unchanged: 1))
    }

    @Test("a key another writer commits while the batch is being copied: the batch falls back to the upsert")
    func copyFallsBackToTheUpsert() async throws {
        let schema = TestServer.freshSchema()
        let store = try await TestServer.store(schema: schema)
        try await store.upsertBridges(BridgeCatalog.seattle.bridges)
        let events = (0..<100).map { StoreFixture.event(minute: $0) }
        // Another writer holds the 50th opening in an open transaction: the batch's range check cannot see it, so
        // the batch takes COPY, which waits on that key until the other commits, then fails on it.
        let other = try await TestServer.connection(schema: schema)
        try await other.query("BEGIN", logger: TestServer.logger)
        try await other.query(PostgresQuery(unsafeSQL: """
            INSERT INTO events (bridge_id, opened_ms, entity_name, open_local) VALUES \
            ('3', \(Int64(events[50].openedAt.timeIntervalSince1970 * 1000)), 'Fremont', '\(events[50].openLocal)')
            """), logger: TestServer.logger)
        let writing = Task { try await store.upsertEvents(events) }
        // Commit only once the batch's COPY waits on that key (so this is the fallback, not the upsert from the start).
        var waiting = false
        for _ in 0..<1_200 where !waiting { // two minutes: a hang detector
            try await Task.sleep(for: .milliseconds(100))
            waiting = try await TestServer.sql("""
                SELECT count(*)::text FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'COPY%events%'
                """) == ["1"]
        }
        #expect(waiting, "the batch's COPY never waited on the held key")
        try await other.query("COMMIT", logger: TestServer.logger)
        try await other.close()
        // The held row differs (no closing, no coordinates), so the upsert updates it.
        #expect(try await writing.value == UpsertCounts(inserted: 99, updated: 1))
        #expect(try await store.allEvents() == events)
    }

    @Test("a batch the server refuses (a closing before its opening) keeps nothing, not its checkpoint either")
    func refusedBatchKeepsNothing() async throws {
        let store = try await TestServer.store()
        try await store.upsertBridges(BridgeCatalog.seattle.bridges)
        let good = StoreFixture.event(minute: 0)
        let backwards = BridgeEventDTO(
            bridgeID: good.bridgeID, bridgeName: good.bridgeName, openedAt: good.openedAt.addingTimeInterval(600),
            openLocal: good.openLocal, closedAt: good.openedAt, closeLocal: good.closeLocal, minutesOpen: 5,
            latitude: good.latitude, longitude: good.longitude)
        let checkpoint = ImportCheckpoint(source: "/tmp/refused.ndjson", identity: "x", offset: 100)
        await #expect(throws: PostgresStoreError.self) {
            try await store.upsertEvents([good, backwards], checkpoint: checkpoint)
        }
        #expect(try await store.eventCount(bridgeID: nil) == 0)
        #expect(try await store.importCheckpoint(source: checkpoint.source) == nil)
        #expect(try await store.upsertEvents([good]) == UpsertCounts(inserted: 1)) // the transaction ended cleanly
    }

    @Test("a bridge given twice in one call: the last wins, as saving them one by one")
    func bridgeTwice() async throws {
        let store = try await TestServer.store()
        let fremont = StoreFixture.fremont
        let renamed = BridgeInfoDTO(id: fremont.id, name: "Renamed", displayName: "Renamed Bridge", latitude: fremont.latitude,
                                    longitude: fremont.longitude, waterway: fremont.waterway, kind: fremont.kind)
        try await store.upsertBridges([fremont, renamed])
        #expect(try await store.bridges() == [renamed])
    }

    @Test("two writers racing the same new rows: each row stored once, counted once as inserted")
    func racingWriters() async throws {
        let schema = TestServer.freshSchema()
        let first = try await TestServer.store(schema: schema)
        let second = try await TestServer.store(schema: schema)
        try await first.upsertBridges(BridgeCatalog.seattle.bridges)
        let events = (0..<5000).map { StoreFixture.event(minute: $0) }
        async let a = first.upsertEvents(events)
        async let b = second.upsertEvents(events)
        let (countsA, countsB) = try await (a, b)
        #expect(countsA.inserted + countsB.inserted == 5000)
        #expect(countsA.unchanged + countsB.unchanged == 5000)
        #expect(try await first.eventCount(bridgeID: nil) == 5000)
    }

    // MARK: The sync lock

    @Test("one sync at a time across processes: a second holder is told who holds it, then takes it once free")
    func syncLock() async throws {
        let schema = TestServer.freshSchema()
        let first = try await TestServer.store(schema: schema)
        let second = try await TestServer.store(schema: schema)
        let (entered, enteredSignal) = AsyncStream<Void>.makeStream()
        let (release, releaseSignal) = AsyncStream<Void>.makeStream()
        let holding = Task {
            try await first.withSyncLock(holder: "host-a pid 11") {
                let run = try await first.startSyncRun(provider: "sample", startedAt: Date(), watermarkBefore: nil)
                enteredSignal.yield()
                for await _ in release { break }
                return run
            }
        }
        for await _ in entered { break }
        let refusal = await #expect(throws: SyncInProgress.self) {
            try await second.withSyncLock(holder: "host-b pid 22") { 0 }
        }
        #expect(refusal?.holder == "host-a pid 11")
        #expect(refusal?.description == "another sync is running on host-a pid 11")
        releaseSignal.yield()
        let run = try await holding.value
        #expect(try await TestServer.sql("SELECT host FROM \(schema).sync_runs WHERE id = \(run)") == ["host-a pid 11"])
        #expect(try await second.withSyncLock(holder: "host-b pid 22") { 42 } == 42)
    }

    @Test("the lock is released when the body throws")
    func syncLockReleasedOnError() async throws {
        struct Boom: Error {}
        let schema = TestServer.freshSchema()
        let store = try await TestServer.store(schema: schema)
        await #expect(throws: Boom.self) { try await store.withSyncLock(holder: "a") { throw Boom() } }
        let other = try await TestServer.store(schema: schema)
        #expect(try await other.withSyncLock(holder: "b") { true })
    }
}
