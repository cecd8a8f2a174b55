import BridgetDTOs
import BridgetPersistence
import Foundation
import PostgresNIO

extension PostgresBridgeStore: RouteStore {
    public func saveRoute(_ route: RouteDTO) async throws {
        let crossings = String(decoding: try JSONEncoder.sorted.encode(route.crossings), as: UTF8.self)
        _ = try await rows("save a route", """
            INSERT INTO routes (name, favorite, crossings) VALUES (\(route.id), \(route.isFavorite), \(crossings))
            ON CONFLICT (name) DO UPDATE SET favorite = excluded.favorite, crossings = excluded.crossings
            """)
    }

    public func routes() async throws -> [RouteDTO] {
        try await rows("read routes", "SELECT name, favorite, crossings FROM routes ORDER BY favorite DESC, name").map { row in
            let name = try row[0].decode(String.self)
            guard let crossings = try? JSONDecoder().decode([RouteCrossingDTO].self,
                                                            from: Data(try row[2].decode(String.self).utf8))
            else {
                throw StoreError.corruptRoute(name: name)
            }
            return RouteDTO(id: name, crossings: crossings, isFavorite: try row[1].decode(Bool.self))
        }
    }

    public func removeRoute(named name: String) async throws -> Bool {
        try await !rows("remove a route", "DELETE FROM routes WHERE name = \(name) RETURNING 1").isEmpty
    }
}
