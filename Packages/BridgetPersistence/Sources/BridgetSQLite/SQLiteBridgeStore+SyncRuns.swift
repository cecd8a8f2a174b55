import BridgetDTOs
import BridgetPersistence
import Foundation
import GRDB

extension SQLiteBridgeStore: SyncRunStore {
    public func startSyncRun(provider: String, startedAt: Date, watermarkBefore: Date?) async throws -> Int64 {
        try await write("record a sync run") { db in
            try db.execute(
                sql: "INSERT INTO sync_runs (provider, started_at, status, watermark_before) VALUES (?, ?, 'running', ?)",
                arguments: [provider, try StoredTimestamp.text(startedAt), watermarkBefore.map { try StoredTimestamp.text($0) }])
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
                    record.finishedAt.map { try StoredTimestamp.text($0) }, record.status.rawValue,
                    record.watermarkAfter.map { try StoredTimestamp.text($0) }, record.fetched, record.counts.inserted,
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
}
