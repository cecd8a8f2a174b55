import BridgetAnalysis
import BridgetDTOs
import Foundation
import Testing

@Suite("Route scoring")
struct RouteScorerTests {
    /// A model whose every slot has the same figures, except one busy slot.
    func model(_ bridge: BridgeInfoDTO, open: Double, remaining: Double, busySlot: Int? = nil) -> OpeningModelDTO {
        let slots = (0..<OpeningModelDTO.slotsPerWeek).map { slot in
            let busy = slot == busySlot
            return OpeningSlotDTO(starts: busy ? 10 : 0, occurrences: 10, startProbability: busy ? 0.5 : 0.01,
                                  openProbability: busy ? 0.4 : open, meanRemainingMinutes: remaining)
        }
        return OpeningModelDTO(bridgeID: bridge.id, builtAt: Date(), firstDay: nil, lastDay: nil, openings: 10,
                               sourceEvents: 10, sourceLatestOpening: nil, baseStartProbability: 0.02,
                               baseOpenProbability: open, slots: slots)
    }

    let fremont = BridgeCatalog.seattle.bridge(id: "3")!
    let ballard = BridgeCatalog.seattle.bridge(id: "2")!
    let montlake = BridgeCatalog.seattle.bridge(id: "4")!

    @Test("the better alternative is taken, and its delay pushes the later arrival")
    func alternativesAndArrival() throws {
        let monday17 = 0 * 96 + 17 * 4 // Monday 17:00–17:15
        let scorer = RouteScorer(models: [
            model(fremont, open: 0.1, remaining: 5, busySlot: monday17), // 17:00: open 40%, remaining 5 → 2 min
            model(ballard, open: 0.1, remaining: 5),                      // 0.5 min
            model(montlake, open: 0.2, remaining: 5),                     // 1 min
        ], catalog: .seattle)
        let route = RouteDTO(id: "commute", crossings: [
            RouteCrossingDTO(bridgeIDs: ["3", "2"], minutesFromStart: 10),
            RouteCrossingDTO(bridgeIDs: ["4"], minutesFromStart: 25),
        ])
        let departure = try #require(FloatingTimestamp("2026-06-01T16:50:00.000")) // a Monday
        let score = try scorer.score(route, departure: departure)
        #expect(score.crossings[0].arrival == "2026-06-01T17:00:00")
        #expect(score.crossings[0].options.map(\.expectedDelayMinutes) == [2, 0.5])
        #expect(score.crossings[0].best.bridgeID == "2")
        #expect(score.crossings[1].arrival == "2026-06-01T17:15:30") // 25 min + 0.5 expected delay: 17:15:30
        #expect(score.totalExpectedDelayMinutes == 1.5)

        let ranked = try scorer.bestTimes(route, from: try #require(FloatingTimestamp("2026-06-01T16:40:00.000")),
                                          to: try #require(FloatingTimestamp("2026-06-01T16:55:00.000")), stepMinutes: 5)
        #expect(ranked.count == 4)
        #expect(zip(ranked, ranked.dropFirst()).allSatisfy { $0.totalExpectedDelayMinutes <= $1.totalExpectedDelayMinutes })
    }

    @Test func unknownBridgeIsAClearError() {
        let scorer = RouteScorer(models: [], catalog: .seattle)
        let route = RouteDTO(id: "r", crossings: [RouteCrossingDTO(bridgeIDs: ["3"], minutesFromStart: 1)])
        #expect(throws: AnalysisError.bridgeWithoutModel(route: "r", bridgeID: "3")) {
            try scorer.score(route, departure: FloatingTimestamp("2026-06-01T16:50:00.000")!)
        }
        let empty = RouteDTO(id: "e", crossings: [RouteCrossingDTO(bridgeIDs: [], minutesFromStart: 1)])
        let error = #expect(throws: AnalysisError.emptyCrossing(route: "e", position: 1)) {
            try scorer.score(empty, departure: FloatingTimestamp("2026-06-01T16:50:00.000")!)
        }
        #expect(error?.description == "crossing 1 of route e names no bridge")
    }
}
