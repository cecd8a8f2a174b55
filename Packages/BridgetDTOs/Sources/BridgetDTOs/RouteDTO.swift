import Foundation

/// One waterway crossing of a route: the bridge it normally takes, and bridges it may take instead.
public struct RouteCrossingDTO: Sendable, Codable, Equatable, Hashable {
    /// The bridge ids that can serve this crossing, preferred first.
    public let bridgeIDs: [String]
    /// Minutes from departure to reaching this crossing.
    public let minutesFromStart: Double

    /// Creates a crossing.
    public init(bridgeIDs: [String], minutesFromStart: Double) {
        self.bridgeIDs = bridgeIDs
        self.minutesFromStart = minutesFromStart
    }
}

/// A named trip that crosses one or more bridges, in order.
public struct RouteDTO: Sendable, Codable, Equatable, Hashable, Identifiable {
    /// The route's unique name.
    public let id: String
    /// The crossings in travel order.
    public let crossings: [RouteCrossingDTO]
    /// Whether the user marked the route as a favourite.
    public let isFavorite: Bool

    /// Creates a route.
    public init(id: String, crossings: [RouteCrossingDTO], isFavorite: Bool = false) {
        self.id = id
        self.crossings = crossings
        self.isFavorite = isFavorite
    }
}
