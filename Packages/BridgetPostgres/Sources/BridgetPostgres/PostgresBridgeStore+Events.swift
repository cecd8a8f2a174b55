import BridgetDTOs
import BridgetPersistence
import Foundation
import NIOCore
import PostgresNIO

// `upsertEvents(_:checkpoint:)` is here as the one write of events (the checkpoint is `ImportCheckpointStore`'s).
extension PostgresBridgeStore: EventStore, ImportCheckpointStore {
    public func upsertEvents(_ events: [BridgeEventDTO], checkpoint: ImportCheckpoint?) async throws -> UpsertCounts {
        try await upsertEvents(events, EventBatch(events), copy: nil, checkpoint: checkpoint)
    }

    /// The batch's arrays and, for a plain batch, its rows in COPY's text, made before the write: an import makes
    /// them for the next batch while this one is written.
    public func stageEvents(_ events: [BridgeEventDTO]) -> StagedEvents {
        guard let batch = try? EventBatch(events) else { return StagedEvents(events: events) }
        let copy = batch.isPlain
            ? stride(from: 0, to: batch.count, by: EventBatch.copyPiece).map {
                batch.copyText($0..<min($0 + EventBatch.copyPiece, batch.count))
            }
            : nil
        return StagedEvents(events: events, payload: StagedBatch(batch: batch, copy: copy))
    }

    public func upsertEvents(_ staged: StagedEvents, checkpoint: ImportCheckpoint?) async throws -> UpsertCounts {
        guard let prepared = staged.payload as? StagedBatch else {
            return try await upsertEvents(staged.events, checkpoint: checkpoint)
        }
        return try await upsertEvents(staged.events, prepared.batch, copy: prepared.copy, checkpoint: checkpoint)
    }

    /// What `stageEvents` prepares.
    struct StagedBatch: Sendable {
        let batch: EventBatch
        let copy: [ByteBuffer]?
    }

    private func upsertEvents(_ events: [BridgeEventDTO], _ batch: EventBatch, copy: [ByteBuffer]?,
                              checkpoint: ImportCheckpoint?) async throws -> UpsertCounts {
        guard !events.isEmpty || checkpoint != nil else { return UpsertCounts() }
        return try await transaction("save events") { connection in
            let counts = try await upsert(events, batch, copy: copy, connection)
            if var checkpoint {
                checkpoint.counts = checkpoint.counts + counts
                let state = String(decoding: try JSONEncoder.sorted.encode(checkpoint), as: UTF8.self)
                try await connection.query("""
                    INSERT INTO import_checkpoints (source, state) VALUES (\(checkpoint.source), \(state))
                    ON CONFLICT (source) DO UPDATE SET state = excluded.state
                    """, logger: logger)
            }
            return counts
        }
    }

    /// The upsert of `events` inside a transaction: the events, their changes in the log, the history version and the
    /// alerts' outbox.
    func upsert(_ events: [BridgeEventDTO], _ batch: EventBatch, copy: [ByteBuffer]? = nil,
                _ connection: PostgresConnection) async throws -> UpsertCounts
    {
        guard !events.isEmpty else { return UpsertCounts() }
        if let orphan = try await unknownBridge(batch.bridgeIDs, connection) {
            throw StoreError.orphan(.event, bridgeID: orphan)
        }
        try await checkSyncLockHeld(connection)
        try await holdChangeLog(connection)
        let logged = try await newestChange(connection)
        var matching = try await PostgresLiveMatching(events, store: self, connection)
        // A batch of plain openings, each key once (every Socrata batch), goes in by COPY or one upsert over
        // arrays; one with source records, a key twice or openings seen live takes the row-by-row path, whose order
        // decides what wins.
        var counts: UpsertCounts
        var removedLive = false
        if batch.isPlain && !matching.hasIncomingLive {
            // The live openings the published rows replace go first; their replacements are then logged as such.
            let replacing = try await matching.replaceMatched(events, connection)
            counts = try await upsertPlain(batch, copy: copy, replacing: replacing, connection)
            if !replacing.isEmpty {
                var relabelled: Int64 = 0
                for try await count in try await connection.query("""
                    WITH changed AS (
                        UPDATE change_log SET kind = 'replaced'
                        WHERE seq > \(logged) AND kind = 'new'
                          AND (bridge_id, opened_ms) IN (SELECT * FROM unnest(\(replacing.map(\.bridgeID))::text[],
                                                                               \(replacing.map(\.openedMS))::int8[]))
                        RETURNING 1)
                    SELECT count(*) FROM changed
                    """, logger: logger).decode(Int64.self) { relabelled = count }
                counts.inserted -= Int(relabelled)
                counts.updated += Int(relabelled)
                removedLive = true
            }
        } else {
            counts = try await upsertRowByRow(events, &matching, connection)
        }
        if counts.inserted + counts.updated > 0 || removedLive {
            try await connection.query("UPDATE history_version SET version = version + 1", logger: logger)
            try await enqueueAlerts(changesAfter: logged, connection)
        }
        return counts
    }

    /// The first of `bridgeIDs` the catalog lacks, if any.
    func unknownBridge(_ bridgeIDs: [String], _ connection: PostgresConnection) async throws -> String? {
        guard !bridgeIDs.isEmpty else { return nil }
        let rows = try await connection.query("""
            SELECT id FROM unnest(\(bridgeIDs)::text[]) AS wanted (id)
            WHERE NOT EXISTS (SELECT 1 FROM bridges WHERE bridges.id = wanted.id) ORDER BY id LIMIT 1
            """, logger: logger)
        for try await id in rows.decode(String.self) { return id }
        return nil
    }

    /// The batch as arrays in one statement. When no stored opening lies in the batch's time range (a first import,
    /// a sync past the watermark) it is a plain insert; otherwise, or when a concurrent writer got there first, an
    /// upsert that inserts new keys and updates those whose fields differ.
    ///
    /// Changes are logged as `BulkChangeTally` says: the openings of `replacing` (published rows that replace live
    /// ones, relabelled `replaced` after) always one by one.
    private func upsertPlain(_ batch: EventBatch, copy: [ByteBuffer]?, replacing: [(bridgeID: String, openedMS: Int64)],
                             _ connection: PostgresConnection) async throws -> UpsertCounts {
        guard let first = batch.openedMS.min(), let last = batch.openedMS.max() else { return UpsertCounts() }
        let tallyStart = BulkChangeTally(now: Date())
        let recentFromMS = try Self.milliseconds(tallyStart.recentFrom)
        // A stored opening strictly inside the batch's range may conflict; one at its first or last instant only when
        // its key is the batch's (consecutive batches of a time-ordered file share an instant when two bridges open
        // at once, and a range check alone would send the second batch down the slow path).
        let edges = batch.openedMS.indices.filter { batch.openedMS[$0] == first || batch.openedMS[$0] == last }
        var overlaps = true
        for try await found in try await connection.query("""
            SELECT EXISTS (SELECT 1 FROM events WHERE opened_ms > \(first) AND opened_ms < \(last))
                OR EXISTS (SELECT 1 FROM events AS e
                           JOIN unnest(\(edges.map { batch.events[$0].bridgeID })::text[],
                                       \(edges.map { batch.openedMS[$0] })::int8[]) AS k (bridge_id, opened_ms)
                             ON e.bridge_id = k.bridge_id AND e.opened_ms = k.opened_ms)
            """, logger: logger).decode(Bool.self) { overlaps = found }
        if !overlaps {
            // Nothing stored can conflict, so the rows go in as COPY, PostgreSQL's bulk path (no speculative insertion,
            // no per-row function): about as fast as psql's \copy of the same rows. A writer that inserts into the same
            // range meanwhile makes the copy fail on the key, and the batch then takes the upsert below (the savepoint
            // undoes only the failed copy).
            try await connection.query("SAVEPOINT plain_insert", logger: logger)
            do {
                // In pieces, so that the server reads one while the next is written.
                try await connection.copyFrom(table: "events", columns: EventBatch.columns, logger: logger) { writer in
                    if let copy {
                        for piece in copy { try await writer.write(piece) }
                    } else {
                        for start in stride(from: 0, to: batch.count, by: EventBatch.copyPiece) {
                            try await writer.write(batch.copyText(start..<min(start + EventBatch.copyPiece, batch.count)))
                        }
                    }
                }
                try await connection.query("RELEASE SAVEPOINT plain_insert", logger: logger)
                // Every row is new: logged one by one, or the older ones as one summary.
                let replaced = Set(replacing.map { "\($0.openedMS) \($0.bridgeID)" })
                var tally = tallyStart
                var itemized: [BridgeEventDTO] = []
                for event in batch.events {
                    let kind: OpeningChangeKind = event.status == .planned ? .announced : .new
                    let replacesLive = try !replaced.isEmpty
                        && replaced.contains("\(Self.milliseconds(event.openedAt)) \(event.bridgeID)")
                    if replacesLive
                        || tally.isItemized(kind, status: event.status, openedAt: event.openedAt, closedAt: event.closedAt) {
                        itemized.append(event)
                    } else {
                        _ = tally.add(kind, bridgeID: event.bridgeID, openedAt: event.openedAt)
                    }
                }
                let logged = tally.summarises ? try EventBatch(itemized) : batch
                if logged.count > 0 {
                    try await connection.query(logged.query(before: """
                        INSERT INTO change_log (recorded_ms, kind, bridge_id, opened_ms, closed_ms, status)
                        SELECT \(Self.nowMS), CASE WHEN b.status IS NULL THEN 'new' ELSE 'announced' END, b.bridge_id,
                               b.opened_ms, b.closed_ms, b.status
                        FROM
                        """, after: " AS b \(EventBatch.names) ORDER BY b.opened_ms, b.bridge_id"), logger: logger)
                }
                if tally.summarises { try await appendSummary(tally, connection) }
                return UpsertCounts(inserted: batch.count)
            } catch let error as PSQLError where error.serverInfo?[.sqlState] == "23505" {
                try await connection.query("ROLLBACK TO SAVEPOINT plain_insert", logger: logger)
            }
        }
        // The same rule as `BulkChangeTally`'s, in SQL: a change is itemized when its opening is announced or live,
        // of the last day ($13), or a replacement ($11, $12); the others are, when more than the limit, one summary.
        var upsert = batch.query(before: """
            WITH batch AS (SELECT * FROM
            """, after: """
                AS b \(EventBatch.names)),
            earlier AS (
                SELECT e.bridge_id, e.opened_ms, e.closed_ms FROM events AS e JOIN batch USING (bridge_id, opened_ms)
            ),
            written AS (
                INSERT INTO events AS e (bridge_id, opened_ms, entity_name, open_local, closed_ms, close_local,
                                         minutes_open, latitude, longitude, status)
                SELECT * FROM batch
                ON CONFLICT (bridge_id, opened_ms) DO UPDATE SET
                    entity_name = excluded.entity_name, open_local = excluded.open_local, closed_ms = excluded.closed_ms,
                    close_local = excluded.close_local, minutes_open = excluded.minutes_open,
                    latitude = excluded.latitude, longitude = excluded.longitude, status = excluded.status,
                    record_id = NULL, record_version = NULL, live = NULL
                WHERE (e.entity_name, e.open_local, e.closed_ms, e.close_local, e.minutes_open, e.latitude, e.longitude,
                       e.status, e.record_id, e.record_version, e.live)
                      IS DISTINCT FROM
                      (excluded.entity_name, excluded.open_local, excluded.closed_ms, excluded.close_local,
                       excluded.minutes_open, excluded.latitude, excluded.longitude, excluded.status, NULL::text,
                       NULL::bigint, NULL::text)
                RETURNING e.bridge_id, e.opened_ms, e.closed_ms, e.status, (xmax = 0) AS inserted
            ),
            classified AS (
                SELECT CASE WHEN w.inserted THEN (CASE WHEN w.status IS NULL THEN 'new' ELSE 'announced' END)
                            WHEN earlier.closed_ms IS NULL AND w.closed_ms IS NOT NULL THEN 'closed'
                            ELSE 'updated' END AS kind,
                       w.bridge_id, w.opened_ms, w.closed_ms, w.status,
                       (w.status IS NOT NULL OR w.opened_ms >= $13 OR coalesce(w.closed_ms, w.opened_ms) >= $13
                        OR (w.bridge_id, w.opened_ms) IN (SELECT * FROM unnest($11::text[], $12::int8[]))) AS itemized
                FROM written AS w LEFT JOIN earlier USING (bridge_id, opened_ms)
            ),
            summarised AS (
                SELECT count(*) > \(BulkChangeTally.itemizedLimit) AS yes FROM classified WHERE NOT itemized
            ),
            logged AS (
                INSERT INTO change_log (recorded_ms, kind, bridge_id, opened_ms, closed_ms, status)
                SELECT \(Self.nowMS), c.kind, c.bridge_id, c.opened_ms, c.closed_ms, c.status
                FROM classified AS c
                WHERE c.itemized OR NOT (SELECT yes FROM summarised)
                ORDER BY c.opened_ms, c.bridge_id
            ),
            summary AS (
                INSERT INTO change_log (recorded_ms, kind, summary)
                SELECT \(Self.nowMS), 'bulk', json_build_object(
                    'counts', (SELECT json_object_agg(k.kind, k.n)
                               FROM (SELECT kind, count(*) AS n FROM classified WHERE NOT itemized GROUP BY kind) AS k),
                    'bridgeIDs', json_agg(DISTINCT c.bridge_id ORDER BY c.bridge_id),
                    'openedFromMS', min(c.opened_ms), 'openedThroughMS', max(c.opened_ms),
                    'historyVersion', (SELECT version + 1 FROM history_version))::text
                FROM classified AS c WHERE NOT c.itemized
                HAVING (SELECT yes FROM summarised)
            )
            SELECT count(*) FILTER (WHERE inserted), count(*) FILTER (WHERE NOT inserted) FROM written
            """)
        upsert.binds.append(replacing.map(\.bridgeID))
        upsert.binds.append(replacing.map(\.openedMS))
        upsert.binds.append(recentFromMS)
        let rows = try await connection.query(upsert, logger: logger)
        var counts = UpsertCounts()
        for try await (inserted, updated) in rows.decode((Int64, Int64).self) {
            counts.inserted = Int(inserted)
            counts.updated = Int(updated)
        }
        counts.unchanged = batch.count - counts.inserted - counts.updated
        return counts
    }

    /// The SQLite store's algorithm, a statement or three an event: for source records (a later version wins, and
    /// replaces the record's openings at other instants) and batches that name a key twice.
    private func upsertRowByRow(_ events: [BridgeEventDTO], _ matching: inout PostgresLiveMatching,
                                _ connection: PostgresConnection) async throws -> UpsertCounts {
        var counts = UpsertCounts()
        func any(_ query: PostgresQuery) async throws -> Bool {
            var found = false
            for try await _ in try await connection.query(query, logger: logger) { found = true }
            return found
        }
        // Changes to older openings beyond the first `itemizedLimit` are one summary (`BulkChangeTally`).
        var tally = BulkChangeTally(now: Date())
        for event in events {
            let opened = try Self.milliseconds(event.openedAt)
            let closed = try event.closedAt.map { try Self.milliseconds($0) }
            let status: String? = event.status == .observed ? nil : event.status.rawValue
            let version = event.recordVersion.map(Int64.init)
            let live = event.live?.storedText
            var replaced = false
            switch try await matching.resolve(event, connection) {
            case .leave:
                counts.unchanged += 1
                continue
            case .replacedLive: replaced = true
            case .none: break
            }
            if let recordID = event.recordID {
                // A NULL version is older than any.
                if try await any("""
                    SELECT 1 FROM events WHERE record_id = \(recordID)
                    AND (record_version > \(version)::bigint OR (\(version)::bigint IS NULL AND record_version IS NOT NULL))
                    LIMIT 1
                    """)
                {
                    counts.unchanged += 1
                    continue
                }
                replaced = try await any("""
                    DELETE FROM events WHERE record_id = \(recordID)
                    AND NOT (bridge_id = \(event.bridgeID) AND opened_ms = \(opened)) RETURNING 1
                    """) || replaced
            }
            let minutes = event.minutesOpen.map(Int64.init)
            @discardableResult
            func append(_ kind: OpeningChangeKind) async throws -> Int64 {
                var sequence: Int64 = 0
                for try await value in try await connection.query("""
                    INSERT INTO change_log (recorded_ms, kind, bridge_id, opened_ms, closed_ms, status, record_id,
                                            record_version)
                    VALUES (\(unescaped: Self.nowMS), \(kind.rawValue), \(event.bridgeID), \(opened), \(closed)::bigint,
                            \(status)::text, \(event.recordID)::text, \(version)::bigint)
                    RETURNING seq
                    """, logger: logger).decode(Int64.self) { sequence = value }
                return sequence
            }
            /// Logs the change, or tallies it for the write's summary.
            func log(_ kind: OpeningChangeKind) async throws {
                if tally.isItemized(kind, status: event.status, openedAt: event.openedAt, closedAt: event.closedAt) {
                    try await append(kind)
                    return
                }
                switch tally.add(kind, bridgeID: event.bridgeID, openedAt: event.openedAt) {
                case .logEntry: tally.logged(try await append(kind))
                case .retract(let sequences):
                    try await connection.query("DELETE FROM change_log WHERE seq = ANY(\(sequences)::int8[])", logger: logger)
                case .tallied: break
                }
            }
            if try await any("""
                INSERT INTO events (bridge_id, opened_ms, entity_name, open_local, closed_ms, close_local, minutes_open,
                                    latitude, longitude, status, record_id, record_version, live)
                VALUES (\(event.bridgeID), \(opened), \(event.bridgeName), \(event.openLocal), \(closed)::bigint,
                        \(event.closeLocal)::text, \(minutes)::bigint, \(event.latitude)::float8, \(event.longitude)::float8,
                        \(status)::text, \(event.recordID)::text, \(version)::bigint, \(live)::text)
                ON CONFLICT (bridge_id, opened_ms) DO NOTHING RETURNING 1
                """)
            {
                if replaced {
                    counts.updated += 1
                    try await log(.replaced)
                } else {
                    counts.inserted += 1
                    try await log(event.status == .planned ? .announced : .new)
                }
                continue
            }
            // The stored row before the update, read in the statement's snapshot: what kind of change it was.
            var change: OpeningChangeKind?
            for try await (closes, newVersion) in try await connection.query("""
                UPDATE events AS e SET entity_name = \(event.bridgeName), open_local = \(event.openLocal),
                    closed_ms = \(closed)::bigint, close_local = \(event.closeLocal)::text, minutes_open = \(minutes)::bigint,
                    latitude = \(event.latitude)::float8, longitude = \(event.longitude)::float8, status = \(status)::text,
                    record_id = \(event.recordID)::text, record_version = \(version)::bigint, live = \(live)::text
                FROM (SELECT closed_ms AS old_closed, record_version AS old_version FROM events
                      WHERE bridge_id = \(event.bridgeID) AND opened_ms = \(opened)) AS o
                WHERE e.bridge_id = \(event.bridgeID) AND e.opened_ms = \(opened)
                  AND (e.entity_name, e.open_local, e.closed_ms, e.close_local, e.minutes_open, e.latitude, e.longitude,
                       e.status, e.record_id, e.record_version, e.live)
                      IS DISTINCT FROM
                      (\(event.bridgeName)::text, \(event.openLocal)::text, \(closed)::bigint, \(event.closeLocal)::text,
                       \(minutes)::bigint, \(event.latitude)::float8, \(event.longitude)::float8, \(status)::text,
                       \(event.recordID)::text, \(version)::bigint, \(live)::text)
                RETURNING o.old_closed IS NULL AND e.closed_ms IS NOT NULL, o.old_version IS DISTINCT FROM e.record_version
                """, logger: logger).decode((Bool, Bool).self)
            {
                change = event.recordID != nil && newVersion ? .replaced : closes ? .closed : .updated
            }
            if replaced { change = .replaced }
            if let change {
                counts.updated += 1
                try await log(change)
            } else {
                counts.unchanged += 1
            }
        }
        if tally.summarises { try await appendSummary(tally, connection) }
        return counts
    }

    public func events(matching query: EventQuery) async throws -> [BridgeEventDTO] {
        var clauses: [String] = []
        var binds = PostgresBindings()
        func bind(_ value: some PostgresDynamicTypeEncodable) -> String {
            binds.append(value)
            return "$\(binds.count)"
        }
        if let bridgeID = query.bridgeID { clauses.append("bridge_id = \(bind(bridgeID))") }
        if let status = query.status {
            clauses.append(status == .observed ? "status IS NULL" : "status = \(bind(status.rawValue))")
        } else if query.happened {
            clauses.append("(status IS NULL OR status = 'live')")
        }
        if let from = query.openedFrom { clauses.append("opened_ms >= \(bind(try Self.milliseconds(from)))") }
        if let before = query.openedBefore { clauses.append("opened_ms < \(bind(try Self.milliseconds(before)))") }
        if let after = query.after {
            let comparison = query.newestFirst ? "<" : ">"
            clauses.append("(opened_ms, bridge_id) \(comparison) (\(bind(try Self.milliseconds(after.openedAt))), \(bind(after.bridgeID)))")
        }
        let order = query.newestFirst ? "DESC" : "ASC"
        var sql = "SELECT \(Self.eventColumns) FROM events"
        if !clauses.isEmpty { sql += " WHERE " + clauses.joined(separator: " AND ") }
        sql += " ORDER BY opened_ms \(order), bridge_id \(order)"
        if let limit = query.limit { sql += " LIMIT \(bind(Int64(max(limit, 0))))" }
        let statement = PostgresQuery(unsafeSQL: sql, binds: binds)
        return try await withConnection("read events") { connection in
            var events: [BridgeEventDTO] = []
            for try await row in try await connection.query(statement, logger: logger) {
                events.append(try Self.event(row.makeRandomAccess()))
            }
            return events
        }
    }

    public func eventCount(bridgeID: String?) async throws -> Int {
        let query: PostgresQuery = bridgeID.map { "SELECT count(*) FROM events WHERE bridge_id = \($0)" }
            ?? "SELECT count(*) FROM events"
        let rows = try await rows("count events", query)
        return try rows.first.map { Int(try $0[0].decode(Int64.self)) } ?? 0
    }

    public func latestOpening() async throws -> Date? {
        let rows = try await rows("read the watermark", "SELECT max(opened_ms) FROM events")
        return try rows.first.flatMap { try $0[0].decode(Int64?.self) }.map(Self.date(milliseconds:))
    }

    public func deleteEvents(openedBefore cutoff: Date) async throws -> Int {
        let milliseconds = try Self.milliseconds(cutoff)
        return try await transaction("delete old events") { connection in
            var removed = 0
            for try await count in try await connection.query("""
                WITH removed AS (DELETE FROM events WHERE opened_ms < \(milliseconds) RETURNING 1)
                SELECT count(*) FROM removed
                """, logger: logger).decode(Int64.self) { removed = Int(count) }
            if removed > 0 {
                try await connection.query("UPDATE history_version SET version = version + 1", logger: logger)
            }
            return removed
        }
    }

    public func foldOpeningRecords<State: Sendable>(
        bridgeIDs: [String]?, into initial: State,
        _ update: @escaping @Sendable (inout State, [OpeningRecordDTO]) throws -> Void
    ) async throws -> State {
        try await withConnection("read events") { connection in
            // postgres-nio's row sequence asks the server for more rows only as they are read, so one page is held.
            let rows = try await connection.query("""
                SELECT bridge_id, opened_ms, closed_ms, open_local FROM events
                WHERE (status IS NULL OR status = 'live') AND (\(bridgeIDs == nil) OR bridge_id = ANY(\(bridgeIDs ?? [])))
                ORDER BY bridge_id, opened_ms
                """, logger: logger)
            var pages = OpeningRecordPages(into: initial, update)
            for try await (bridgeID, opened, closed, openLocal) in rows.decode((String, Int64, Int64?, String).self) {
                guard let wall = FloatingTimestamp(openLocal)?.wallClockSeconds else {
                    throw StoreError.corruptEvent(detail: "an unreadable open_local '\(openLocal)'")
                }
                try pages.append(OpeningRecordDTO(
                    bridgeID: bridgeID, openedAt: opened.floorDivided(by: 1000),
                    closedAt: closed?.floorDivided(by: 1000), openWall: wall))
            }
            return try pages.finish()
        }
    }

    public func historyVersion() async throws -> Int64 {
        let rows = try await rows("read the history version", "SELECT version FROM history_version WHERE id = 1")
        return try rows.first.map { try $0[0].decode(Int64.self) } ?? 0
    }

    public func importCheckpoint(source: String) async throws -> ImportCheckpoint? {
        let rows = try await rows("read the import checkpoint",
                                  "SELECT state FROM import_checkpoints WHERE source = \(source)")
        // An unreadable checkpoint only costs a restart from the top: the upsert is idempotent.
        guard let state = try rows.first.map({ try $0[0].decode(String.self) }) else { return nil }
        return try? JSONDecoder().decode(ImportCheckpoint.self, from: Data(state.utf8))
    }

    public func removeImportCheckpoint(source: String) async throws {
        _ = try await rows("remove the import checkpoint", "DELETE FROM import_checkpoints WHERE source = \(source)")
    }

    /// The event columns in the order `event(_:)` reads them.
    static let eventColumns = "bridge_id, opened_ms, entity_name, open_local, closed_ms, close_local, minutes_open, "
        + "latitude, longitude, status, record_id, record_version, live"

    static func event(_ row: PostgresRandomAccessRow) throws -> BridgeEventDTO {
        let statusText = try row[9].decode(String?.self)
        guard let status = statusText.map(OpeningStatus.init(rawValue:)) ?? .observed,
              statusText != OpeningStatus.observed.rawValue
        else {
            throw StoreError.corruptEvent(detail: "an unknown status '\(statusText ?? "")'")
        }
        var live: LiveWindow?
        if let liveText = try row[12].decode(String?.self) {
            guard let window = LiveWindow(storedText: liveText) else {
                throw StoreError.corruptEvent(detail: "an unreadable live window '\(liveText)'")
            }
            live = window
        }
        return BridgeEventDTO(
            bridgeID: try row[0].decode(String.self), bridgeName: try row[2].decode(String.self),
            openedAt: date(milliseconds: try row[1].decode(Int64.self)), openLocal: try row[3].decode(String.self),
            closedAt: try row[4].decode(Int64?.self).map(date(milliseconds:)), closeLocal: try row[5].decode(String?.self),
            minutesOpen: try row[6].decode(Int?.self), latitude: try row[7].decode(Double?.self),
            longitude: try row[8].decode(Double?.self), status: status, recordID: try row[10].decode(String?.self),
            recordVersion: try row[11].decode(Int64?.self).map(Int.init), live: live)
    }
}

/// A batch of events as the plain paths send it (COPY's text, or the upsert's arrays), and what decides whether it
/// may take them.
struct EventBatch: Sendable {
    let events: [BridgeEventDTO]
    /// Each event's opening instant in milliseconds, in order.
    let openedMS: [Int64]
    let closedMS: [Int64?]
    /// The distinct bridges the batch names.
    let bridgeIDs: [String]
    /// No source records, no key twice.
    let isPlain: Bool
    var count: Int { events.count }

    /// Refuses a batch with an instant no store keeps (`StoredInstant`).
    init(_ events: [BridgeEventDTO]) throws {
        self.events = events
        openedMS = try events.map { try PostgresBridgeStore.milliseconds($0.openedAt) }
        closedMS = try events.map { try $0.closedAt.map { try PostgresBridgeStore.milliseconds($0) } }
        // A key as one integer: the instant times 64 plus the bridge's place among the batch's bridges (a batch
        // names a handful; a String's hash per event cost more than the rest of the check).
        var bridges: [String] = []
        var keys = Set<Int64>(minimumCapacity: events.count)
        var plain = true
        let instants = openedMS
        events.withUnsafeBufferPointer { all in
            for index in all.indices {
                let event = all.baseAddress! + index
                let place: Int
                if let found = bridges.firstIndex(of: event.pointee.bridgeID) {
                    place = found
                } else {
                    place = bridges.count
                    bridges.append(event.pointee.bridgeID)
                }
                // More than 64 bridges in one batch: the row-by-row path, which needs no key set.
                guard plain else { continue }
                if event.pointee.recordID != nil || place >= 64
                    || !keys.insert(instants[index] &* 64 &+ Int64(place)).inserted {
                    plain = false
                }
            }
        }
        bridgeIDs = bridges.sorted()
        isPlain = plain
    }

    /// The columns a batch fills, in the order of `copyText()` and `query(before:after:)`.
    static let columns = ["bridge_id", "opened_ms", "entity_name", "open_local", "closed_ms", "close_local",
                          "minutes_open", "latitude", "longitude", "status"]

    /// Rows sent to COPY at a time.
    static let copyPiece = 1000

    /// Rows of the batch in COPY's text format: a line a row, columns by tabs, `\N` for NULL, and backslash, tab,
    /// newline and carriage return escaped in texts.
    func copyText(_ rows: Range<Int>) -> ByteBuffer {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(rows.count * 128)
        func null() { bytes.append(contentsOf: [0x5C, 0x4E]) } // \N
        func text(_ value: String?) {
            guard let value else { return null() }
            // Most texts need no escape: copied whole.
            if !value.utf8.contains(where: { $0 == 0x5C || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }) {
                bytes.append(contentsOf: value.utf8)
                return
            }
            for byte in value.utf8 {
                switch byte {
                case 0x5C: bytes.append(contentsOf: [0x5C, 0x5C])
                case 0x09: bytes.append(contentsOf: [0x5C, 0x74])
                case 0x0A: bytes.append(contentsOf: [0x5C, 0x6E])
                case 0x0D: bytes.append(contentsOf: [0x5C, 0x72])
                default: bytes.append(byte)
                }
            }
        }
        func integer(_ value: Int64?) {
            guard let value else { return null() }
            if value < 0 { bytes.append(0x2D) }
            var magnitude = value.magnitude
            let first = bytes.count
            repeat {
                bytes.append(UInt8(truncatingIfNeeded: magnitude % 10) + 0x30)
                magnitude /= 10
            } while magnitude > 0
            bytes[first...].reverse() // written units first
        }
        // A bridge's coordinates repeat from row to row: each distinct value is written as text once.
        var reals: [(value: Double, text: [UInt8])] = []
        func real(_ value: Double?) {
            guard let value else { return null() }
            if let known = reals.first(where: { $0.value == value && $0.value.sign == value.sign }) {
                return bytes.append(contentsOf: known.text)
            }
            let text = Array(value.description.utf8) // the shortest text that reads back exactly
            if reals.count < 32 { reals.append((value, text)) }
            bytes.append(contentsOf: text)
        }
        // Each event read where it lies: a copy would retain and release each of its strings.
        events.withUnsafeBufferPointer { all in
            for index in rows {
                let event = all.baseAddress! + index
                let (opened, closed) = (openedMS[index], closedMS[index])
                text(event.pointee.bridgeID)
                bytes.append(0x09)
                integer(opened)
                bytes.append(0x09)
                text(event.pointee.bridgeName)
                bytes.append(0x09)
                text(event.pointee.openLocal)
                bytes.append(0x09)
                integer(closed)
                bytes.append(0x09)
                text(event.pointee.closeLocal)
                bytes.append(0x09)
                integer(event.pointee.minutesOpen.map(Int64.init))
                bytes.append(0x09)
                real(event.pointee.latitude)
                bytes.append(0x09)
                real(event.pointee.longitude)
                bytes.append(0x09)
                text(event.pointee.status == .observed ? nil : event.pointee.status.rawValue)
                bytes.append(0x0A)
            }
        }
        return ByteBuffer(bytes: bytes)
    }

    /// `before`, the batch as a table of rows (`unnest` over its ten columns, bound as arrays), then `after`.
    func query(before: String, after: String = "") -> PostgresQuery {
        var binds = PostgresBindings(capacity: 10)
        binds.append(events.map(\.bridgeID))
        binds.append(openedMS)
        binds.append(events.map(\.bridgeName))
        binds.append(events.map(\.openLocal))
        binds.append(NullableArray(closedMS))
        binds.append(NullableArray(events.map(\.closeLocal)))
        binds.append(NullableArray(events.map { $0.minutesOpen.map(Int64.init) }))
        binds.append(NullableArray(events.map(\.latitude)))
        binds.append(NullableArray(events.map(\.longitude)))
        binds.append(NullableArray(events.map { $0.status == .observed ? nil : $0.status.rawValue }))
        let rows = " unnest($1::text[], $2::int8[], $3::text[], $4::text[], $5::int8[], $6::text[], $7::int8[], "
            + "$8::float8[], $9::float8[], $10::text[])\n"
        return PostgresQuery(unsafeSQL: before + rows + after, binds: binds)
    }
}

extension JSONEncoder {
    static var sorted: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }
}
