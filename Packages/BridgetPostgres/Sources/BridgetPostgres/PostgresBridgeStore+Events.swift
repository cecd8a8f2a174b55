import BridgetDTOs
import BridgetPersistence
import Foundation
import NIOCore
import PostgresNIO

// `upsertEvents(_:checkpoint:)` is here as the one write of events (the checkpoint is `ImportCheckpointStore`'s); how
// a batch is written is in `PostgresBridgeStore+EventWrites.swift`.
extension PostgresBridgeStore: EventStore {
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
