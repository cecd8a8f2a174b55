import BridgetDTOs
import BridgetPersistence
import Foundation
import GRDB
import GRDBSQLite

// `upsertEvents(_:checkpoint:)` is here as the one write of events (the checkpoint is `ImportCheckpointStore`'s);
// `upsertEvents(_:)` is that write without a checkpoint.
extension SQLiteBridgeStore: EventStore {
    public func upsertEvents(_ events: [BridgeEventDTO], checkpoint: ImportCheckpoint?) async throws -> UpsertCounts {
        guard !events.isEmpty || checkpoint != nil else { return UpsertCounts() }
        // Bulk writes fill the log: it is copied into the file beside the next batch, not inside a commit.
        defer { checkpointer?.request() }
        return try await write("save events") { db in
            let counts = try Self.upsert(events, db)
            if var checkpoint {
                checkpoint.counts = checkpoint.counts + counts
                let state = String(decoding: try JSONEncoder.sorted.encode(checkpoint), as: UTF8.self)
                try db.execute(sql: "INSERT OR REPLACE INTO import_checkpoints (source, state) VALUES (?, ?)",
                               arguments: [checkpoint.source, state])
            }
            return counts
        }
    }

    /// The upsert of `events` inside a write's transaction: the events, their changes in the log, the history version
    /// and the alerts' outbox.
    static func upsert(_ events: [BridgeEventDTO], _ db: Database) throws -> UpsertCounts {
        guard !events.isEmpty else { return UpsertCounts() }
        var upsert = try EventUpsertSQL(db, events)
        defer { upsert.clearBindings() }
        // Each event is read where it lies, through a pointer: passed as a value, every event was copied first
        // (its strings retained, then released).
        try events.withUnsafeBufferPointer { events in
            for index in events.indices {
                // Within the buffer's indices it is not empty, so it has a base address.
                try upsert.write(events.baseAddress! + index, db)
            }
        }
        let counts = upsert.counts
        if counts.inserted + counts.updated > 0 {
            try db.execute(sql: "UPDATE history_version SET version = version + 1")
            if upsert.tally.summarises { try ChangeLogSQL.appendSummary(db, upsert.tally, at: upsert.now) }
            try AlertOutboxSQL.enqueue(db, changesAfter: upsert.logged)
        }
        return counts
    }

    public func events(matching query: EventQuery) async throws -> [BridgeEventDTO] {
        var clauses: [String] = []
        var arguments = StatementArguments()
        if let bridgeID = query.bridgeID {
            clauses.append("bridge_id = ?")
            arguments += [bridgeID]
        }
        if let status = query.status {
            // The status as a literal (the enum's own text): SQLite then reads live openings from their partial index.
            clauses.append(status == .observed ? "status IS NULL" : "status = '\(status.rawValue)'")
        } else if query.happened {
            clauses.append("(status IS NULL OR status = 'live')")
        }
        if let from = query.openedFrom {
            clauses.append("opened_at >= ?")
            arguments += [try StoredTimestamp.text(from)]
        }
        if let before = query.openedBefore {
            clauses.append("opened_at < ?")
            arguments += [try StoredTimestamp.text(before)]
        }
        if let after = query.after {
            let comparison = query.newestFirst ? "<" : ">"
            clauses.append("(opened_at, bridge_id) \(comparison) (?, ?)") // a row value: one index range
            arguments += [try StoredTimestamp.text(after.openedAt), after.bridgeID]
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
            // A query's text depends only on which filters it has: prepared once a connection, kept by GRDB.
            let rows = try Row.fetchCursor(try db.cachedStatement(sql: finalSQL), arguments: finalArguments)
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

    public func deleteEvents(openedBefore cutoff: Date) async throws -> Int {
        try await write("delete old events") { db in
            try db.execute(sql: "DELETE FROM events WHERE opened_at < ?", arguments: [try StoredTimestamp.text(cutoff)])
            let removed = db.changesCount
            try db.execute(sql: "DELETE FROM event_records WHERE opened_at < ?",
                           arguments: [try StoredTimestamp.text(cutoff)])
            if removed > 0 { try db.execute(sql: "UPDATE history_version SET version = version + 1") }
            return removed
        }
    }

    public func foldOpeningRecords<State: Sendable>(
        bridgeIDs: [String]?, into initial: State,
        _ update: @escaping @Sendable (inout State, [OpeningRecordDTO]) throws -> Void
    ) async throws -> State {
        try await read("read events") { db in
            // The primary key's order: a plain scan (or a range of it per bridge), no sort. The texts are parsed
            // where SQLite holds them, with no string made: this read is most of a model rebuild, and it took about
            // 10% fewer samples than SQLite's unixepoch() on a million events.
            let only = bridgeIDs.map { ids in
                " AND bridge_id IN (" + Array(repeating: "?", count: ids.count).joined(separator: ", ") + ")"
            } ?? ""
            let statement = try db.makeStatement(sql: """
                SELECT bridge_id, opened_at, closed_at, open_local FROM events
                WHERE (status IS NULL OR status = 'live')\(only)
                ORDER BY bridge_id, opened_at
                """)
            if let bridgeIDs { try statement.setArguments(StatementArguments(bridgeIDs)) }
            let handle = statement.sqliteStatement
            // The caller's errors come back as thrown, not described as the store's failure.
            var pages = OpeningRecordPages(into: initial) { state, page in
                do { try update(&state, page) } catch { throw PassedThrough(error: error) }
            }
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
                        throw StoreError.corruptEvent(
                            detail: "an unreadable \(name) '\(String(decoding: text, as: UTF8.self))'")
                    }
                    return seconds
                }
                guard let openedAt = try time(1, "opened_at", instant: true),
                      let openWall = try time(3, "open_local", instant: false)
                else {
                    throw StoreError.corruptEvent(detail: "no opened_at or open_local")
                }
                RawColumn.reuse(&bridgeID, handle, 0)
                try pages.append(OpeningRecordDTO(bridgeID: bridgeID, openedAt: openedAt,
                                                  closedAt: try time(2, "closed_at", instant: true), openWall: openWall))
            }
            return try pages.finish()
        }
    }

    public func historyVersion() async throws -> Int64 {
        try await read("read the history version") { db in
            try Int64.fetchOne(db, sql: "SELECT version FROM history_version WHERE id = 1") ?? 0
        }
    }
}

/// One batch's upsert of events (`SQLiteBridgeStore.upsert`): its statements, prepared once a batch and run with each
/// event bound once (`EventRowBinding`), the batch's change tally and live matching, and its counts so far.
private struct EventUpsertSQL {
    let insert: Statement
    let update: Statement
    /// The same update, taken first when it is a change of its own kind: a newer version of the record at the same
    /// instant, or a closing now known. Each changes a row only when the general update would.
    let replaceInPlace: Statement
    let close: Statement
    let log: ChangeLogSQL.AppendStatements
    /// Only for events with a record id (never Socrata's), found through event_records (v11): is a later version
    /// stored, and the earlier versions at another opening, which the incoming one replaces (a NULL version is older
    /// than any); then the record's opening is listed.
    let newerStored: Statement
    let removeEarlier: Statement
    let forgetEarlier: Statement
    let listRecord: Statement
    /// The change log's newest number before the batch (the alerts' outbox takes the changes after it).
    let logged: Int64
    let now: Date
    /// Changes to older openings beyond the first `itemizedLimit` are one summary (`BulkChangeTally`).
    var tally: BulkChangeTally
    let retract: Statement
    var matching: LiveMatchingSQL
    var counts = UpsertCounts()
    private var row = EventRowBinding()

    init(_ db: Database, _ events: [BridgeEventDTO]) throws {
        insert = try db.cachedStatement(sql: """
            INSERT INTO events (bridge_id, opened_at, entity_name, open_local, closed_at, close_local,
                                minutes_open, duration_minutes, latitude, longitude, status, record_id, record_version,
                                live)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)
            ON CONFLICT (bridge_id, opened_at) DO NOTHING
            """)
        update = try db.cachedStatement(sql: """
            UPDATE events SET entity_name = ?3, open_local = ?4, closed_at = ?5, close_local = ?6,
                minutes_open = ?7, duration_minutes = ?8, latitude = ?9, longitude = ?10,
                status = ?11, record_id = ?12, record_version = ?13, live = ?14
            WHERE bridge_id = ?1 AND opened_at = ?2
              AND (entity_name IS NOT ?3 OR open_local IS NOT ?4 OR closed_at IS NOT ?5 OR close_local IS NOT ?6
                   OR minutes_open IS NOT ?7 OR latitude IS NOT ?9 OR longitude IS NOT ?10
                   OR status IS NOT ?11 OR record_id IS NOT ?12 OR record_version IS NOT ?13 OR live IS NOT ?14)
            """)
        replaceInPlace = try db.cachedStatement(sql: update.sql + " AND ?12 IS NOT NULL AND record_version IS NOT ?13")
        close = try db.cachedStatement(sql: update.sql + " AND closed_at IS NULL AND ?5 IS NOT NULL")
        log = try ChangeLogSQL.AppendStatements(db, at: Date())
        newerStored = try db.cachedStatement(sql: """
            SELECT 1 FROM event_records AS r
            JOIN events AS e
              ON e.bridge_id = r.bridge_id AND e.opened_at = r.opened_at AND e.record_id = r.record_id
            WHERE r.record_id = ?12
              AND (e.record_version > ?13 OR (?13 IS NULL AND e.record_version IS NOT NULL))
            LIMIT 1
            """)
        removeEarlier = try db.cachedStatement(sql: """
            DELETE FROM events
            WHERE (bridge_id, opened_at) IN (SELECT bridge_id, opened_at FROM event_records WHERE record_id = ?12)
              AND record_id = ?12 AND NOT (bridge_id = ?1 AND opened_at = ?2)
            """)
        forgetEarlier = try db.cachedStatement(sql: """
            DELETE FROM event_records WHERE record_id = ?12 AND NOT (bridge_id = ?1 AND opened_at = ?2)
            """)
        listRecord = try db.cachedStatement(sql: """
            INSERT OR IGNORE INTO event_records (record_id, bridge_id, opened_at) VALUES (?12, ?1, ?2)
            """)
        logged = try ChangeLogSQL.newest(db)
        now = Date()
        tally = BulkChangeTally(now: now)
        retract = try db.cachedStatement(sql: "DELETE FROM change_log WHERE seq IN (SELECT value FROM json_each(?))")
        matching = try LiveMatchingSQL(db, events)
    }

    /// Unbinds every statement the events were bound to: the bindings point into `row`'s buffer.
    func clearBindings() {
        for statement in [insert, update, replaceInPlace, close, newerStored, removeEarlier, forgetEarlier,
                          listRecord] + log.statements {
            RawStatement.clearBindings(statement)
        }
    }

    /// Writes the event at `event` (left, inserted, replacing others, updated or unchanged), counts it and logs its
    /// change.
    mutating func write(_ event: UnsafePointer<BridgeEventDTO>, _ db: Database) throws {
        // A live opening whose published record is stored already is left; a published opening replaces the live
        // ones it matches (they are removed, and it is logged as their replacement).
        var replacedLive = false
        if !matching.isEmpty {
            switch try matching.resolve(event.pointee, db) {
            case .leave:
                counts.unchanged += 1
                return
            case .replacedLive: replacedLive = true
            case .none: break
            }
        }
        try row.load(event)
        // A replaced record counts once, as updated: the store holds one opening for it, as before, changed.
        var replaced = replacedLive
        if event.pointee.recordID != nil {
            if try row.hasRow(newerStored, db) {
                counts.unchanged += 1
                return
            }
            try row.run(removeEarlier, db)
            replaced = replaced || sqlite3_changes(db.sqliteConnection) > 0
            try row.run(forgetEarlier, db)
            try row.run(listRecord, db)
        }
        if try changed(insert, db) {
            if replaced {
                counts.updated += 1
                try record(.replaced, event, db)
            } else {
                counts.inserted += 1
                try record(event.pointee.status == .planned ? .announced : .new, event, db)
            }
            return
        }
        if replaced {
            try row.run(update, db)
            counts.updated += 1
            try record(.replaced, event, db)
        } else if event.pointee.recordID != nil, try changed(replaceInPlace, db) {
            counts.updated += 1
            try record(.replaced, event, db)
        } else if try changed(close, db) {
            counts.updated += 1
            try record(.closed, event, db)
        } else if try changed(update, db) {
            counts.updated += 1
            try record(.updated, event, db)
        } else {
            counts.unchanged += 1
        }
    }

    /// Runs `statement` with the loaded event: whether it changed the row.
    private func changed(_ statement: Statement, _ db: Database) throws -> Bool {
        try row.run(statement, db)
        return sqlite3_changes(db.sqliteConnection) == 1
    }

    /// Logs the change the loaded event (at `event`) made: itemized, or tallied into the batch's summary.
    private mutating func record(_ kind: OpeningChangeKind, _ event: UnsafePointer<BridgeEventDTO>, _ db: Database)
        throws
    {
        if tally.isItemized(kind, status: event.pointee.status, openedAt: event.pointee.openedAt,
                            closedAt: event.pointee.closedAt) {
            try row.run(log[kind], db)
            return
        }
        switch tally.add(kind, bridgeID: event.pointee.bridgeID, openedAt: event.pointee.openedAt) {
        case .logEntry:
            try row.run(log[kind], db)
            tally.logged(sqlite3_last_insert_rowid(db.sqliteConnection))
        case .retract(let sequences):
            let list = "[" + sequences.map(String.init).joined(separator: ",") + "]"
            try retract.execute(arguments: [list])
        case .tallied: break
        }
    }
}
