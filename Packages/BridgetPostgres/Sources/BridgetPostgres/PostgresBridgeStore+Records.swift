import BridgetDTOs
import BridgetPersistence
import Foundation
import PostgresNIO

// The small parts of the boundary: the catalog, sync runs, opening models, routes, traffic flows, and the store as
// a whole (activity, health).

extension PostgresBridgeStore: BridgeCatalogStore {
    public func upsertBridges(_ given: [BridgeInfoDTO]) async throws {
        // The last of an id given twice wins, as saving them one by one would have it (one statement may not touch a
        // row twice).
        var latest: [String: BridgeInfoDTO] = [:]
        for bridge in given { latest[bridge.id] = bridge }
        let bridges = Array(latest.values)
        guard !bridges.isEmpty else { return }
        _ = try await rows("save bridges", """
            INSERT INTO bridges (id, name, display_name, latitude, longitude, waterway, kind)
            SELECT * FROM unnest(\(bridges.map(\.id))::text[], \(bridges.map(\.name))::text[],
                                 \(bridges.map(\.displayName))::text[], \(bridges.map(\.latitude))::float8[],
                                 \(bridges.map(\.longitude))::float8[], \(bridges.map(\.waterway))::text[],
                                 \(bridges.map(\.kind))::text[])
            ON CONFLICT (id) DO UPDATE SET name = excluded.name, display_name = excluded.display_name,
                latitude = excluded.latitude, longitude = excluded.longitude, waterway = excluded.waterway,
                kind = excluded.kind
            """)
    }

    public func bridges() async throws -> [BridgeInfoDTO] {
        let rows = try await rows("read bridges",
                                  "SELECT id, name, display_name, latitude, longitude, waterway, kind FROM bridges")
        // The catalog's own order (numeric id), as every store lists it.
        return BridgeCatalog(bridges: try rows.map(Self.bridge)).bridges
    }

    static func bridge(_ row: PostgresRandomAccessRow) throws -> BridgeInfoDTO {
        BridgeInfoDTO(id: try row[0].decode(String.self), name: try row[1].decode(String.self),
                      displayName: try row[2].decode(String.self), latitude: try row[3].decode(Double.self),
                      longitude: try row[4].decode(Double.self), waterway: try row[5].decode(String.self),
                      kind: try row[6].decode(String.self))
    }
}

extension PostgresBridgeStore: BridgeStore {
    public func bridgeActivity() async throws -> [BridgeActivity] {
        let rows = try await rows("summarise bridges", """
            SELECT b.id, b.name, b.display_name, b.latitude, b.longitude, b.waterway, b.kind,
                   count(e.opened_ms), max(e.opened_ms)
            FROM bridges b LEFT JOIN events e ON e.bridge_id = b.id
            GROUP BY b.id
            """)
        let activity = try rows.map { row in
            BridgeActivity(bridge: try Self.bridge(row), openings: Int(try row[7].decode(Int64.self)),
                           lastOpening: try row[8].decode(Int64?.self).map(Self.date(milliseconds:)))
        }
        let order = BridgeCatalog(bridges: activity.map(\.bridge)).bridges.map(\.id)
        let byID = Dictionary(uniqueKeysWithValues: activity.map { ($0.bridge.id, $0) })
        return order.compactMap { byID[$0] }
    }
}

extension PostgresBridgeStore: StoreHealth {
    /// Checks what PostgreSQL's own constraints do not: every event names a catalogued bridge, every model has its week
    /// of slots, the history version is one row. "ok", or what is wrong.
    public func integrityCheck() async throws -> String {
        let rows = try await rows("check integrity", """
            SELECT 'events naming an unknown bridge', count(*) FROM events e
                WHERE NOT EXISTS (SELECT 1 FROM bridges b WHERE b.id = e.bridge_id)
            UNION ALL SELECT 'opening models without 672 slots', count(*) FROM opening_models
                WHERE cardinality(slot_starts) <> 672 OR cardinality(slot_occurrences) <> 672
                   OR cardinality(slot_start_probability) <> 672 OR cardinality(slot_open_probability) <> 672
                   OR cardinality(slot_mean_remaining) <> 672
            UNION ALL SELECT 'history version rows (should be 1)', count(*) - 1 FROM history_version
            """)
        let problems = try rows.compactMap { row -> String? in
            let count = try row[1].decode(Int64.self)
            return count == 0 ? nil : "\(count) \(try row[0].decode(String.self))"
        }
        return problems.isEmpty ? "ok" : problems.joined(separator: "\n")
    }
}

extension PostgresBridgeStore: SyncRunStore {
    public func startSyncRun(provider: String, startedAt: Date, watermarkBefore: Date?) async throws -> Int64 {
        let rows = try await rows("record a sync run", """
            INSERT INTO sync_runs (provider, started_ms, status, watermark_before_ms, host)
            VALUES (\(provider), \(try Self.milliseconds(startedAt)), 'running', \(watermarkBefore.map { try Self.milliseconds($0) })::bigint,
                    \(syncLockHolder)::text)
            RETURNING id
            """)
        guard let id = try rows.first.map({ try $0[0].decode(Int64.self) }) else {
            throw PostgresStoreError.failed(store: settings.description, action: "record a sync run", reason: "no id returned")
        }
        return id
    }

    public func finishSyncRun(_ record: SyncRunRecord) async throws {
        let rejections = String(decoding: try JSONEncoder.sorted.encode(record.rejections.byReason), as: UTF8.self)
        let rows = try await rows("record a sync run", """
            UPDATE sync_runs SET finished_ms = \(record.finishedAt.map { try Self.milliseconds($0) })::bigint,
                status = \(record.status.rawValue), watermark_after_ms = \(record.watermarkAfter.map { try Self.milliseconds($0) })::bigint,
                fetched = \(Int64(record.fetched)), inserted = \(Int64(record.counts.inserted)),
                updated = \(Int64(record.counts.updated)), unchanged = \(Int64(record.counts.unchanged)),
                rejected = \(Int64(record.rejections.total)), rejections = \(rejections), error = \(record.error)::text,
                fingerprint = \(record.fingerprint)::text
            WHERE id = \(record.id)
            RETURNING id
            """)
        if rows.isEmpty { throw StoreError.noSyncRun(id: record.id) }
    }

    public func syncRuns(limit: Int) async throws -> [SyncRunRecord] {
        try await rows("read sync runs", "SELECT \(unescaped: Self.syncRunColumns) FROM sync_runs ORDER BY id DESC LIMIT \(Int64(max(limit, 0)))")
            .map(Self.syncRun)
    }

    public func lastSucceededRun(provider: String) async throws -> SyncRunRecord? {
        try await rows("read sync runs", """
            SELECT \(unescaped: Self.syncRunColumns) FROM sync_runs WHERE provider = \(provider) AND status = 'succeeded'
            ORDER BY id DESC LIMIT 1
            """).first.map(Self.syncRun)
    }

    static let syncRunColumns = "id, provider, started_ms, finished_ms, status, watermark_before_ms, watermark_after_ms, "
        + "fetched, inserted, updated, unchanged, rejections, error, fingerprint"

    static func syncRun(_ row: PostgresRandomAccessRow) throws -> SyncRunRecord {
        let byReason = (try? JSONDecoder().decode([RejectionReason: Int].self,
                                                  from: Data(try row[11].decode(String.self).utf8))) ?? [:]
        return SyncRunRecord(
            id: try row[0].decode(Int64.self), provider: try row[1].decode(String.self),
            startedAt: date(milliseconds: try row[2].decode(Int64.self)),
            finishedAt: try row[3].decode(Int64?.self).map(date(milliseconds:)),
            status: SyncRunStatus(rawValue: try row[4].decode(String.self)) ?? .failed,
            watermarkBefore: try row[5].decode(Int64?.self).map(date(milliseconds:)),
            watermarkAfter: try row[6].decode(Int64?.self).map(date(milliseconds:)),
            fetched: Int(try row[7].decode(Int64.self)),
            counts: UpsertCounts(inserted: Int(try row[8].decode(Int64.self)), updated: Int(try row[9].decode(Int64.self)),
                                 unchanged: Int(try row[10].decode(Int64.self))),
            rejections: RejectionCounts(byReason), error: try row[12].decode(String?.self),
            fingerprint: try row[13].decode(String?.self))
    }
}

extension PostgresBridgeStore: OpeningModelStore {
    public func saveOpeningModels(_ models: [OpeningModelDTO]) async throws {
        try await transaction("save opening models") { connection in
            if let orphan = try await unknownBridge(Array(Set(models.map(\.bridgeID))).sorted(), connection) {
                throw StoreError.orphan(.model, bridgeID: orphan)
            }
            try await connection.query("DELETE FROM opening_models", logger: logger)
            for model in models {
                let slots = model.slots
                try await connection.query("""
                    INSERT INTO opening_models (bridge_id, built_ms, first_day, last_day, openings, source_events,
                        source_latest_ms, base_start_probability, base_open_probability, month_factors, source_version,
                        slot_starts, slot_occurrences, slot_start_probability, slot_open_probability, slot_mean_remaining,
                        dynamics)
                    VALUES (\(model.bridgeID), \(try Self.milliseconds(model.builtAt)), \(model.firstDay)::text,
                        \(model.lastDay)::text, \(Int64(model.openings)), \(Int64(model.sourceEvents)),
                        \(model.sourceLatestOpening.map { try Self.milliseconds($0) })::bigint, \(model.baseStartProbability),
                        \(model.baseOpenProbability), \(model.monthFactors), \(model.sourceVersion),
                        \(slots.map { Int64($0.starts) }), \(slots.map { Int64($0.occurrences) }),
                        \(slots.map(\.startProbability)), \(slots.map(\.openProbability)),
                        \(slots.map(\.meanRemainingMinutes)),
                        \(String(decoding: try JSONEncoder().encode(model.dynamics), as: UTF8.self)))
                    """, logger: logger)
            }
        }
    }

    public func openingModels(bridgeIDs: [String]) async throws -> [OpeningModelDTO] {
        let wanted = Array(Set(bridgeIDs)).sorted()
        guard !wanted.isEmpty else { return [] }
        let rows = try await rows("read opening models", """
            SELECT bridge_id, built_ms, first_day, last_day, openings, source_events, source_latest_ms,
                   base_start_probability, base_open_probability, month_factors, source_version, slot_starts,
                   slot_occurrences, slot_start_probability, slot_open_probability, slot_mean_remaining, dynamics
            FROM opening_models WHERE bridge_id = ANY(\(wanted)::text[]) ORDER BY bridge_id
            """)
        return try rows.map { row in
            let bridgeID = try row[0].decode(String.self)
            let starts = try row[11].decode([Int64].self), occurrences = try row[12].decode([Int64].self)
            let start = try row[13].decode([Double].self), open = try row[14].decode([Double].self)
            let remaining = try row[15].decode([Double].self)
            guard [occurrences.count, start.count, open.count, remaining.count].allSatisfy({ $0 == starts.count }),
                  starts.count == OpeningModelDTO.slotsPerWeek
            else {
                throw StoreError.corruptModel(bridgeID: bridgeID, slots: starts.count)
            }
            let slots = starts.indices.map { index in
                OpeningSlotDTO(starts: Int(starts[index]), occurrences: Int(occurrences[index]),
                               startProbability: start[index], openProbability: open[index],
                               meanRemainingMinutes: remaining[index])
            }
            return OpeningModelDTO(
                bridgeID: bridgeID, builtAt: Self.date(milliseconds: try row[1].decode(Int64.self)),
                firstDay: try row[2].decode(String?.self), lastDay: try row[3].decode(String?.self),
                openings: Int(try row[4].decode(Int64.self)), sourceEvents: Int(try row[5].decode(Int64.self)),
                sourceLatestOpening: try row[6].decode(Int64?.self).map(Self.date(milliseconds:)),
                baseStartProbability: try row[7].decode(Double.self), baseOpenProbability: try row[8].decode(Double.self),
                slots: slots, monthFactors: try row[9].decode([Double].self), sourceVersion: try row[10].decode(Int64.self),
                dynamics: try row[16].decode(String?.self).flatMap {
                    try? JSONDecoder().decode(OpeningDynamicsDTO.self, from: Data($0.utf8)) }.flatMap {
                    $0.isSound ? $0 : nil } ?? .none)
        }
    }
}

extension PostgresBridgeStore: RouteStore {
    public func saveRoute(_ route: RouteDTO) async throws {
        let crossings = String(decoding: try JSONEncoder.sorted.encode(route.crossings), as: UTF8.self)
        _ = try await rows("save a route", """
            INSERT INTO routes (name, favorite, crossings) VALUES (\(route.id), \(route.isFavorite), \(crossings))
            ON CONFLICT (name) DO UPDATE SET favorite = excluded.favorite, crossings = excluded.crossings
            """)
    }

    public func routes() async throws -> [RouteDTO] {
        try await rows("read routes", "SELECT name, favorite, crossings FROM routes ORDER BY favorite DESC, name").map { row in
            let name = try row[0].decode(String.self)
            guard let crossings = try? JSONDecoder().decode([RouteCrossingDTO].self,
                                                            from: Data(try row[2].decode(String.self).utf8))
            else {
                throw StoreError.corruptRoute(name: name)
            }
            return RouteDTO(id: name, crossings: crossings, isFavorite: try row[1].decode(Bool.self))
        }
    }

    public func removeRoute(named name: String) async throws -> Bool {
        try await !rows("remove a route", "DELETE FROM routes WHERE name = \(name) RETURNING 1").isEmpty
    }
}

extension PostgresBridgeStore: TrafficFlowStore {
    public func upsertTrafficFlows(_ flows: [TrafficFlowDTO]) async throws {
        guard !flows.isEmpty else { return }
        try await transaction("save traffic flows") { connection in
            if let orphan = try await unknownBridge(Array(Set(flows.map(\.bridgeID))).sorted(), connection) {
                throw StoreError.orphan(.traffic, bridgeID: orphan)
            }
            // The last of a (bridge, instant) given twice wins, as row-by-row replacing would have it.
            var latest: [String: TrafficFlowDTO] = [:]
            for flow in flows { latest["\(flow.bridgeID) \(try Self.milliseconds(flow.timestamp))"] = flow }
            let unique = Array(latest.values)
            try await connection.query("""
                INSERT INTO traffic_flows (bridge_id, observed_ms, congestion, volume)
                SELECT * FROM unnest(\(unique.map(\.bridgeID))::text[], \(unique.map { try Self.milliseconds($0.timestamp) })::int8[],
                                     \(unique.map(\.congestionLevel))::float8[], \(unique.map { Int64($0.trafficVolume) })::int8[])
                ON CONFLICT (bridge_id, observed_ms) DO UPDATE SET congestion = excluded.congestion, volume = excluded.volume
                """, logger: logger)
        }
    }

    public func trafficFlows(bridgeID: String) async throws -> [TrafficFlowDTO] {
        try await withConnection("read traffic flows") { connection in
            // Decoded as they arrive: years of hourly rows held as rows would cost several times the flows.
            var flows: [TrafficFlowDTO] = []
            let rows = try await connection.query("""
                SELECT observed_ms, congestion, volume FROM traffic_flows WHERE bridge_id = \(bridgeID)
                ORDER BY observed_ms
                """, logger: logger)
            for try await (observed, congestion, volume) in rows.decode((Int64, Double, Int64).self) {
                flows.append(TrafficFlowDTO(bridgeID: bridgeID, timestamp: Self.date(milliseconds: observed),
                                            congestionLevel: congestion, trafficVolume: Int(volume)))
            }
            return flows
        }
    }
}
