import BridgetDTOs
import BridgetPersistence
import Testing

extension StoreConformance {
    /// Checks `RouteStore`: routes are saved, listed favourites first then by name, replaced by name, and removed.
    public static func checkRoutes(makeStore: () async throws -> any RouteStore) async throws {
        let store = try await makeStore()
        let commute = RouteDTO(id: "commute", crossings: [
            RouteCrossingDTO(bridgeIDs: ["3", "2"], minutesFromStart: 8), RouteCrossingDTO(bridgeIDs: ["4"], minutesFromStart: 22),
        ])
        let errand = RouteDTO(id: "errand", crossings: [RouteCrossingDTO(bridgeIDs: ["29"], minutesFromStart: 5)],
                              isFavorite: true)
        try await store.saveRoute(commute)
        try await store.saveRoute(errand)
        #expect(try await store.routes() == [errand, commute])
        let favourite = RouteDTO(id: "commute", crossings: commute.crossings, isFavorite: true)
        try await store.saveRoute(favourite)
        #expect(try await store.route(named: "commute") == favourite)
        #expect(try await store.removeRoute(named: "errand"))
        #expect(try await !store.removeRoute(named: "errand"))
        #expect(try await store.routes() == [favourite])
    }
}
