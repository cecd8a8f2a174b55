import BridgetDTOs
import Foundation

/// Scores a route's departure from the bridges' opening models.
///
/// Crossings are visited in order; each is reached at departure + its offset + the expected delays of the crossings
/// before it. At each crossing every alternative bridge is forecast for that arrival, and the one with the least
/// expected delay is taken.
public struct RouteScorer: Sendable {
    /// The models, by bridge id.
    public let models: [String: OpeningModelDTO]
    public let catalog: BridgeCatalog

    /// Creates a scorer.
    /// The clock the route is driven on: arrivals are the departure's instant plus the minutes, read on it.
    let clock: LocalClock

    public init(models: [OpeningModelDTO], catalog: BridgeCatalog, clock: LocalClock = .seattle) {
        self.models = Dictionary(uniqueKeysWithValues: models.map { ($0.bridgeID, $0) })
        self.catalog = catalog
        self.clock = clock
    }

    /// The outlook for leaving at `departure` (the source's wall clock).
    public func score(_ route: RouteDTO, departure: FloatingTimestamp) throws -> RouteScoreDTO {
        var delaySoFar = 0.0
        var crossings: [CrossingScoreDTO] = []
        for (index, crossing) in route.crossings.enumerated() {
            let offset = (crossing.minutesFromStart + delaySoFar) * 60
            // Time passes in seconds, not on the wall clock: across the spring gap 01:55 + 8 min arrives at 03:03.
            let arrival = clock.reading(for: clock.openingInstant(for: departure).addingTimeInterval(offset.rounded()))
            let options = try crossing.bridgeIDs.map { id -> CrossingOptionDTO in
                guard let bridge = catalog.bridge(id: id), let model = models[id] else {
                    throw AnalysisError.bridgeWithoutModel(route: route.id, bridgeID: id)
                }
                let forecast = OpeningModelBuilder.forecast(model, bridge: bridge, at: arrival,
                                                            windowMinutes: RouteScoreDTO.approachMinutes)
                return CrossingOptionDTO(
                    bridgeID: id, bridgeName: bridge.name, chanceOpenOnArrival: forecast.chanceOpenOnArrival,
                    chanceOfOpening: forecast.chanceOfOpening, expectedDelayMinutes: forecast.expectedDelayMinutes)
            }
            guard var best = options.first else {
                throw AnalysisError.emptyCrossing(route: route.id, position: index + 1)
            }
            for option in options.dropFirst() where option.expectedDelayMinutes < best.expectedDelayMinutes { best = option }
            delaySoFar += best.expectedDelayMinutes
            crossings.append(CrossingScoreDTO(position: index + 1, arrival: arrival.localText,
                                              options: options, best: best))
        }
        return RouteScoreDTO(route: route.id, departure: departure.localText, crossings: crossings,
                             totalExpectedDelayMinutes: delaySoFar)
    }

    /// Departures from `start` to `end` every `step` minutes, least expected delay first (earlier first on a tie).
    public func bestTimes(_ route: RouteDTO, from start: FloatingTimestamp, to end: FloatingTimestamp, stepMinutes: Int)
        throws -> [RouteScoreDTO]
    {
        let step = Int64(max(stepMinutes, 1) * 60)
        var scores: [RouteScoreDTO] = []
        var wall = start.wallClockSeconds
        while wall <= end.wallClockSeconds {
            scores.append(try score(route, departure: FloatingTimestamp(wallClockSeconds: wall)))
            wall += step
        }
        return scores.enumerated().sorted {
            ($0.element.totalExpectedDelayMinutes, $0.offset) < ($1.element.totalExpectedDelayMinutes, $1.offset)
        }.map(\.element)
    }
}
