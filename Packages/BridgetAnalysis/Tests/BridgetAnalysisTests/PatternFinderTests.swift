import BridgetAnalysis
import BridgetDTOs
import Foundation
import Testing

@Suite("Cascades and anomalies")
struct PatternFinderTests {
    let montlake = BridgeCatalog.seattle.bridge(id: "4")!

    /// Ten weeks of Fremont openings daily at 10:00 and 15:00, each followed 5 minutes later by Montlake; Montlake
    /// also opens alone at other times.
    func history() -> [BridgeEventDTO] {
        var events: [BridgeEventDTO] = []
        for day in 1...70 {
            let date = FloatingTimestamp(wallClockSeconds: Int64(CivilCalendar.daysFromCivil(year: 2026, month: 3, day: 1) + day) * 86_400)
            let prefix = date.dateString
            events.append(Hand.event(prefix + "T10:00:00.000", minutes: 4))
            events.append(Hand.event(prefix + "T15:00:00.000", minutes: 4))
            if day % 7 != 3 { // the pair that follows, most days
                events.append(Hand.event(montlake, prefix + "T10:05:00.000", minutes: 4))
            }
            events.append(Hand.event(montlake, prefix + "T20:\(10 + day % 40):00.000", minutes: 4))
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
        #expect(forward.expected < 60 && forward.lift > 1)
        #expect(forward.expected == Double(PatternFinderTests.shiftedCount(events)) / 4)
        #expect(!cascades.contains { $0.fromBridgeID == "4" && $0.toBridgeID == "3" })
    }

    /// Week-shifted baseline by hand: a shifted Montlake 10:05 lands on a Fremont day's 10:00 unless it moves out of
    /// the ten weeks, or onto a day where it does not occur... computed here the slow way.
    static func shiftedCount(_ events: [BridgeEventDTO]) -> Int {
        let fremont = events.filter { $0.bridgeID == "3" }.compactMap { FloatingTimestamp($0.openLocal)?.wallClockSeconds }
        let montlake = events.filter { $0.bridgeID == "4" }.compactMap { FloatingTimestamp($0.openLocal)?.wallClockSeconds }
        var total = 0
        for shift in [-2, -1, 1, 2].map({ Int64($0) * 7 * 86_400 }) {
            for start in fremont where montlake.contains(where: { $0 + shift > start && $0 + shift <= start + 900 }) {
                total += 1
            }
        }
        return total
    }

    @Test("an opening far longer than usual, and one at a near-impossible time, are anomalies")
    func anomalies() throws {
        let usual = history()
        let events = usual + [Hand.event("2026-04-20T12:00:00.000", minutes: 90),
                              Hand.event("2026-04-21T03:00:00.000", minutes: 4)]
        let bridges = [Hand.fremont, montlake]
        // Judged against the usual pattern (a long history makes one odd opening count for little).
        let models = OpeningModelBuilder().buildAll(bridges: bridges, events: usual, mergeGap: 120, builtAt: Date())
        let found = PatternFinder(bridges: bridges, models: models).anomalies(MergedOpening.merge(events, gap: 120))
        let long = try #require(found.first { $0.openLocal == "2026-04-20T12:00" })
        #expect(long.reasons.contains(.long) && long.durationMinutes == 90)
        let night = try #require(found.first { $0.openLocal == "2026-04-21T03:00" })
        #expect(night.reasons.contains(.unlikelyTime) && night.slotChance < 0.005)
        #expect(!found.contains { $0.openLocal.hasSuffix("T10:00") })
    }
}
