import BridgetDTOs
import BridgetPersistence
import GRDB

extension SQLiteBridgeStore: BridgeCatalogStore {
    public func upsertBridges(_ bridges: [BridgeInfoDTO]) async throws {
        try await write("save bridges") { db in
            let statement = try db.cachedStatement(sql: """
                INSERT INTO bridges (id, name, display_name, latitude, longitude, waterway, kind)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (id) DO UPDATE SET name = excluded.name, display_name = excluded.display_name,
                    latitude = excluded.latitude, longitude = excluded.longitude,
                    waterway = excluded.waterway, kind = excluded.kind
                """)
            for bridge in bridges {
                try statement.execute(arguments: [
                    bridge.id, bridge.name, bridge.displayName, bridge.latitude, bridge.longitude, bridge.waterway,
                    bridge.kind,
                ])
            }
        }
    }

    public func bridges() async throws -> [BridgeInfoDTO] {
        try await read("read bridges") { db in
            try Row.fetchAll(db, sql: "SELECT * FROM bridges ORDER BY CAST(id AS INTEGER), id").map(Self.bridge)
        }
    }
}
