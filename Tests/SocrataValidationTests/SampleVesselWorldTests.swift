import BridgetDTOs
@testable import BridgetNetworking
import Foundation
import Testing

/// The sample world's vessels: why its bridges open (`SampleVesselWorld`).
@Suite("Sample vessel world")
struct SampleVesselWorldTests {
    static let year = SampleProviderTests.cleanYear
    static let clock = LocalClock.seattle

    /// Each bridge's opening starts (local wall-clock seconds), sorted.
    static let starts: [String: [Int64]] = {
        var starts: [String: [Int64]] = [:]
        for event in year { starts[event.bridgeID, default: []].append(clock.reading(for: event.openedAt).wallClockSeconds) }
        return starts.mapValues { $0.sorted() }
    }()

    /// The share of `from`'s openings followed by one of `to` within `minutes`.
    static func followed(_ from: String, _ to: String, within minutes: ClosedRange<Int>, shift: Int64 = 0) -> Double {
        let targets = starts[to] ?? []
        let sources = starts[from] ?? []
        let hits = sources.filter { start in
            targets.contains { $0 + shift - start >= Int64(minutes.lowerBound * 60) && $0 + shift - start <= Int64(minutes.upperBound * 60) }
        }
        return Double(hits.count) / Double(max(sources.count, 1))
    }

    @Test("vessels pass the bridges of a waterway in order: Ballard's openings are followed at Fremont 10–20 min later far more than a week-shifted Fremont is")
    func cascades() {
        for (from, to) in [("2", "3"), ("21", "4"), ("4", "21"), ("1", "29")] {
            let real = Self.followed(from, to, within: 5...25)
            let chance = Self.followed(from, to, within: 5...25, shift: 7 * 86_400)
            #expect(real > 2 * chance && real > 0.3, "\(from) → \(to): \(real) against chance \(chance)")
        }
        // Lower Spokane St crosses its own waterway: nothing brings its openings.
        let spokane = Self.followed("3", "6", within: 5...25), shifted = Self.followed("3", "6", within: 5...25, shift: 7 * 86_400)
        #expect(abs(spokane - shifted) < 0.05, "Fremont → Lower Spokane St: \(spokane) against \(shifted)")
    }

    @Test("yearly openings near the observed ones: more than 14,000 in all, Fremont busiest, South Park quietest")
    func yearlyCounts() {
        let counts = Dictionary(grouping: Self.year, by: \.bridgeID).mapValues(\.count)
        let total = counts.values.reduce(0, +)
        #expect(total > 13_000 && total < 16_000, "\(total)")
        #expect(counts["3"]! == counts.values.max() && counts["29"]! == counts.values.min(), "\(counts)")
    }

    @Test("the curfew holds small vessels on working days, not on federal holidays; large vessels pass")
    func curfewAndHolidays() {
        let rules = RuleCalendar.seattle
        var workingRush = 0
        var holidayRush = 0
        for event in Self.year where ["2", "3", "21", "4"].contains(event.bridgeID) {
            let reading = Self.clock.reading(for: event.openedAt)
            let rushHour = [7, 8, 16, 17].contains(reading.hour) && reading.mondayFirstWeekday < 5
            guard rushHour else { continue }
            if rules.holiday(onDay: reading.dayNumber) != nil { holidayRush += 1 } else { workingRush += 1 }
        }
        // About 250 working days × 4 canal bridges × 4 hours, against 10 holidays: the holidays' rush hours see far
        // more openings each than the working days' (only large vessels open then).
        let workingDays = 250.0, holidays = Double(FederalHoliday.observed(in: 2025).count - 1)
        #expect(Double(holidayRush) / holidays > 5 * Double(workingRush) / workingDays,
                "holiday rush openings \(holidayRush), working-day \(workingRush)")
        #expect(workingRush > 0, "large vessels are never held")
    }

    @Test("a dated deviation keeps its bridge closed: no opening of Montlake during the sample's Beat the Bridge")
    func deviations() throws {
        let deviation = try #require(SampleVesselWorld.deviations(inYear: 2025).first { $0.bridgeIDs == ["4"] })
        #expect(deviation.from == "2025-05-18T08:00:00")
        let during = Self.year.filter { event in
            event.bridgeID == "4" && deviation.closes("4", at: Self.clock.reading(for: event.openedAt))
        }
        #expect(during.isEmpty)
        // Vessels wait for it: the half hour after it ends is busier than the same half hour a week later.
        let released = Self.year.filter { event in
            let reading = Self.clock.reading(for: event.openedAt)
            return event.bridgeID == "4" && reading.dateString == "2025-05-18" && (10..<11).contains(reading.hour)
        }
        #expect(!released.isEmpty)
    }
}
