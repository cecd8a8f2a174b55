import BridgetDTOs
import Foundation

/// Scores a route's departure from the bridges' opening models.
///
/// Crossings are visited in order; each is reached at departure + its offset + the expected delays of the crossings
/// before it. At each crossing every alternative bridge is forecast for that arrival (`Nowcaster`: the slots, the
/// rules, and what was seen before `evidenceAt`), and the one with the least expected delay is taken.
public struct RouteScorer: Sendable {
    /// The models, by bridge id.
    public let models: [String: OpeningModelDTO]
    public let catalog: BridgeCatalog
    public let nowcaster: Nowcaster
    /// What was seen before `evidenceAt`: an arrival up to 30 minutes after it is forecast with it (its openings
    /// that much older), a later one from the slots and the rules alone.
    public let evidence: NowcastEvidence
    public let evidenceAt: Date?

    /// The clock the route is driven on: arrivals are the departure's instant plus the minutes, read on it.
    let clock: LocalClock

    /// Creates a scorer.
    public init(models: [OpeningModelDTO], catalog: BridgeCatalog, clock: LocalClock = .seattle, rules: RuleCalendar? = nil,
                evidence: NowcastEvidence = .unknown, evidenceAt: Date? = nil) {
        self.models = Dictionary(uniqueKeysWithValues: models.map { ($0.bridgeID, $0) })
        self.catalog = catalog
        self.clock = clock
        nowcaster = Nowcaster(rules: rules, catalog: catalog, models: models)
        self.evidence = evidence
        self.evidenceAt = evidenceAt
    }

    /// The evidence for an arrival at `instant`.
    func evidence(at instant: Date) -> NowcastEvidence {
        guard let evidenceAt, evidence.isComplete else { return .unknown }
        let minutes = instant.timeIntervalSince(evidenceAt) / 60
        guard minutes >= 0, minutes <= 30 else { return .unknown }
        return evidence.later(byMinutes: minutes)
    }

    /// The outlook for leaving at `departure` (the source's wall clock).
    public func score(_ route: RouteDTO, departure: FloatingTimestamp) throws -> RouteScoreDTO {
        var delaySoFar = 0.0
        var crossings: [CrossingScoreDTO] = []
        for (index, crossing) in route.crossings.enumerated() {
            let offset = (crossing.minutesFromStart + delaySoFar) * 60
            // Time passes in seconds, not on the wall clock: across the spring gap 01:55 + 8 min arrives at 03:03.
            let arrivalInstant = clock.openingInstant(for: departure).addingTimeInterval(offset.rounded())
            let arrival = clock.reading(for: arrivalInstant)
            let seen = evidence(at: arrivalInstant)
            let options = try crossing.bridgeIDs.map { id -> CrossingOptionDTO in
                guard let bridge = catalog.bridge(id: id), let model = models[id] else {
                    throw AnalysisError.bridgeWithoutModel(route: route.id, bridgeID: id)
                }
                let forecast = nowcaster.forecast(model, bridge: bridge, at: arrival,
                                                  windowMinutes: RouteScoreDTO.approachMinutes, evidence: seen)
                return CrossingOptionDTO(
                    bridgeID: id, bridgeName: bridge.name, chanceOpenOnArrival: forecast.chanceOpenOnArrival,
                    chanceOfOpening: forecast.chanceOfOpening, expectedDelayMinutes: forecast.expectedDelayMinutes,
                    reasons: forecast.reasons.map(\.text))
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
