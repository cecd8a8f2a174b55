import BridgetDTOs
import BridgetPersistence
import Foundation
import GRDB

/// The live openings a batch of events may meet (`LiveMatch`), read once a batch: none at all when the store holds
/// no live opening (one look at the partial index), so a bulk load of published rows pays nothing more.
struct LiveMatchingSQL {
    /// What an incoming event does to the live openings.
    enum Resolution {
        /// Nothing live is involved.
        case none
        /// It is published and replaced the live openings it matched (they are deleted).
        case replacedLive
        /// It is live and its published record is stored: it is left.
        case leave
    }

    private struct Stored {
        let bridgeID: String
        let openedText: String
        let openedAt: Date
        let closedAt: Date?
    }

    private var live: [String: [Stored]] = [:]
    private var published: [String: [Stored]] = [:]

    /// Whether no event of the batch can match a stored one: then `resolve` is `.none` for each (an import).
    var isEmpty: Bool { live.isEmpty && published.isEmpty }

    init(_ db: Database, _ events: [BridgeEventDTO]) throws {
        // One walk reading each event in place says what the batch holds (a lazy filter copied every event, its
        // strings retained and released, twice); then the store is asked (one probe of the partial index) before the
        // published events' range is walked: an import, with no live opening stored, walks no further.
        var holdsLive = false
        var holdsPublished = false
        events.withUnsafeBufferPointer { all in
            for index in all.indices where !(holdsLive && holdsPublished) {
                switch all[index].status {
                case .live: holdsLive = true
                case .observed where all[index].recordID == nil: holdsPublished = true
                default: break
                }
            }
        }
        if holdsPublished,
           try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM events WHERE status = 'live')") == true,
           let range = LiveMatch.candidateRange(events.lazy.filter { $0.status == .observed && $0.recordID == nil })
        {
            live = try Self.read(db, status: "status = 'live'", range)
        }
        if holdsLive, let range = LiveMatch.candidateRange(events.lazy.filter { $0.status == .live }) {
            published = try Self.read(db, status: "status IS NULL AND record_id IS NULL", range)
        }
    }

    private static func read(_ db: Database, status: String, _ range: ClosedRange<Date>) throws -> [String: [Stored]] {
        var found: [String: [Stored]] = [:]
        let rows = try Row.fetchCursor(db, sql: """
            SELECT bridge_id, opened_at, closed_at FROM events WHERE \(status) AND opened_at BETWEEN ? AND ?
            """, arguments: [try StoredTimestamp.text(range.lowerBound), try StoredTimestamp.text(range.upperBound)])
        while let row = try rows.next() {
            let text: String = row[1]
            guard let openedAt = StoredTimestamp.date(text) else {
                throw StoreError.corruptEvent(detail: "an unreadable opened_at '\(text)'")
            }
            let closedAt = (row[2] as String?).flatMap(StoredTimestamp.date)
            found[row[0], default: []].append(Stored(bridgeID: row[0], openedText: text, openedAt: openedAt,
                                                     closedAt: closedAt))
        }
        return found
    }

    /// What `event` does: a published one deletes the live openings it matches (each once: a second published row
    /// of a fragmented opening is new).
    mutating func resolve(_ event: BridgeEventDTO, _ db: Database) throws -> Resolution {
        if event.status == .live {
            let matched = published[event.bridgeID]?.contains { stored in
                LiveMatch.matches(published: (stored.openedAt, stored.closedAt), live: (event.openedAt, event.closedAt))
            } ?? false
            return matched ? .leave : .none
        }
        guard event.status == .observed, event.recordID == nil, let liveHere = live[event.bridgeID], !liveHere.isEmpty
        else { return .none }
        var candidates = liveHere
        var replaced = false
        candidates.removeAll { stored in
            guard LiveMatch.matches(published: (event.openedAt, event.closedAt), live: (stored.openedAt, stored.closedAt))
            else { return false }
            replaced = true
            return true
        }
        guard replaced else { return .none }
        let gone = liveHere.filter { stored in !candidates.contains { $0.openedText == stored.openedText } }
        for stored in gone {
            try db.execute(sql: "DELETE FROM events WHERE bridge_id = ? AND opened_at = ? AND status = 'live'",
                           arguments: [stored.bridgeID, stored.openedText])
        }
        live[event.bridgeID] = candidates
        return .replacedLive
    }
}

extension SQLiteBridgeStore: LiveStateStore {
    public func liveFeedState() async throws -> LiveFeedState? {
        try await read("read the live state") { db in
            guard let text = try String.fetchOne(db, sql: "SELECT state FROM live_feed WHERE id = 1") else { return nil }
            do {
                return try JSONDecoder().decode(LiveFeedState.self, from: Data(text.utf8))
            } catch {
                throw StoreError.corruptEvent(detail: "an unreadable live state (\(error))")
            }
        }
    }

    public func claimLiveFeed(holder: String, now: Date, until: Date) async throws -> LiveFeedLease {
        let nowMS = try StoredInstant.milliseconds(now, "the claim's time")
        let untilMS = try StoredInstant.milliseconds(until, "the lease's end")
        return try await write("claim the live state feed") { db in
            try db.execute(sql: """
                UPDATE live_feed SET holder = ?1, lease_until_ms = ?2
                WHERE id = 1 AND (holder IS NULL OR holder = ?1 OR lease_until_ms IS NULL OR lease_until_ms < ?3)
                """, arguments: [holder, untilMS, nowMS])
            let row = try Row.fetchOne(db, sql: "SELECT holder, lease_until_ms FROM live_feed WHERE id = 1")
            let owner: String = row?["holder"] ?? holder
            let ms: Int64 = row?["lease_until_ms"] ?? untilMS
            return LiveFeedLease(holder: owner, until: Date(timeIntervalSince1970: Double(ms) / 1000))
        }
    }

    public func saveLiveFeed(_ state: LiveFeedState, events: [BridgeEventDTO], holder: String, now: Date) async throws
        -> UpsertCounts
    {
        _ = try StoredInstant.milliseconds(now, "the live state's time")
        let text = String(decoding: try JSONEncoder.sorted.encode(state), as: UTF8.self)
        defer { checkpointer?.request() }
        return try await write("save the live state") { db in
            let owner = try String.fetchOne(db, sql: "SELECT holder FROM live_feed WHERE id = 1")
            guard owner == holder else { throw StoreError.notLiveFeedHolder(holder: owner) }
            let counts = try Self.upsert(events, db)
            try db.execute(sql: "UPDATE live_feed SET state = ? WHERE id = 1", arguments: [text])
            return counts
        }
    }

    public func releaseLiveFeed(holder: String) async throws {
        try await write("release the live state feed") { db in
            try db.execute(sql: "UPDATE live_feed SET holder = NULL, lease_until_ms = NULL WHERE id = 1 AND holder = ?",
                           arguments: [holder])
        }
    }
}
