import BridgetPersistence
import Foundation
import GRDB

extension SQLiteBridgeStore: SourceIdentityStore {
    public func recordedSource() async throws -> RecordedSource? {
        try await read("read the store's source") { db in try Self.recordedSource(db) }
    }

    public func claimSource(_ identity: SourceIdentity, at now: Date) async throws -> SourceClaim {
        // One write transaction (SQLite's writer lock) reads and records, so two processes cannot both record.
        try await write("record the store's source") { db in
            if let recorded = try Self.recordedSource(db) {
                return recorded.identity == identity ? .same : .other(recorded)
            }
            let holdsOpenings = try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM events)") ?? false
            try db.execute(sql: "INSERT INTO store_source (id, kind, name, recorded_at) VALUES (1, ?, ?, ?)",
                           arguments: [identity.kind, identity.name, try StoredTimestamp.text(now)])
            return holdsOpenings ? .adopted : .recorded
        }
    }

    private static func recordedSource(_ db: Database) throws -> RecordedSource? {
        guard let row = try Row.fetchOne(db, sql: "SELECT kind, name, recorded_at FROM store_source WHERE id = 1") else {
            return nil
        }
        let recordedAt = StoredTimestamp.date(row["recorded_at"] as String) ?? Date(timeIntervalSince1970: 0)
        return RecordedSource(identity: SourceIdentity(kind: row["kind"], name: row["name"]), recordedAt: recordedAt)
    }
}
