import BridgetCaching
import BridgetContext
import BridgetCore
import BridgetDTOs
import BridgetPersistence
import Foundation

/// Where saved routes are kept, as every front end reads and writes them: a routes file (one user's, beside their
/// settings) or the store (shared by every host that serves it). `routes.storage` chooses; `auto` keeps them in the
/// store when it is PostgreSQL, so a route saved through one host is read through every other.
package protocol SavedRoutes: RouteStore {
    /// Where they are, for messages: the file's path, or the store's name.
    var location: String { get }
    /// A short sum that changes whenever a route is saved or removed, by this process or another (answers about
    /// routes are tagged with it).
    func fingerprint() async throws -> String
    /// Saves every route given, replacing those of the same names; returns how many were new.
    func merge(_ incoming: [RouteDTO]) async throws -> Int
}

extension RouteFile: SavedRoutes {
    package var location: String { path }

    package func merge(_ incoming: [RouteDTO]) async throws -> Int { try merge(incoming, from: nil) }
}

/// Saved routes in the store.
package struct StoreRoutes: SavedRoutes {
    package let store: any RouteStore
    package let location: String

    package init(store: any RouteStore, location: String) {
        self.store = store
        self.location = location
    }

    package func saveRoute(_ route: RouteDTO) async throws { try await store.saveRoute(route) }
    package func routes() async throws -> [RouteDTO] { try await store.routes() }
    package func removeRoute(named name: String) async throws -> Bool { try await store.removeRoute(named: name) }

    package func fingerprint() async throws -> String {
        let data = try AnswerJSON.data(try await store.routes())
        return FNV1a.hex(data.withUnsafeBytes { FNV1a.hash($0) })
    }

    package func merge(_ incoming: [RouteDTO]) async throws -> Int {
        let known = Set(try await store.routes().map(\.id))
        for route in incoming { try await store.saveRoute(route) }
        return incoming.filter { !known.contains($0.id) }.count
    }
}

extension AppContext {
    /// The saved routes as `routes.storage` places them: in `store`, or in the routes file (routes an earlier Bridget
    /// kept in the store copied into it the first time).
    package func savedRoutes(_ store: any RouteStore) async throws -> any SavedRoutes {
        guard configuration.routesInStore else { return try await routeFile(migratingFrom: store) }
        return StoreRoutes(store: store, location: "the store at \(assembly.storeDescription)")
    }
}
