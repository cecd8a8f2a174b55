import BridgetAnalysis
import BridgetDTOs
import Foundation
import Testing

@Suite("Cascades and anomalies")
struct PatternFinderTests {
    let montlake = BridgeCatalog.seattle.bridge(id: "4")!

    /// Ten weeks of Fremont openings at a different time each day, each followed 5 minutes later by Montlake on most
    /// days, plus Montlake openings of its own in the evening. The link is not a time-of-week rhythm, so the
    /// week-shifted baseline cannot explain it.
    func history() -> [BridgeEventDTO] {
        var events: [BridgeEventDTO] = []
        for day in 1...70 {
            let midnight = Int64(CivilCalendar.daysFromCivil(year: 2026, month: 3, day: 1) + day) * 86_400
            let reading = { (minutes: Int) in FloatingTimestamp(wallClockSeconds: midnight + Int64(minutes * 60)).description }
            let start = 9 * 60 + (day * 37) % 300 // somewhere between 09:00 and 14:00
            events.append(Hand.event(reading(start), minutes: 4))
            if day % 7 != 3 { events.append(Hand.event(montlake, reading(start + 5), minutes: 4)) }
            events.append(Hand.event(montlake, reading(20 * 60 + 10 + day % 40), minutes: 4))
            events.append(Hand.event(reading(16 * 60 + (day * 53) % 120), minutes: 4)) // Fremont alone
        }
        return events
    }

    @Test("a bridge that follows another is found with a high lift; the reverse is not")
    func cascade() throws {
        let events = history()
        let bridges = [Hand.fremont, montlake]
        let models = OpeningModelBuilder().buildAll(bridges: bridges, events: events, mergeGap: 120, builtAt: Date())
        let openings = MergedOpening.merge(events, gap: 120)
        let cascades = PatternFinder(bridges: bridges, models: models).cascades(openings, withinMinutes: 15, minimumCount: 5)
        let forward = try #require(cascades.first { $0.fromBridgeID == "3" && $0.toBridgeID == "4" })
        #expect(forward.count == 60)
        #expect(forward.lift > 5 && forward.zScore > 5, "expected \(forward.expected)")
        #expect(!cascades.contains { $0.fromBridgeID == "4" && $0.toBridgeID == "3" })
    }

    @Test("an opening far longer than usual, and one at a near-impossible time, are anomalies")
    func anomalies() throws {
        let usual = history()
        let events = usual + [Hand.event("2026-04-20T12:00:00.000", minutes: 90),
                              Hand.event("2026-04-21T03:00:00.000", minutes: 4)]
        let bridges = [Hand.fremont, montlake]
        // Judged against the usual pattern (a long history makes one odd opening count for little).
        let models = OpeningModelBuilder().buildAll(bridges: bridges, events: usual, mergeGap: 120, builtAt: Date())
        // Ten weeks are thin evidence, so the model keeps night chances near the base rate (about 2%); the rule is
        // tested with a threshold between that and the daytime slots (about 7%).
        let found = PatternFinder(bridges: bridges, models: models)
            .anomalies(MergedOpening.merge(events, gap: 120), unlikelyChance: 0.03)
        let long = try #require(found.first { $0.openLocal == "2026-04-20T12:00:00" })
        #expect(long.reasons.contains(.long) && long.durationMinutes == 90)
        let night = try #require(found.first { $0.openLocal == "2026-04-21T03:00:00" })
        #expect(night.reasons.contains(.unlikelyTime) && night.slotChance < 0.03)
        // The rule is selective: at most 5% of Fremont's 140 usual openings are flagged besides the two added ones.
        #expect(found.filter { $0.bridgeID == "3" }.count <= 2 + 7)
    }

    @Test("an opening is judged as the forecasts judge it: a holiday's is a Sunday's, one a vessel upstream brought is not unlikely")
    func anomaliesKnowTheRiver() throws {
        // Fremont opens rarely but on Sunday afternoons, and Ballard's vessels raise it 10–16 min later at 70%.
        var slots = [OpeningSlotDTO](repeating: OpeningSlotDTO(starts: 0, occurrences: 50, startProbability: 0.001,
                                                                 openProbability: 0.001, meanRemainingMinutes: 3),
                                     count: OpeningModelDTO.slotsPerWeek)
        for slot in (6 * 96 + 16 * 4)..<(6 * 96 + 18 * 4) {
            slots[slot] = OpeningSlotDTO(starts: 10, occurrences: 50, startProbability: 0.2, openProbability: 0.05,
                                         meanRemainingMinutes: 3)
        }
        let link = PlantedWorld.link(from: "2", share: 0.7, lags: 10...16)
        let fremont = OpeningModelDTO(
            bridgeID: "3", builtAt: Date(), firstDay: nil, lastDay: nil, openings: 100, sourceEvents: 100,
            sourceLatestOpening: nil, baseStartProbability: 0.01, baseOpenProbability: 0.01, slots: slots,
            dynamics: OpeningDynamicsDTO(followers: [link], broughtShare: 0.5, durationCounts: [],
                                         holidaysAsSundays: true))
        let events = [
            Hand.event("2026-11-26T17:05:00.000", minutes: 4), // Thanksgiving: forecast as a Sunday
            Hand.event("2026-11-18T17:05:00.000", minutes: 4), // a Wednesday in the curfew: unlikely
            Hand.event(Hand.ballard, "2026-11-17T03:00:00.000", minutes: 4),
            Hand.event("2026-11-17T03:12:00.000", minutes: 4), // Ballard's vessel, 12 min on
            Hand.event("2026-11-10T03:12:00.000", minutes: 4), // the same hour with no vessel upstream: unlikely
        ]
        var starts: [String: [Int32]] = [:]
        for event in events {
            let wall = try #require(FloatingTimestamp(event.openLocal + ".000") ?? FloatingTimestamp(event.openLocal))
                .wallClockSeconds
            starts[event.bridgeID, default: []].append(Int32(wall / 60))
        }
        let finder = PatternFinder(bridges: [Hand.ballard, Hand.fremont], models: [fremont], rules: .seattle,
                                   startMinutes: starts.mapValues { $0.sorted() })
        let found = finder.anomalies(MergedOpening.merge(events, gap: 120)).map(\.openLocal).sorted()
        #expect(found == ["2026-11-10T03:12:00", "2026-11-18T17:05:00"], "\(found)")
        // Without the calendar and the river, the holiday's and the brought opening are flagged too.
        let blind = PatternFinder(bridges: [Hand.ballard, Hand.fremont], models: [fremont])
            .anomalies(MergedOpening.merge(events, gap: 120)).filter { $0.bridgeID == "3" }
        #expect(blind.count == 4)
    }
}
