import BridgetDTOs

/// Where the user's named routes are kept.
///
/// An implementation must guarantee: `saveRoute` inserts or replaces a route by name (its `id`); `routes()` returns
/// every route once, as last saved, favourites first, then by name; `removeRoute(named:)` says whether there was one.
public protocol RouteStore: Sendable {
    /// Inserts or replaces a route by name.
    func saveRoute(_ route: RouteDTO) async throws
    /// Every route, favourites first, then by name.
    func routes() async throws -> [RouteDTO]
    /// Removes a route; returns whether it existed.
    func removeRoute(named name: String) async throws -> Bool
}

extension RouteStore {
    /// The route with this name, if stored.
    public func route(named name: String) async throws -> RouteDTO? {
        try await routes().first { $0.id == name }
    }
}
