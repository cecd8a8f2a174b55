import Foundation

/// One bridge's outlook for one crossing of a route.
public struct CrossingOptionDTO: Sendable, Codable, Equatable {
    public let bridgeID: String
    public let bridgeName: String
    /// Chance the bridge is open when the route reaches it.
    public let chanceOpenOnArrival: Double
    /// Chance an opening starts within `RouteScoreDTO.approachMinutes` after arriving.
    public let chanceOfOpening: Double
    /// Expected wait in minutes at this bridge.
    public let expectedDelayMinutes: Double
    /// What moved the forecast at this bridge (`ForecastReasonDTO.text`), strongest first.
    public let reasons: [String]

    /// Creates an option.
    public init(bridgeID: String, bridgeName: String, chanceOpenOnArrival: Double, chanceOfOpening: Double,
                expectedDelayMinutes: Double, reasons: [String] = []) {
        self.reasons = reasons
        self.bridgeID = bridgeID
        self.bridgeName = bridgeName
        self.chanceOpenOnArrival = chanceOpenOnArrival
        self.chanceOfOpening = chanceOfOpening
        self.expectedDelayMinutes = expectedDelayMinutes
    }
}

/// The outlook for one crossing: when the route gets there and each bridge that can serve it.
public struct CrossingScoreDTO: Sendable, Codable, Equatable {
    /// Position in the route, from 1.
    public let position: Int
    /// The source's wall-clock arrival (`YYYY-MM-DDTHH:MM`), including expected delays at earlier crossings.
    public let arrival: String
    /// Every bridge that can serve the crossing, in the route's order of preference.
    public let options: [CrossingOptionDTO]
    /// The option with the least expected delay (the earlier-listed one on a tie).
    public let best: CrossingOptionDTO

    /// Creates a crossing score.
    public init(position: Int, arrival: String, options: [CrossingOptionDTO], best: CrossingOptionDTO) {
        self.position = position
        self.arrival = arrival
        self.options = options
        self.best = best
    }
}

/// A route's outlook for one departure time.
public struct RouteScoreDTO: Sendable, Codable, Equatable {
    /// Minutes after arriving at a crossing counted for `chanceOfOpening`.
    public static let approachMinutes = 5

    public let route: String
    /// The source's wall-clock departure (`YYYY-MM-DDTHH:MM`).
    public let departure: String
    public let crossings: [CrossingScoreDTO]
    /// The sum of the best options' expected delays.
    public let totalExpectedDelayMinutes: Double
    /// In a ranking of departures (`route best-time`): whether this one ties with the best (within 10 seconds of the
    /// least delay); `nil` outside a ranking.
    public let tiesWithBest: Bool?

    /// Creates a route score.
    public init(route: String, departure: String, crossings: [CrossingScoreDTO], totalExpectedDelayMinutes: Double,
                tiesWithBest: Bool? = nil) {
        self.tiesWithBest = tiesWithBest
        self.route = route
        self.departure = departure
        self.crossings = crossings
        self.totalExpectedDelayMinutes = totalExpectedDelayMinutes
    }
}

extension RouteScoreDTO {
    /// The same score, marked as tying with the best of a ranking or not.
    public func ranked(tiesWithBest: Bool) -> RouteScoreDTO {
        RouteScoreDTO(route: route, departure: departure, crossings: crossings,
                      totalExpectedDelayMinutes: totalExpectedDelayMinutes, tiesWithBest: tiesWithBest)
    }
}
