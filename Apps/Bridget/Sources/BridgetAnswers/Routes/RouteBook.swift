import BridgetContext
import BridgetCore
import BridgetDTOs
import BridgetPersistence
import Foundation

/// The saved routes' operations the CLI offers: add by bridge names, remove, mark, import from YAML or from the
/// store, and move between the routes file and the store. Bridges are resolved against the catalog (ids, or names as
/// `route add` takes them), and every bridge of a route must be known before anything is saved.
package struct RouteBook: StoreAnswers {
    package let context: AppContext
    package let store: any BridgeStore

    package init(context: AppContext, store: any BridgeStore) {
        self.context = context
        self.store = store
    }

    /// The saved routes, favourites first as `routes.storage` keeps them.
    package func routes() async throws -> [RouteDTO] { try await context.savedRoutes(store).routes() }

    /// The route saved as `name`, or `input.unknown-route` naming the saved ones.
    package func route(named name: String) async throws -> RouteDTO {
        try await RouteAnswers.route(name, in: try await context.savedRoutes(store))
    }

    /// The catalog routes are named from: the store's, with Seattle's bridges for those it does not hold (a routes
    /// file may name them).
    package func catalog() async throws -> BridgeCatalog {
        BridgeCatalog(bridges: try await store.bridges() + BridgeCatalog.seattle.bridges)
    }

    /// The routes an earlier Bridget kept in the store, whatever `routes.storage` says.
    package func storedRoutes() async throws -> [RouteDTO] { try await store.routes() }

    /// A crossing as the user wrote it: bridge names (preferred first) and the minutes from departure.
    package typealias WrittenCrossing = (names: [String], minutes: Double)

    /// Saves the route `name` over `crossings` (bridges by id or name, in travel order); the route and where routes
    /// are kept.
    package func add(_ name: String, crossings written: [WrittenCrossing], favorite: Bool) async throws
        -> (route: RouteDTO, location: String)
    {
        let name = name.trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty else {
            throw BridgetError(.inputEmptyRouteName, "the route name is empty",
                               hint: "e.g. bridget route add commute --via \"Fremont/Ballard@8\"")
        }
        guard !written.isEmpty else { throw BridgetError(.inputNoCrossing, "give at least one --via crossing") }
        var crossings: [RouteCrossingDTO] = []
        for (names, minutes) in written {
            var ids: [String] = []
            for name in names { ids.append(try await context.bridge(named: name, in: store).id) }
            crossings.append(RouteCrossingDTO(bridgeIDs: ids, minutesFromStart: minutes))
        }
        guard zip(crossings, crossings.dropFirst()).allSatisfy({ $0.minutesFromStart <= $1.minutesFromStart }) else {
            throw BridgetError(.inputBadOrder, "crossings must be given in travel order (minutes rising)")
        }
        let routes = try await context.savedRoutes(store)
        let route = RouteDTO(id: name, crossings: crossings, isFavorite: favorite)
        try await routes.saveRoute(route)
        return (route, routes.location)
    }

    /// Removes the route `name`; the name as removed.
    package func remove(_ name: String) async throws -> String {
        let name = name.trimmingCharacters(in: .whitespaces)
        guard try await context.savedRoutes(store).removeRoute(named: name) else {
            throw BridgetError(.inputUnknownRoute, "no route named '\(name)'", hint: "see `bridget route list`")
        }
        return name
    }

    /// Marks the route `name` as a favourite, or not.
    package func mark(_ name: String, favorite: Bool) async throws {
        let routes = try await context.savedRoutes(store)
        let route = try await RouteAnswers.route(name, in: routes)
        try await routes.saveRoute(RouteDTO(id: route.id, crossings: route.crossings, isFavorite: favorite))
    }

    /// What an import did: routes read, how many were new, and where they went.
    package struct Imported: Sendable, Equatable {
        package let count: Int
        package let added: Int
        package let location: String
    }

    /// Adds the routes of a YAML document (as `route export` writes), replacing those of the same names; a bridge
    /// the catalog does not know refuses the whole document.
    package func importYAML(_ text: String, origin: String) async throws -> Imported {
        let routes = try RouteFile.routes(fromYAML: text, origin: origin)
        let catalog = try await catalog()
        let resolved = try routes.map { route in
            RouteDTO(id: route.id, crossings: try route.crossings.map { crossing in
                RouteCrossingDTO(bridgeIDs: try crossing.bridgeIDs.map { text in
                    guard let bridge = catalog.bridge(id: text) ?? catalog.resolve(text) else {
                        throw BridgetError(.inputUnknownBridge, "\(origin): route '\(route.id)' names bridge '\(text)', "
                                           + "which is not in the catalog", hint: "`bridget bridges` lists the ids and names")
                    }
                    return bridge.id
                }, minutesFromStart: crossing.minutesFromStart)
            }, isFavorite: route.isFavorite)
        }
        let saved = try await context.savedRoutes(store)
        return Imported(count: resolved.count, added: try await saved.merge(resolved), location: saved.location)
    }

    /// Copies the routes the store holds (where an earlier Bridget kept them) into the routes file, remembering the
    /// store so a route removed later is not offered back.
    package func importFromStore() async throws -> Imported {
        let routes = try await store.routes()
        let file = try await context.routeFile(migratingFrom: store)
        let added = try file.merge(routes, from: context.assembly.storeDescription)
        return Imported(count: routes.count, added: added, location: file.path)
    }

    /// Where saved routes can be kept.
    package enum Place: String, CaseIterable, Sendable { case store, file }

    /// What a move did: routes copied, how many were new, from where to where, and whether `routes.storage` reads
    /// them from elsewhere (so the user is told to set it).
    package struct Moved: Sendable, Equatable {
        package let count: Int
        package let added: Int
        package let from: String
        package let into: String
        package let readElsewhere: Bool
    }

    /// Copies every saved route from the routes file into the store, or back; the source keeps its copy.
    package func move(to place: Place) async throws -> Moved {
        let file = try await context.routeFile(migratingFrom: store)
        let stored = StoreRoutes(store: store, location: "the store at \(context.assembly.storeDescription)")
        let (from, into): (any SavedRoutes, any SavedRoutes) = switch place {
        case .store: (file, stored)
        case .file: (stored, file)
        }
        let routes = try await from.routes()
        let added = try await into.merge(routes)
        return Moved(count: routes.count, added: added, from: from.location, into: into.location,
                     readElsewhere: context.configuration.routesInStore != (place == .store))
    }
}
