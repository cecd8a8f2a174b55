import BridgetDTOs
import BridgetPersistence
import Foundation
import PostgresNIO

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
