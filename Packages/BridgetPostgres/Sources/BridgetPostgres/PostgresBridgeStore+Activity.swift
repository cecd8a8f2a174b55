import BridgetDTOs
import BridgetPersistence
import Foundation
import PostgresNIO

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
