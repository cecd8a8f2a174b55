import BridgetDTOs
import BridgetPersistence
import Foundation
import PostgresNIO

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
