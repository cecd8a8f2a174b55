import BridgetDTOs
import BridgetPersistence
import Foundation
import PostgresNIO

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
