import BridgetDTOs
import BridgetPersistence
import Foundation
import PostgresNIO

/// The live openings a batch may meet (`LiveMatch`), read once a batch; nothing when the store holds no live opening
/// (one look at the partial index), so a bulk load of published rows keeps its plain path.
struct PostgresLiveMatching {
    enum Resolution {
        case none
        case replacedLive
        case leave
    }

    private struct Stored {
        let openedMS: Int64
        let openedAt: Date
        let closedAt: Date?
    }

    private var live: [String: [Stored]] = [:]
    private var published: [String: [Stored]] = [:]
    /// Whether the batch holds live openings: it then goes row by row.
    let hasIncomingLive: Bool
    private let logger: Logger

    init(_ events: [BridgeEventDTO], store: PostgresBridgeStore, _ connection: PostgresConnection) async throws {
        let logger = store.logger
        self.logger = logger
        func read(_ condition: String, _ range: ClosedRange<Date>) async throws -> [String: [Stored]] {
            let low = try PostgresBridgeStore.milliseconds(range.lowerBound)
            let high = try PostgresBridgeStore.milliseconds(range.upperBound)
            var found: [String: [Stored]] = [:]
            let rows = try await connection.query(PostgresQuery(
                unsafeSQL: "SELECT bridge_id, opened_ms, closed_ms FROM events WHERE \(condition) "
                    + "AND opened_ms BETWEEN $1 AND $2",
                binds: { var binds = PostgresBindings(); binds.append(low); binds.append(high); return binds }()),
                logger: logger)
            for try await (bridgeID, opened, closed) in rows.decode((String, Int64, Int64?).self) {
                found[bridgeID, default: []].append(Stored(
                    openedMS: opened, openedAt: PostgresBridgeStore.date(milliseconds: opened),
                    closedAt: closed.map(PostgresBridgeStore.date(milliseconds:))))
            }
            return found
        }
        var anyLive = false
        if let range = LiveMatch.candidateRange(events.lazy.filter { $0.status == .observed && $0.recordID == nil }) {
            for try await exists in try await connection.query(
                "SELECT EXISTS (SELECT 1 FROM events WHERE status = 'live')", logger: logger
            ).decode(Bool.self) { anyLive = exists }
            if anyLive { live = try await read("status = 'live'", range) }
        }
        let incomingLive = events.contains { $0.status == .live }
        if let range = LiveMatch.candidateRange(events.lazy.filter { $0.status == .live }) {
            published = try await read("status IS NULL AND record_id IS NULL", range)
        }
        hasIncomingLive = incomingLive
    }

    /// For a batch that goes in whole: deletes the live openings its published events match, and returns the keys of
    /// those events (their changes are then logged as replacements).
    mutating func replaceMatched(_ events: [BridgeEventDTO], _ connection: PostgresConnection) async throws
        -> [(bridgeID: String, openedMS: Int64)]
    {
        guard !live.isEmpty else { return [] }
        var replacing: [(bridgeID: String, openedMS: Int64)] = []
        for event in events where event.status == .observed && event.recordID == nil && live[event.bridgeID] != nil {
            if case .replacedLive = try await resolve(event, connection) {
                replacing.append((event.bridgeID, try PostgresBridgeStore.milliseconds(event.openedAt)))
            }
        }
        return replacing
    }

    /// What `event` does: a published one deletes the live openings it matches (each once).
    mutating func resolve(_ event: BridgeEventDTO, _ connection: PostgresConnection) async throws -> Resolution {
        if event.status == .live {
            let matched = published[event.bridgeID]?.contains { stored in
                LiveMatch.matches(published: (stored.openedAt, stored.closedAt), live: (event.openedAt, event.closedAt))
            } ?? false
            return matched ? .leave : .none
        }
        guard event.status == .observed, event.recordID == nil, let candidates = live[event.bridgeID],
              !candidates.isEmpty
        else { return .none }
        var kept: [Stored] = []
        var gone: [Int64] = []
        for stored in candidates {
            if LiveMatch.matches(published: (event.openedAt, event.closedAt), live: (stored.openedAt, stored.closedAt)) {
                gone.append(stored.openedMS)
            } else {
                kept.append(stored)
            }
        }
        guard !gone.isEmpty else { return .none }
        try await connection.query("""
            DELETE FROM events WHERE bridge_id = \(event.bridgeID) AND opened_ms = ANY(\(gone)::int8[]) AND status = 'live'
            """, logger: logger)
        live[event.bridgeID] = kept
        return .replacedLive
    }
}

extension PostgresBridgeStore: LiveStateStore {
    public func liveFeedState() async throws -> LiveFeedState? {
        let rows = try await rows("read the live state", "SELECT state FROM live_feed WHERE id = 1")
        guard let text = try rows.first.flatMap({ try $0[0].decode(String?.self) }) else { return nil }
        do {
            return try JSONDecoder().decode(LiveFeedState.self, from: Data(text.utf8))
        } catch {
            throw StoreError.corruptEvent(detail: "an unreadable live state (\(error))")
        }
    }

    public func claimLiveFeed(holder: String, now: Date, until: Date) async throws -> LiveFeedLease {
        let nowMS = try Self.milliseconds(now, "the claim's time")
        let untilMS = try Self.milliseconds(until, "the lease's end")
        // One statement: PostgreSQL locks the row while it decides, so two claims take turns.
        _ = try await rows("claim the live state feed", """
            UPDATE live_feed SET holder = \(holder), lease_until_ms = \(untilMS)
            WHERE id = 1 AND (holder IS NULL OR holder = \(holder) OR lease_until_ms IS NULL OR lease_until_ms < \(nowMS))
            """)
        let rows = try await rows("read the live state feed's lease", "SELECT holder, lease_until_ms FROM live_feed WHERE id = 1")
        let owner = try rows.first.flatMap { try $0[0].decode(String?.self) } ?? holder
        let ms = try rows.first.flatMap { try $0[1].decode(Int64?.self) } ?? untilMS
        return LiveFeedLease(holder: owner, until: Self.date(milliseconds: ms))
    }

    public func saveLiveFeed(_ state: LiveFeedState, events: [BridgeEventDTO], holder: String, now: Date) async throws
        -> UpsertCounts
    {
        _ = try Self.milliseconds(now, "the live state's time")
        let text = String(decoding: try JSONEncoder.sorted.encode(state), as: UTF8.self)
        let batch = try EventBatch(events)
        return try await transaction("save the live state") { connection in
            // The row locked to the commit: a claim by another process waits for this write, or this one sees it.
            var owner: String?
            for try await found in try await connection.query(
                "SELECT holder FROM live_feed WHERE id = 1 FOR UPDATE", logger: logger
            ).decode(String?.self) { owner = found }
            guard owner == holder else { throw StoreError.notLiveFeedHolder(holder: owner) }
            let counts = try await upsert(events, batch, connection)
            try await connection.query("UPDATE live_feed SET state = \(text) WHERE id = 1", logger: logger)
            return counts
        }
    }

    public func releaseLiveFeed(holder: String) async throws {
        _ = try await rows("release the live state feed", """
            UPDATE live_feed SET holder = NULL, lease_until_ms = NULL WHERE id = 1 AND holder = \(holder)
            """)
    }
}
