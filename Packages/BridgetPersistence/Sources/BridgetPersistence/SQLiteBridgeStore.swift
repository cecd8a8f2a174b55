import BridgetDTOs
import CSQLiteSettings
import Foundation
import GRDB
import GRDBSQLite

/// The SQLite store (GRDB over the system libsqlite3): WAL, foreign keys, versioned migrations, and bulk upserts
/// through cached prepared statements, one transaction per batch.
public final class SQLiteBridgeStore: BridgeStore {
    /// The database file.
    public let path: String
    /// Whether this store only reads (see `Access.readOnly`).
    public let isReadOnly: Bool
    let pool: DatabasePool
    /// Checkpoints the log beside bulk writes; `nil` for a read-only store.
    private let checkpointer: BackgroundCheckpointer?

    /// How a store is opened.
    public enum Access: Sendable {
        /// Created if missing and migrated: what every command that writes needs.
        case readWrite
        /// An existing store, read as it is and never written: for reading a store on a read-only disk or folder.
        /// It must already be at this version's schema, since upgrading it would be a write.
        case readOnly
    }

    /// Turns off SQLite's memory statistics for the whole process, which a program that never reads them (as
    /// Bridget's) is better without: they take a global mutex around each of SQLite's allocations and frees. With
    /// them off, a million-row import took about 7% less time and CPU in alternating runs. What goes with them:
    /// `sqlite3_memory_used()` and the soft heap limit's accounting, which Bridget does not use.
    ///
    /// A process-wide setting, so the program decides, not a store: call it first thing in `main`, before any
    /// other thread exists (SQLite's configuration is not safe to change while another thread may be starting
    /// SQLite). Returns whether it took effect: false once SQLite has been used in the process.
    @discardableResult
    public static func disableSQLiteMemoryStatistics() -> Bool {
        bridget_sqlite_disable_memory_statistics() == SQLITE_OK
    }

    /// Bridget's `PRAGMA application_id`, "BRDG" in ASCII: set in a store's header as it is made, so that a SQLite file
    /// of another application is told apart and left alone.
    public static let applicationID: Int32 = 0x4252_4447

    /// Opens the store at `path`. Read-write (the default) creates it and its folder if needed and applies
    /// migrations; read-only opens an existing, current store without writing anything, not even SQLite's
    /// shared-memory file when the store is on a read-only file system.
    ///
    /// Before anything is written, the path is looked at (`StoreFile`): a folder, a device, a file that is not SQLite
    /// or another application's SQLite database is refused and left as it was (a `BridgetError`, exit 78, or 74 for a
    /// file that is not SQLite, which may be a damaged store). A store made before Bridget marked its stores is
    /// recognised by its schema and marked when opened read-write.
    ///
    /// Also throws a `BridgetError` (exit 74) when the folder cannot be created or written, or the file is damaged,
    /// or was written by a newer Bridget; read-only, also when there is no store yet (exit 66) or it needs an upgrade.
    public init(path: String, busyTimeout: TimeInterval = 10, access: Access = .readWrite) throws {
        self.path = path
        isReadOnly = access == .readOnly
        let contents = try StoreFile.inspect(path)
        var configuration = Configuration()
        configuration.busyMode = .timeout(busyTimeout)
        configuration.foreignKeysEnabled = true
        configuration.label = "bridget"
        configuration.prepareDatabase { db in
            // A new file gets 16 KB pages (SQLite's default is 4 KB): a million-row import then makes 40,000 page
            // writes and 12,000 reads instead of 149,000 and 49,000, and took about 8% less time in alternating runs.
            // A file that exists keeps its page size.
            try db.execute(sql: "PRAGMA page_size = 16384")
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            // 8 MB of page cache (grown only as used), four times SQLite's default: an import batch's dirty pages
            // stay in memory until its commit instead of spilling into the WAL. 32 MB bought no speed the noise could
            // show, and made a million-row import's peak memory grow with the file.
            try db.execute(sql: "PRAGMA cache_size = -8192")
        }
        switch access {
        case .readWrite:
            if contents != .marked {
                // The writer connection marks the file as it opens, before the pool switches it to WAL: a new store
                // then carries the mark in its own header from its first write, where `StoreFile` reads it even when
                // the rest is still in the log. (Readers are read-only and skip it.)
                configuration.prepareDatabase { db in
                    guard !db.configuration.readonly else { return }
                    try db.execute(sql: "PRAGMA application_id = \(Self.applicationID)")
                }
            }
            configuration.prepareDatabase { db in
                try db.execute(sql: "PRAGMA wal_autocheckpoint = \(BackgroundCheckpointer.writerThreshold)")
            }
            pool = try Self.openReadWrite(path, configuration)
            checkpointer = BackgroundCheckpointer(path: path)
        case .readOnly:
            guard contents == .marked || contents == .unmarked else {
                throw BridgetError.data(
                    "store-missing",
                    contents == .absent ? "there is no store at \(path) to read"
                        : "there is no store at \(path) to read (the file is empty)",
                    hint: "run `bridget sync` or `bridget import` where the store can be written", exitCode: 66)
            }
            pool = try Self.openReadOnly(path, configuration)
            checkpointer = nil
        }
    }

    private static func openReadWrite(_ path: String, _ configuration: Configuration) throws -> DatabasePool {
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw BridgetError.data(
                "store-folder", "cannot create the store's folder \(folder): \(error.localizedDescription)",
                hint: "choose a writable store.path in the config, or set BRIDGET_STORE_PATH", exitCode: 74)
        }
        do {
            let pool = try DatabasePool(path: path, configuration: configuration)
            let migrator = StoreSchema.migrator
            if try pool.read({ db in try migrator.hasBeenSuperseded(db) }) { throw newerStore(path) }
            // Another process may be migrating the same new file (each migration is its own transaction): when ours
            // collides with one it already applied, wait a little and look again, until every migration is in.
            var attempt = 0
            while true {
                do {
                    try migrator.migrate(pool)
                    break
                } catch {
                    if try pool.read({ db in try migrator.hasCompletedMigrations(db) }) { break }
                    attempt += 1
                    guard attempt < 50 else { throw error }
                    usleep(100_000)
                }
            }
            return pool
        } catch let error as BridgetError {
            throw error
        } catch {
            throw storeError(error, path: path, action: "open")
        }
    }

    private static func openReadOnly(_ path: String, _ configuration: Configuration) throws -> DatabasePool {
        var configuration = configuration
        configuration.readonly = true
        let migrator = StoreSchema.migrator
        func open(_ location: String) throws -> DatabasePool {
            let pool = try DatabasePool(path: location, configuration: configuration)
            if try pool.read({ db in try migrator.hasBeenSuperseded(db) }) { throw newerStore(path) }
            guard try pool.read({ db in try migrator.hasCompletedMigrations(db) }) else {
                throw BridgetError.data(
                    "store-outdated", "the store at \(path) needs an upgrade, which cannot be written there",
                    hint: "run any bridget command once where the store can be written", exitCode: 74)
            }
            return pool
        }
        do {
            do {
                return try open(path)
            } catch let error as DatabaseError where error.resultCode == .SQLITE_CANTOPEN && onReadOnlyDisk(path) {
                // A WAL store on a read-only file system has no shared-memory file and cannot get one, so SQLite
                // cannot open it with its locks. Nothing can write there either, so it is read as immutable, which
                // needs neither. (A folder that only this user cannot write is not enough: its owner may write the
                // store meanwhile, so that case stays an error.) Commits still in the -wal file would be invisible
                // to an immutable read, so such a store is refused instead.
                let log = (try? FileManager.default.attributesOfItem(atPath: path + "-wal"))?[.size] as? Int ?? 0
                guard log == 0 else {
                    throw BridgetError.data(
                        "store-unwritable", "the store at \(path) is on a read-only disk with commits still in its "
                            + "write-ahead log (\(path)-wal), which cannot be read without writing",
                        hint: "open it once where it can be written (any bridget command), then read it here",
                        exitCode: 74)
                }
                return try open(StoreFile.immutableURI(path))
            }
        } catch let error as BridgetError {
            throw error
        } catch {
            throw storeError(error, path: path, action: "open")
        }
    }

    /// Whether the file system holding `path` is mounted read-only.
    private static func onReadOnlyDisk(_ path: String) -> Bool {
        var status = statvfs()
        guard statvfs(path, &status) == 0 else { return false }
        return status.f_flag & UInt(ST_RDONLY) != 0
    }

    private static func newerStore(_ path: String) -> BridgetError {
        .data("store-newer", "the store at \(path) was written by a newer version of Bridget",
              hint: "upgrade bridget, or point store.path at another file", exitCode: 74)
    }

    public func upsertBridges(_ bridges: [BridgeInfoDTO]) async throws {
        try await write("save bridges") { db in
            let statement = try db.cachedStatement(sql: """
                INSERT INTO bridges (id, name, display_name, latitude, longitude, waterway, kind)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (id) DO UPDATE SET name = excluded.name, display_name = excluded.display_name,
                    latitude = excluded.latitude, longitude = excluded.longitude,
                    waterway = excluded.waterway, kind = excluded.kind
                """)
            for bridge in bridges {
                try statement.execute(arguments: [
                    bridge.id, bridge.name, bridge.displayName, bridge.latitude, bridge.longitude, bridge.waterway,
                    bridge.kind,
                ])
            }
        }
    }

    public func bridges() async throws -> [BridgeInfoDTO] {
        try await read("read bridges") { db in
            try Row.fetchAll(db, sql: "SELECT * FROM bridges ORDER BY CAST(id AS INTEGER), id").map(Self.bridge)
        }
    }

    public func upsertEvents(_ events: [BridgeEventDTO], checkpoint: ImportCheckpoint?) async throws -> UpsertCounts {
        guard !events.isEmpty || checkpoint != nil else { return UpsertCounts() }
        // Bulk writes fill the log: it is copied into the file beside the next batch, not inside a commit.
        defer { checkpointer?.request() }
        return try await write("save events") { db in
            let insert = try db.cachedStatement(sql: """
                INSERT INTO events (bridge_id, opened_at, entity_name, open_local, closed_at, close_local,
                                    minutes_open, duration_minutes, latitude, longitude)
                VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)
                ON CONFLICT (bridge_id, opened_at) DO NOTHING
                """)
            let update = try db.cachedStatement(sql: """
                UPDATE events SET entity_name = ?3, open_local = ?4, closed_at = ?5, close_local = ?6,
                    minutes_open = ?7, duration_minutes = ?8, latitude = ?9, longitude = ?10
                WHERE bridge_id = ?1 AND opened_at = ?2
                  AND (entity_name IS NOT ?3 OR open_local IS NOT ?4 OR closed_at IS NOT ?5 OR close_local IS NOT ?6
                       OR minutes_open IS NOT ?7 OR latitude IS NOT ?9 OR longitude IS NOT ?10)
                """)
            var counts = UpsertCounts()
            var row = EventRowBinding()
            defer {
                RawStatement.clearBindings(insert)
                RawStatement.clearBindings(update)
            }
            for event in events {
                row.load(event)
                try row.run(insert, db)
                if sqlite3_changes(db.sqliteConnection) == 1 {
                    counts.inserted += 1
                    continue
                }
                try row.run(update, db)
                if sqlite3_changes(db.sqliteConnection) == 1 { counts.updated += 1 } else { counts.unchanged += 1 }
            }
            if counts.inserted + counts.updated > 0 {
                try db.execute(sql: "UPDATE history_version SET version = version + 1")
            }
            if var checkpoint {
                checkpoint.counts = checkpoint.counts + counts
                let state = String(decoding: try JSONEncoder.sorted.encode(checkpoint), as: UTF8.self)
                try db.execute(sql: "INSERT OR REPLACE INTO import_checkpoints (source, state) VALUES (?, ?)",
                               arguments: [checkpoint.source, state])
            }
            return counts
        }
    }

    public func importCheckpoint(source: String) async throws -> ImportCheckpoint? {
        let state = try await read("read the import checkpoint") { db in
            try String.fetchOne(db, sql: "SELECT state FROM import_checkpoints WHERE source = ?", arguments: [source])
        }
        // An unreadable checkpoint only costs a restart from the top: the upsert is idempotent.
        return state.flatMap { try? JSONDecoder().decode(ImportCheckpoint.self, from: Data($0.utf8)) }
    }

    public func removeImportCheckpoint(source: String) async throws {
        try await write("remove the import checkpoint") { db in
            try db.execute(sql: "DELETE FROM import_checkpoints WHERE source = ?", arguments: [source])
        }
    }

    public func events(matching query: EventQuery) async throws -> [BridgeEventDTO] {
        var clauses: [String] = []
        var arguments = StatementArguments()
        if let bridgeID = query.bridgeID {
            clauses.append("bridge_id = ?")
            arguments += [bridgeID]
        }
        if let from = query.openedFrom {
            clauses.append("opened_at >= ?")
            arguments += [StoredTimestamp.text(from)]
        }
        if let before = query.openedBefore {
            clauses.append("opened_at < ?")
            arguments += [StoredTimestamp.text(before)]
        }
        if let after = query.after {
            let comparison = query.newestFirst ? "<" : ">"
            clauses.append("(opened_at, bridge_id) \(comparison) (?, ?)") // a row value: one index range
            arguments += [StoredTimestamp.text(after.openedAt), after.bridgeID]
        }
        let order = query.newestFirst ? "DESC" : "ASC"
        var sql = "SELECT \(Self.eventColumns) FROM events"
        if !clauses.isEmpty { sql += " WHERE " + clauses.joined(separator: " AND ") }
        sql += " ORDER BY opened_at \(order), bridge_id \(order)"
        if let limit = query.limit {
            sql += " LIMIT ?"
            arguments += [max(limit, 0)]
        }
        let (finalSQL, finalArguments) = (sql, arguments)
        return try await read("read events") { db in
            var events: [BridgeEventDTO] = []
            let rows = try Row.fetchCursor(db, sql: finalSQL, arguments: finalArguments)
            while let row = try rows.next() { events.append(try Self.event(row)) }
            return events
        }
    }

    public func eventCount(bridgeID: String?) async throws -> Int {
        try await read("count events") { db in
            if let bridgeID {
                return try Int.fetchOne(db, sql: "SELECT count(*) FROM events WHERE bridge_id = ?",
                                        arguments: [bridgeID]) ?? 0
            }
            return try Int.fetchOne(db, sql: "SELECT count(*) FROM events") ?? 0
        }
    }

    public func latestOpening() async throws -> Date? {
        try await read("read the watermark") { db in
            try String.fetchOne(db, sql: "SELECT max(opened_at) FROM events").flatMap(StoredTimestamp.date)
        }
    }

    public func bridgeActivity() async throws -> [BridgeActivity] {
        try await read("summarise bridges") { db in
            try Row.fetchAll(db, sql: """
                SELECT b.*, count(e.opened_at) AS openings, max(e.opened_at) AS last_opening
                FROM bridges b LEFT JOIN events e ON e.bridge_id = b.id
                GROUP BY b.id ORDER BY CAST(b.id AS INTEGER), b.id
                """).map { row in
                BridgeActivity(
                    bridge: Self.bridge(row), openings: row["openings"],
                    lastOpening: (row["last_opening"] as String?).flatMap(StoredTimestamp.date))
            }
        }
    }

    public func deleteEvents(openedBefore cutoff: Date) async throws -> Int {
        try await write("delete old events") { db in
            try db.execute(sql: "DELETE FROM events WHERE opened_at < ?", arguments: [StoredTimestamp.text(cutoff)])
            let removed = db.changesCount
            if removed > 0 { try db.execute(sql: "UPDATE history_version SET version = version + 1") }
            return removed
        }
    }

    public func startSyncRun(provider: String, startedAt: Date, watermarkBefore: Date?) async throws -> Int64 {
        try await write("record a sync run") { db in
            try db.execute(
                sql: "INSERT INTO sync_runs (provider, started_at, status, watermark_before) VALUES (?, ?, 'running', ?)",
                arguments: [provider, StoredTimestamp.text(startedAt), watermarkBefore.map(StoredTimestamp.text)])
            return db.lastInsertedRowID
        }
    }

    public func finishSyncRun(_ record: SyncRunRecord) async throws {
        let rejections = String(decoding: try JSONEncoder.sorted.encode(record.rejections.byReason), as: UTF8.self)
        try await write("record a sync run") { db in
            try db.execute(sql: """
                UPDATE sync_runs SET finished_at = ?, status = ?, watermark_after = ?, fetched = ?, inserted = ?,
                    updated = ?, unchanged = ?, rejected = ?, rejections = ?, error = ?, fingerprint = ?
                WHERE id = ?
                """, arguments: [
                    record.finishedAt.map(StoredTimestamp.text), record.status.rawValue,
                    record.watermarkAfter.map(StoredTimestamp.text), record.fetched, record.counts.inserted,
                    record.counts.updated, record.counts.unchanged, record.rejections.total, rejections, record.error,
                    record.fingerprint, record.id,
                ])
        }
    }

    public func syncRuns(limit: Int) async throws -> [SyncRunRecord] {
        try await read("read sync runs") { db in
            try Row.fetchAll(db, sql: "SELECT * FROM sync_runs ORDER BY id DESC LIMIT ?", arguments: [limit])
                .map(Self.syncRun)
        }
    }

    public func lastSucceededRun(provider: String) async throws -> SyncRunRecord? {
        try await read("read sync runs") { db in
            try Row.fetchOne(db, sql: """
                SELECT * FROM sync_runs WHERE provider = ? AND status = 'succeeded' ORDER BY id DESC LIMIT 1
                """, arguments: [provider]).map(Self.syncRun)
        }
    }

    public func saveOpeningModels(_ models: [OpeningModelDTO]) async throws {
        try await write("save opening models") { db in
            try db.execute(sql: "DELETE FROM opening_models")
            let model = try db.cachedStatement(sql: """
                INSERT INTO opening_models (bridge_id, built_at, first_day, last_day, openings, source_events,
                    source_latest_opening, base_start_probability, base_open_probability, month_factors, source_version)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
            let slot = try db.cachedStatement(sql: """
                INSERT INTO opening_model_slots (bridge_id, slot, starts, occurrences, start_probability,
                    open_probability, mean_remaining_minutes) VALUES (?, ?, ?, ?, ?, ?, ?)
                """)
            for entry in models {
                try model.execute(arguments: [
                    entry.bridgeID, StoredTimestamp.text(entry.builtAt), entry.firstDay, entry.lastDay, entry.openings,
                    entry.sourceEvents, entry.sourceLatestOpening.map(StoredTimestamp.text), entry.baseStartProbability,
                    entry.baseOpenProbability,
                    String(decoding: try JSONEncoder.sorted.encode(entry.monthFactors), as: UTF8.self),
                    entry.sourceVersion,
                ])
                for (index, figures) in entry.slots.enumerated() {
                    try slot.execute(arguments: [
                        entry.bridgeID, index, figures.starts, figures.occurrences, figures.startProbability,
                        figures.openProbability, figures.meanRemainingMinutes,
                    ])
                }
            }
        }
    }

    public func openingModels(bridgeIDs: [String]) async throws -> [OpeningModelDTO] {
        let wanted = Array(Set(bridgeIDs)).sorted()
        guard !wanted.isEmpty else { return [] }
        let marks = Array(repeating: "?", count: wanted.count).joined(separator: ", ")
        return try await read("read opening models") { db in
            var slotsByBridge: [String: [OpeningSlotDTO]] = [:]
            // By column index, one query for every bridge: this runs in every predict and route score.
            let slots = try Row.fetchCursor(db, sql: """
                SELECT bridge_id, starts, occurrences, start_probability, open_probability, mean_remaining_minutes
                FROM opening_model_slots WHERE bridge_id IN (\(marks)) ORDER BY bridge_id, slot
                """, arguments: StatementArguments(wanted))
            while let row = try slots.next() {
                slotsByBridge[row[0], default: []].append(OpeningSlotDTO(
                    starts: row[1], occurrences: row[2], startProbability: row[3], openProbability: row[4],
                    meanRemainingMinutes: row[5]))
            }
            return try Row.fetchAll(db, sql: "SELECT * FROM opening_models WHERE bridge_id IN (\(marks)) ORDER BY bridge_id",
                                    arguments: StatementArguments(wanted)).map { row in
                let bridgeID: String = row["bridge_id"]
                let slots = slotsByBridge[bridgeID] ?? []
                guard slots.count == OpeningModelDTO.slotsPerWeek else {
                    throw BridgetError.data("store-corrupt", "the opening model of bridge \(bridgeID) has \(slots.count) slots",
                                            hint: "run `bridget model rebuild`", exitCode: 74)
                }
                return OpeningModelDTO(
                    bridgeID: bridgeID, builtAt: StoredTimestamp.date(row["built_at"]) ?? Date(timeIntervalSince1970: 0),
                    firstDay: row["first_day"], lastDay: row["last_day"], openings: row["openings"],
                    sourceEvents: row["source_events"],
                    sourceLatestOpening: (row["source_latest_opening"] as String?).flatMap(StoredTimestamp.date),
                    baseStartProbability: row["base_start_probability"], baseOpenProbability: row["base_open_probability"],
                    slots: slots,
                    monthFactors: (try? JSONDecoder().decode([Double].self, from: Data((row["month_factors"] as String).utf8)))
                        ?? Array(repeating: 1, count: 12),
                    sourceVersion: row["source_version"])
            }
        }
    }

    public func saveRoute(_ route: RouteDTO) async throws {
        let crossings = String(decoding: try JSONEncoder.sorted.encode(route.crossings), as: UTF8.self)
        try await write("save a route") { db in
            try db.execute(sql: """
                INSERT INTO routes (name, favorite, crossings) VALUES (?, ?, ?)
                ON CONFLICT (name) DO UPDATE SET favorite = excluded.favorite, crossings = excluded.crossings
                """, arguments: [route.id, route.isFavorite, crossings])
        }
    }

    public func routes() async throws -> [RouteDTO] {
        let rows = try await read("read routes") { db in
            try Row.fetchAll(db, sql: "SELECT * FROM routes ORDER BY favorite DESC, name").map { row in
                (row["name"] as String, row["favorite"] as Bool, row["crossings"] as String)
            }
        }
        return try rows.map { name, favorite, text in
            guard let crossings = try? JSONDecoder().decode([RouteCrossingDTO].self, from: Data(text.utf8)) else {
                throw BridgetError.data("store-corrupt", "route \(name) has unreadable crossings", exitCode: 74)
            }
            return RouteDTO(id: name, crossings: crossings, isFavorite: favorite)
        }
    }

    public func removeRoute(named name: String) async throws -> Bool {
        try await write("remove a route") { db in
            try db.execute(sql: "DELETE FROM routes WHERE name = ?", arguments: [name])
            return db.changesCount > 0
        }
    }

    public func openingRecords() async throws -> [OpeningRecordDTO] {
        try await read("read events") { db in
            // The primary key's order: a plain scan, no sort. The texts are parsed where SQLite holds them, with no
            // string made: this read is most of a model rebuild, and it took about 10% fewer samples than SQLite's
            // unixepoch() on a million events.
            let statement = try db.makeStatement(sql: """
                SELECT bridge_id, opened_at, closed_at, open_local FROM events ORDER BY bridge_id, opened_at
                """)
            let handle = statement.sqliteStatement
            var records: [OpeningRecordDTO] = []
            var bridgeID = ""
            while true {
                let code = sqlite3_step(handle)
                if code == SQLITE_DONE { break }
                guard code == SQLITE_ROW else {
                    throw DatabaseError(resultCode: ResultCode(rawValue: code),
                                        message: String(cString: sqlite3_errmsg(db.sqliteConnection)), sql: statement.sql)
                }
                // Every stored time was written by StoredTimestamp or checked on the way in, so one that does not
                // read is damage, reported as reading the events reports it rather than left out of a model.
                func time(_ column: Int32, _ name: String, instant: Bool) throws -> Int64? {
                    guard let text = RawColumn.text(handle, column) else { return nil }
                    guard let seconds = RawColumn.seconds(text, instant: instant) else {
                        throw BridgetError.data(
                            "store-corrupt",
                            "a stored event has an unreadable \(name) '\(String(decoding: text, as: UTF8.self))'",
                            exitCode: 74)
                    }
                    return seconds
                }
                guard let openedAt = try time(1, "opened_at", instant: true),
                      let openWall = try time(3, "open_local", instant: false)
                else {
                    throw BridgetError.data("store-corrupt", "a stored event has no opened_at or open_local", exitCode: 74)
                }
                RawColumn.reuse(&bridgeID, handle, 0)
                records.append(OpeningRecordDTO(bridgeID: bridgeID, openedAt: openedAt,
                                                closedAt: try time(2, "closed_at", instant: true), openWall: openWall))
            }
            return records
        }
    }

    public func historyVersion() async throws -> Int64 {
        try await read("read the history version") { db in
            try Int64.fetchOne(db, sql: "SELECT version FROM history_version WHERE id = 1") ?? 0
        }
    }

    public func upsertTrafficFlows(_ flows: [TrafficFlowDTO]) async throws {
        guard !flows.isEmpty else { return }
        try await write("save traffic flows") { db in
            let statement = try db.cachedStatement(sql: """
                INSERT OR REPLACE INTO traffic_flows (bridge_id, observed_at, congestion, volume) VALUES (?, ?, ?, ?)
                """)
            for flow in flows {
                try statement.execute(arguments: [flow.bridgeID, StoredTimestamp.text(flow.timestamp), flow.congestionLevel,
                                                  flow.trafficVolume])
            }
        }
    }

    public func trafficFlows(bridgeID: String) async throws -> [TrafficFlowDTO] {
        try await read("read traffic flows") { db in
            try Row.fetchAll(db, sql: "SELECT * FROM traffic_flows WHERE bridge_id = ? ORDER BY observed_at",
                             arguments: [bridgeID]).compactMap { row in
                guard let instant = StoredTimestamp.date(row["observed_at"]) else { return nil }
                return TrafficFlowDTO(bridgeID: row["bridge_id"], timestamp: instant, congestionLevel: row["congestion"],
                                      trafficVolume: row["volume"])
            }
        }
    }

    /// Runs SQLite's `PRAGMA integrity_check`; returns "ok" for a sound file.
    public func integrityCheck() async throws -> String {
        try await read("check integrity") { db in
            try String.fetchAll(db, sql: "PRAGMA integrity_check").joined(separator: "\n")
        }
    }
}
