import BridgetDTOs
import BridgetPersistence
import Foundation
import NIOCore
import PostgresNIO

/// How a batch of events is written: the plain paths (COPY, one `unnest` upsert) and the row-by-row one.
extension PostgresBridgeStore {
    /// The batch as arrays in one statement. When no stored opening lies in the batch's time range (a first import,
    /// a sync past the watermark) it is a plain insert; otherwise, or when a concurrent writer got there first, an
    /// upsert that inserts new keys and updates those whose fields differ.
    ///
    /// Changes are logged as `BulkChangeTally` says: the openings of `replacing` (published rows that replace live
    /// ones, relabelled `replaced` after) always one by one.
    func upsertPlain(_ batch: EventBatch, copy: [ByteBuffer]?, replacing: [(bridgeID: String, openedMS: Int64)],
                             _ connection: PostgresConnection) async throws -> UpsertCounts {
        guard let first = batch.openedMS.min(), let last = batch.openedMS.max() else { return UpsertCounts() }
        let tallyStart = BulkChangeTally(now: Date())
        let recentFromMS = try Self.milliseconds(tallyStart.recentFrom)
        if try await !overlapsStored(batch, first: first, last: last, connection),
           let counts = try await insertByCopy(batch, copy: copy, replacing: replacing, tally: tallyStart, connection) {
            return counts
        }
        return try await upsertArrays(batch, replacing: replacing, recentFromMS: recentFromMS, connection)
    }

    /// Whether a stored opening may conflict with `batch` (whose instants run from `first` to `last`, in
    /// milliseconds).
    private func overlapsStored(_ batch: EventBatch, first: Int64, last: Int64, _ connection: PostgresConnection)
        async throws -> Bool
    {
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
        return overlaps
    }

    /// Nothing stored can conflict, so the rows go in as COPY, PostgreSQL's bulk path (no speculative insertion, no
    /// per-row function): about as fast as psql's \copy of the same rows. A writer that inserts into the same range
    /// meanwhile makes the copy fail on the key: nil, and the batch then takes the upsert (`upsertArrays`; the
    /// savepoint undoes only the failed copy).
    private func insertByCopy(_ batch: EventBatch, copy: [ByteBuffer]?,
                              replacing: [(bridgeID: String, openedMS: Int64)], tally tallyStart: BulkChangeTally,
                              _ connection: PostgresConnection) async throws -> UpsertCounts? {
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
            try await logInserted(batch, replacing: replacing, tally: tallyStart, connection)
            return UpsertCounts(inserted: batch.count)
        } catch let error as PSQLError where error.serverInfo?[.sqlState] == "23505" {
            try await connection.query("ROLLBACK TO SAVEPOINT plain_insert", logger: logger)
            return nil
        }
    }

    /// Every row of a copied batch is new: logged one by one, or the older ones as one summary (the openings of
    /// `replacing` always one by one).
    private func logInserted(_ batch: EventBatch, replacing: [(bridgeID: String, openedMS: Int64)],
                             tally tallyStart: BulkChangeTally, _ connection: PostgresConnection) async throws {
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
    }

    /// The batch as one upsert over arrays, which inserts new keys and updates those whose fields differ, and logs
    /// the changes in the same statement. The same rule as `BulkChangeTally`'s, in SQL: a change is itemized when its
    /// opening is announced or live, of the last day (from `recentFromMS`, $13), or a replacement (`replacing`, $11,
    /// $12); the others are, when more than the limit, one summary.
    private func upsertArrays(_ batch: EventBatch, replacing: [(bridgeID: String, openedMS: Int64)],
                              recentFromMS: Int64, _ connection: PostgresConnection) async throws -> UpsertCounts {
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
    func upsertRowByRow(_ events: [BridgeEventDTO], _ matching: inout PostgresLiveMatching,
                                _ connection: PostgresConnection) async throws -> UpsertCounts {
        var counts = UpsertCounts()
        // Changes to older openings beyond the first `itemizedLimit` are one summary (`BulkChangeTally`).
        var tally = BulkChangeTally(now: Date())
        for event in events {
            try await upsertRow(EventColumns(event), counts: &counts, tally: &tally, matching: &matching, connection)
        }
        if tally.summarises { try await appendSummary(tally, connection) }
        return counts
    }

    /// Writes one event row by row (left, inserted, replacing others, updated or unchanged), counts it and logs its
    /// change.
    private func upsertRow(_ row: EventColumns, counts: inout UpsertCounts, tally: inout BulkChangeTally,
                           matching: inout PostgresLiveMatching, _ connection: PostgresConnection) async throws {
        let event = row.event
        var replaced = false
        switch try await matching.resolve(event, connection) {
        case .leave:
            counts.unchanged += 1
            return
        case .replacedLive: replaced = true
        case .none: break
        }
        if let recordID = event.recordID {
            guard let removed = try await removeEarlierVersions(of: recordID, row, connection) else {
                counts.unchanged += 1
                return
            }
            replaced = removed || replaced
        }
        if try await inserted(row, connection) {
            if replaced {
                counts.updated += 1
                try await logChange(.replaced, row, tally: &tally, connection)
            } else {
                counts.inserted += 1
                try await logChange(event.status == .planned ? .announced : .new, row, tally: &tally, connection)
            }
            return
        }
        var change = try await updated(row, connection)
        if replaced { change = .replaced }
        if let change {
            counts.updated += 1
            try await logChange(change, row, tally: &tally, connection)
        } else {
            counts.unchanged += 1
        }
    }

    /// Runs `query`: whether it returned a row.
    private func returnsRow(_ query: PostgresQuery, _ connection: PostgresConnection) async throws -> Bool {
        var found = false
        for try await _ in try await connection.query(query, logger: logger) { found = true }
        return found
    }

    /// For source record `recordID`: nil when a later version is stored (the event is left), else whether the
    /// record's openings at other instants were deleted (the event replaces them).
    private func removeEarlierVersions(of recordID: String, _ row: EventColumns, _ connection: PostgresConnection)
        async throws -> Bool?
    {
        let (event, opened, version) = (row.event, row.opened, row.version)
        // A NULL version is older than any.
        if try await returnsRow("""
            SELECT 1 FROM events WHERE record_id = \(recordID)
            AND (record_version > \(version)::bigint OR (\(version)::bigint IS NULL AND record_version IS NOT NULL))
            LIMIT 1
            """, connection)
        {
            return nil
        }
        return try await returnsRow("""
            DELETE FROM events WHERE record_id = \(recordID)
            AND NOT (bridge_id = \(event.bridgeID) AND opened_ms = \(opened)) RETURNING 1
            """, connection)
    }

    /// Inserts the event unless its key is stored: whether it did.
    private func inserted(_ row: EventColumns, _ connection: PostgresConnection) async throws -> Bool {
        let (event, opened, closed, status, version, live, minutes) =
            (row.event, row.opened, row.closed, row.status, row.version, row.live, row.minutes)
        return try await returnsRow("""
            INSERT INTO events (bridge_id, opened_ms, entity_name, open_local, closed_ms, close_local, minutes_open,
                                latitude, longitude, status, record_id, record_version, live)
            VALUES (\(event.bridgeID), \(opened), \(event.bridgeName), \(event.openLocal), \(closed)::bigint,
                    \(event.closeLocal)::text, \(minutes)::bigint, \(event.latitude)::float8, \(event.longitude)::float8,
                    \(status)::text, \(event.recordID)::text, \(version)::bigint, \(live)::text)
            ON CONFLICT (bridge_id, opened_ms) DO NOTHING RETURNING 1
            """, connection)
    }

    /// Updates the stored opening to the event where a field differs: the kind of change it was (nil: none), from
    /// the stored row before the update, read in the statement's snapshot.
    private func updated(_ row: EventColumns, _ connection: PostgresConnection) async throws -> OpeningChangeKind? {
        let (event, opened, closed, status, version, live, minutes) =
            (row.event, row.opened, row.closed, row.status, row.version, row.live, row.minutes)
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
        return change
    }

    /// Logs the event's change, or tallies it for the write's summary.
    private func logChange(_ kind: OpeningChangeKind, _ row: EventColumns, tally: inout BulkChangeTally,
                           _ connection: PostgresConnection) async throws {
        let event = row.event
        if tally.isItemized(kind, status: event.status, openedAt: event.openedAt, closedAt: event.closedAt) {
            try await appendChange(kind, row, connection)
            return
        }
        switch tally.add(kind, bridgeID: event.bridgeID, openedAt: event.openedAt) {
        case .logEntry: tally.logged(try await appendChange(kind, row, connection))
        case .retract(let sequences):
            try await connection.query("DELETE FROM change_log WHERE seq = ANY(\(sequences)::int8[])", logger: logger)
        case .tallied: break
        }
    }

    /// Appends the event's change to the log: its number.
    @discardableResult
    private func appendChange(_ kind: OpeningChangeKind, _ row: EventColumns, _ connection: PostgresConnection)
        async throws -> Int64
    {
        let (event, opened, closed, status, version) = (row.event, row.opened, row.closed, row.status, row.version)
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
}

/// An event's column values as the row-by-row path binds them: instants in milliseconds, the status NULL when
/// observed.
private struct EventColumns {
    let event: BridgeEventDTO
    let opened: Int64
    let closed: Int64?
    let status: String?
    let version: Int64?
    let live: String?
    let minutes: Int64?

    /// Refuses an event with an instant no store keeps (`StoredInstant`).
    init(_ event: BridgeEventDTO) throws {
        self.event = event
        opened = try PostgresBridgeStore.milliseconds(event.openedAt)
        closed = try event.closedAt.map { try PostgresBridgeStore.milliseconds($0) }
        status = event.status == .observed ? nil : event.status.rawValue
        version = event.recordVersion.map(Int64.init)
        live = event.live?.storedText
        minutes = event.minutesOpen.map(Int64.init)
    }
}
