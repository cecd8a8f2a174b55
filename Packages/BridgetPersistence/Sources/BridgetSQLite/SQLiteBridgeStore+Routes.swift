import BridgetDTOs
import BridgetPersistence
import Foundation
import GRDB

extension SQLiteBridgeStore: RouteStore {
    public func saveRoute(_ route: RouteDTO) async throws {
        let crossings = String(decoding: try JSONEncoder.sorted.encode(route.crossings), as: UTF8.self)
        try await write("save a route") { db in
            try db.execute(sql: """
                INSERT INTO routes (name, favorite, crossings) VALUES (?, ?, ?)
                ON CONFLICT (name) DO UPDATE SET favorite = excluded.favorite, crossings = excluded.crossings
                """, arguments: [route.id, route.isFavorite, crossings])
        }
    }

    public func routes() async throws -> [RouteDTO] {
        let rows = try await read("read routes") { db in
            try Row.fetchAll(db, sql: "SELECT * FROM routes ORDER BY favorite DESC, name").map { row in
                (row["name"] as String, row["favorite"] as Bool, row["crossings"] as String)
            }
        }
        return try rows.map { name, favorite, text in
            guard let crossings = try? JSONDecoder().decode([RouteCrossingDTO].self, from: Data(text.utf8)) else {
                throw StoreError.corruptRoute(name: name)
            }
            return RouteDTO(id: name, crossings: crossings, isFavorite: favorite)
        }
    }

    public func removeRoute(named name: String) async throws -> Bool {
        try await write("remove a route") { db in
            try db.execute(sql: "DELETE FROM routes WHERE name = ?", arguments: [name])
            return db.changesCount > 0
        }
    }
}
