import BridgetPersistence
import Foundation
import PostgresNIO

extension PostgresBridgeStore: SourceIdentityStore {
    public func recordedSource() async throws -> RecordedSource? {
        try await withConnection("read the store's source") { connection in try await Self.recordedSource(connection, logger) }
    }

    public func claimSource(_ identity: SourceIdentity, at now: Date) async throws -> SourceClaim {
        let nowMS = try Self.milliseconds(now, "the claim's time")
        let (kind, name) = (identity.kind, identity.name)
        return try await transaction("record the store's source") { connection in
            // The insert takes the row's key: of two claims at once, one inserts and the other waits, then sees it.
            var inserted = false
            for try await _ in try await connection.query("""
                INSERT INTO store_source (id, kind, name, recorded_ms) VALUES (1, \(kind), \(name), \(nowMS))
                ON CONFLICT (id) DO NOTHING RETURNING id
                """, logger: logger).decode(Int32.self) { inserted = true }
            if inserted {
                var holdsOpenings = false
                for try await exists in try await connection.query(
                    "SELECT EXISTS (SELECT 1 FROM events)", logger: logger
                ).decode(Bool.self) { holdsOpenings = exists }
                return holdsOpenings ? .adopted : .recorded
            }
            guard let recorded = try await Self.recordedSource(connection, logger) else { return .recorded }
            return recorded.identity == identity ? .same : .other(recorded)
        }
    }

    private static func recordedSource(_ connection: PostgresConnection, _ logger: Logger) async throws -> RecordedSource? {
        var found: RecordedSource?
        for try await (kind, name, ms) in try await connection.query(
            "SELECT kind, name, recorded_ms FROM store_source WHERE id = 1", logger: logger
        ).decode((String, String, Int64).self) {
            found = RecordedSource(identity: SourceIdentity(kind: kind, name: name), recordedAt: date(milliseconds: ms))
        }
        return found
    }
}
