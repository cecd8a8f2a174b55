import BridgetAnalysis
import BridgetDTOs
import Foundation
import Testing

/// Events built by hand from Seattle wall-clock readings.
enum Hand {
    static let time = LocalClock.seattle
    static let fremont = BridgeCatalog.seattle.bridge(id: "3")!
    static let ballard = BridgeCatalog.seattle.bridge(id: "2")!

    static func event(_ local: String, minutes: Int?) -> BridgeEventDTO { event(fremont, local, minutes: minutes) }

    static func event(_ bridge: BridgeInfoDTO, _ local: String, minutes: Int?) -> BridgeEventDTO {
        let reading = FloatingTimestamp(local)!
        let opened = time.openingInstant(for: reading)
        let closed = minutes.map { opened.addingTimeInterval(Double($0) * 60) }
        return BridgeEventDTO(
            bridgeID: bridge.id, bridgeName: bridge.name, openedAt: opened, openLocal: local, closedAt: closed,
            closeLocal: closed.map { time.reading(for: $0).description }, minutesOpen: minutes,
            latitude: nil, longitude: nil)
    }
}

@Suite("Opening statistics")
struct OpeningStatisticsTests {
    let generatedAt = Date(timeIntervalSince1970: 1_800_000_000)

    @Test("known answers: counts, nearest-rank percentiles, mean, max, busiest hour, per day")
    func knownAnswers() throws {
        let events = [
            Hand.event("2026-06-01T08:10:00.000", minutes: 2),
            Hand.event("2026-06-01T08:40:00.000", minutes: 10),
            Hand.event("2026-06-02T13:00:00.000", minutes: 4),
            Hand.event("2026-06-03T08:05:00.000", minutes: 6),
            Hand.event("2026-06-04T23:59:00.000", minutes: nil), // still open: counted, not timed
            Hand.event(Hand.ballard, "2026-06-04T10:00:00.000", minutes: 3),
        ]
        let stats = OpeningStatistics.compute(
            bridges: BridgeCatalog.seattle.bridges, events: events, generatedAt: generatedAt)
        #expect(stats.days == 4)
        #expect(stats.firstDay == "2026-06-01")
        #expect(stats.lastDay == "2026-06-04")
        #expect(stats.totalOpenings == 6)
        let fremont = try #require(stats.bridges.first { $0.bridgeID == "3" })
        #expect(fremont.openings == 5)
        #expect(fremont.timedOpenings == 4)
        #expect(fremont.openingsPerDay == 1.25)
        #expect(fremont.meanMinutes == 5.5)
        #expect(fremont.medianMinutes == 4) // sorted 2,4,6,10: rank ⌈0.5·4⌉ = 2
        #expect(fremont.p90Minutes == 10) // rank ⌈0.9·4⌉ = 4
        #expect(fremont.maxMinutes == 10)
        #expect(fremont.busiestHour == 8)
        #expect(fremont.busiestHourOpenings == 3)
        let ballard = try #require(stats.bridges.first { $0.bridgeID == "2" })
        #expect(ballard.openings == 1 && ballard.medianMinutes == 3 && ballard.p90Minutes == 3)
        #expect(ballard.openingsPerDay == 0.25)
    }

    @Test("bridges without events are listed with zero openings and no durations")
    func bridgeWithoutEvents() throws {
        let stats = OpeningStatistics.compute(
            bridges: BridgeCatalog.seattle.bridges, events: [Hand.event("2026-06-01T08:10:00.000", minutes: 4)],
            generatedAt: generatedAt)
        #expect(stats.bridges.count == 7)
        let southPark = try #require(stats.bridges.first { $0.bridgeID == "29" })
        #expect(southPark.openings == 0 && southPark.openingsPerDay == 0)
        #expect(southPark.meanMinutes == nil && southPark.medianMinutes == nil && southPark.busiestHour == nil)
        #expect(stats.days == 1)
    }

    @Test func emptyHistory() {
        let stats = OpeningStatistics.compute(bridges: [], events: [], generatedAt: generatedAt)
        #expect(stats.days == 0 && stats.totalOpenings == 0 && stats.firstDay == nil && stats.bridges.isEmpty)
    }

    @Test func nearestRank() {
        #expect(OpeningStatistics.nearestRank([], 0.5) == nil)
        #expect(OpeningStatistics.nearestRank([7], 0.9) == 7)
        #expect(OpeningStatistics.nearestRank([1, 2, 3, 4, 5], 0.5) == 3)
        #expect(OpeningStatistics.nearestRank(Array(1...10).map(Double.init), 0.9) == 9)
        #expect(OpeningStatistics.nearestRank(Array(1...10).map(Double.init), 0.91) == 10)
    }

    @Test func trafficPatterns() {
        let events = [
            Hand.event("2026-06-01T08:10:00.000", minutes: 2), // Monday
            Hand.event("2026-06-01T08:40:00.000", minutes: 2),
            Hand.event("2026-06-06T13:00:00.000", minutes: 2), // Saturday
        ]
        let analysis = OpeningStatistics.trafficPatterns(bridgeID: "3", openings: MergedOpening.merge(events, gap: 120))
        #expect(analysis.openings == 3)
        #expect(analysis.openingsByHour[8] == 2 && analysis.openingsByHour[13] == 1)
        #expect(analysis.openingsByWeekday == [2, 0, 0, 0, 0, 1, 0]) // Monday first, as every week in Bridget
        #expect(analysis.peakHours == [8, 13])
        #expect(analysis.congestionCorrelation == nil)
    }

    @Test("fragments less than the gap apart are one opening, from first open to last close")
    func fragmentMerging() throws {
        let events = [
            Hand.event("2026-06-01T10:00:00.000", minutes: 3),  // 10:00–10:03
            Hand.event("2026-06-01T10:04:00.000", minutes: 2),  // 1 minute later: merged, ends 10:06
            Hand.event("2026-06-01T10:07:30.000", minutes: 1),  // 1.5 minutes later: merged, ends 10:08:30
            Hand.event("2026-06-01T10:12:00.000", minutes: 4),  // 3.5 minutes later: a new opening
            Hand.event(Hand.ballard, "2026-06-01T10:05:00.000", minutes: 2), // another bridge: never merged
        ]
        let merged = MergedOpening.merge(events, gap: 120)
        #expect(merged.count == 3)
        let fremont = merged.filter { $0.bridgeID == "3" }
        #expect(fremont.map(\.fragments) == [3, 1])
        #expect(fremont.first?.durationMinutes == 8.5)
        #expect(MergedOpening.merge(events, gap: 0).count == 5)

        let stats = OpeningStatistics.compute(bridges: BridgeCatalog.seattle.bridges, events: events,
                                              generatedAt: generatedAt, mergeGap: 120)
        let bridge = try #require(stats.bridges.first { $0.bridgeID == "3" })
        #expect(bridge.openings == 2 && bridge.rows == 4)
        #expect(bridge.maxMinutes == 8.5 && bridge.medianMinutes == 4)
        #expect(stats.totalOpenings == 3 && stats.totalRows == 5 && stats.mergeGapMinutes == 2)
    }

    @Test("hour-of-week, month-of-year rates and trends")
    func calendarFigures() throws {
        let events = [
            Hand.event("2026-06-01T08:10:00.000", minutes: 2), // Monday
            Hand.event("2026-06-07T23:10:00.000", minutes: 2), // Sunday
            Hand.event("2026-07-01T08:10:00.000", minutes: 2), // Wednesday
        ]
        let stats = OpeningStatistics.compute(bridges: [Hand.fremont], events: events, generatedAt: generatedAt)
        let fremont = try #require(stats.bridges.first)
        #expect(fremont.hourOfWeek[0][8] == 1 && fremont.hourOfWeek[6][23] == 1 && fremont.hourOfWeek[2][8] == 1)
        #expect(stats.hourOfWeek == fremont.hourOfWeek)
        #expect(fremont.openingsPerDayByMonth[5] == 2.0 / 30) // June: 2 openings over 30 days
        #expect(fremont.openingsPerDayByMonth[6] == 1.0)       // July: 1 opening over 1 day of history
        #expect(fremont.openingsPerDayByMonth[0] == nil)
        #expect(fremont.monthlyTrend == ["2026-06": 2, "2026-07": 1] && fremont.yearlyTrend == ["2026": 3])
    }

    @Test("a duration histogram counts every opening once: bins from zero, the last open-ended only when it is cut")
    func durationHistogram() {
        var durations = DurationCounts()
        for seconds: Int64 in [60, 120, 150, 299, 300, 3_600, 9_000] { durations.add(seconds: seconds) }
        let cut = durations.histogram(binMinutes: 5, maximumBins: 4)
        #expect(cut.map(\.fromMinutes) == [0, 5, 10, 15] && cut.map(\.count) == [4, 1, 0, 2])
        #expect(cut.map(\.isOpenEnded) == [false, false, false, true])
        let whole = durations.histogram(binMinutes: 60, maximumBins: 40)
        #expect(whole.map(\.count) == [5, 1, 1] && !whole.contains(where: \.isOpenEnded))
        #expect(whole.reduce(0) { $0 + $1.count } == durations.total)
        #expect(DurationCounts().histogram(binMinutes: 5, maximumBins: 4).isEmpty)
    }
}
