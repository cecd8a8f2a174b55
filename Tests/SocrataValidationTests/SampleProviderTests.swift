import BridgetAnalysis
import BridgetDTOs
@testable import BridgetNetworking
import Foundation
import Testing

/// Facts about the synthetic data that analysis and tests rely on.
@Suite("Sample provider")
struct SampleProviderTests {
    /// 2025-01-01 … 2025-12-31 as Seattle day numbers.
    static let firstDay = CivilCalendar.daysFromCivil(year: 2025, month: 1, day: 1)
    static let lastDay = CivilCalendar.daysFromCivil(year: 2025, month: 12, day: 31)
    static let validator = SocrataRowValidator(catalog: .seattle, now: Date(timeIntervalSince1970: 1_800_000_000))

    static func year(seed: UInt64 = 42, invalidRate: Double = 0.002) -> [SocrataRow] {
        let generator = SampleOpeningGenerator(seed: seed, invalidRowRate: invalidRate)
        return (firstDay...lastDay).flatMap { generator.rows(forDay: $0) }
    }

    static let cleanYear = validator.validate(year(invalidRate: 0)).events

    @Test("same seed and range give byte-identical rows; another seed does not")
    func deterministic() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let first = try encoder.encode(Self.year(seed: 7))
        let second = try encoder.encode(Self.year(seed: 7))
        let other = try encoder.encode(Self.year(seed: 8))
        #expect(first == second)
        #expect(first != other)
    }

    @Test("a day's rows do not depend on the range around it")
    func daysAreIndependentOfRange() async throws {
        let generator = SampleOpeningGenerator(seed: 3)
        let long = SampleProvider(generator: generator, lastDay: Self.lastDay, days: 30, pageSize: 100)
        let short = SampleProvider(generator: generator, lastDay: Self.lastDay, days: 3, pageSize: 100)
        var longRows: [SourceRecord] = []
        for try await page in long.eventPages(since: nil) { longRows += page.records }
        var shortRows: [SourceRecord] = []
        for try await page in short.eventPages(since: nil) { shortRows += page.records }
        #expect(!shortRows.isEmpty)
        #expect(Array(longRows.suffix(shortRows.count)) == shortRows)
    }

    @Test("about 14,000 openings a year, with different rates per bridge")
    func yearlyVolumeAndRates() {
        let events = Self.cleanYear
        #expect((12_500...15_500).contains(events.count), "got \(events.count)")
        var perBridge: [String: Int] = [:]
        for event in events { perBridge[event.bridgeID, default: 0] += 1 }
        #expect(Set(perBridge.keys) == Set(BridgeCatalog.seattle.bridges.map(\.id)))
        #expect(Set(perBridge.values).count == 7)
        #expect(perBridge["3", default: 0] > perBridge["2", default: 0])
        #expect(perBridge["2", default: 0] > perBridge["4", default: 0])
        #expect(perBridge["4", default: 0] > perBridge["29", default: 0])
    }

    @Test("Ship Canal bridges open for small vessels on working days only outside 07–09 and 16–18 (large vessels and federal holidays aside); the Duwamish bridges keep no curfew")
    func rushHourCurfew() throws {
        var curfewOpenings: [String: Int] = [:]
        var allOpenings: [String: Int] = [:]
        for event in Self.cleanYear {
            let reading = try #require(FloatingTimestamp(event.openLocal))
            allOpenings[event.bridgeID, default: 0] += 1
            if RuleCalendar.seattle.curfewHolds("3", at: reading) {
                curfewOpenings[event.bridgeID, default: 0] += 1
            }
        }
        for bridge in BridgeCatalog.seattle.bridges {
            let share = Double(curfewOpenings[bridge.id, default: 0]) / Double(allOpenings[bridge.id, default: 1])
            if bridge.isShipCanalBridge {
                // Only large vessels (3% of the canal's) open them then: well under 2% of their openings.
                #expect(share < 0.02, "\(bridge.name): \(share)")
            } else {
                #expect(curfewOpenings[bridge.id, default: 0] > 50, "\(bridge.name)")
            }
        }
    }

    @Test("more openings in summer than in winter, and an hour-of-day profile")
    func seasonAndHours() throws {
        var byMonth = [Int](repeating: 0, count: 13)
        var byHour = [Int](repeating: 0, count: 24)
        for event in Self.cleanYear {
            let reading = try #require(FloatingTimestamp(event.openLocal))
            byMonth[reading.month] += 1
            byHour[reading.hour] += 1
        }
        #expect(Double(byMonth[7]) > 1.5 * Double(byMonth[1]))
        #expect(byHour[13] > 3 * byHour[3])
    }

    @Test("durations: median 4–6 minutes with a long tail")
    func durations() {
        let minutes = Self.cleanYear.compactMap(\.durationMinutes).sorted()
        let median = minutes[minutes.count / 2]
        #expect((4...6).contains(median))
        let long = minutes.filter { $0 >= 20 }.count
        #expect(long > minutes.count / 100)
        #expect(minutes.first! >= 1)
    }

    @Test("a few percent of openings are recorded as fragments a minute apart")
    func fragments() {
        var fragments = 0
        var previous: BridgeEventDTO?
        for event in Self.cleanYear.sorted(by: { ($0.bridgeID, $0.openedAt) < ($1.bridgeID, $1.openedAt) }) {
            if let previous, previous.bridgeID == event.bridgeID, let closed = previous.closedAt,
               event.openedAt.timeIntervalSince(closed) < 120 {
                fragments += 1
            }
            previous = event
        }
        let share = Double(fragments) / Double(Self.cleanYear.count)
        #expect((0.01...0.06).contains(share), "share \(share)")
    }

    @Test("invalid rows appear at the configured rate and break several different rules")
    func invalidRows() {
        let none = Self.validator.validate(Self.year(invalidRate: 0))
        #expect(none.rejected.isEmpty)
        let some = Self.validator.validate(Self.year(invalidRate: 0.05))
        let share = Double(some.rejected.count) / Double(some.events.count + some.rejected.count)
        #expect((0.02...0.08).contains(share), "share \(share)")
        #expect(some.rejectionCounts.byReason.count >= 8)
        let defaultRate = Self.validator.validate(Self.year())
        #expect((1...100).contains(defaultRate.rejected.count))
    }

    @Test("pages keep whole days, in order, and a watermark starts at its day")
    func paging() async throws {
        let generator = SampleOpeningGenerator(seed: 42)
        let provider = SampleProvider(generator: generator, lastDay: Self.firstDay + 9, days: 10, pageSize: 50)
        var pages: [EventPage] = []
        for try await page in provider.eventPages(since: nil) { pages.append(page) }
        #expect(pages.map(\.index) == Array(0..<pages.count))
        #expect(pages.dropLast().allSatisfy { $0.observations.count >= 50 })
        let expected = (Self.firstDay...(Self.firstDay + 9)).flatMap { generator.rows(forDay: $0) }
        #expect(pages.flatMap(\.records) == expected.map(SocrataObservationReader.source))

        let watermark = LocalClock.seattle.openingInstant(for: FloatingTimestamp("2025-01-08T12:00:00.000")!)
        var resumed: [SourceRecord] = []
        for try await page in provider.eventPages(since: watermark) { resumed += page.records }
        let lastThreeDays = ((Self.firstDay + 7)...(Self.firstDay + 9)).flatMap { generator.rows(forDay: $0) }
        #expect(resumed == lastThreeDays.map(SocrataObservationReader.source))
    }

    @Test("hourly traffic: weekday rush hours are congested, hours with openings more so")
    func trafficFlows() async throws {
        let generator = SampleOpeningGenerator(seed: 42)
        let provider = SampleProvider(generator: generator, lastDay: Self.firstDay + 27, days: 28, pageSize: 100_000)
        var pages: [EventPage] = []
        for try await page in provider.eventPages(since: nil) { pages.append(page) }
        let flows = pages.flatMap(\.trafficFlows)
        #expect(flows.count == 28 * 24 * 7)
        let time = LocalClock.seattle
        func mean(_ hours: Set<Int>, weekend: Bool) -> Double {
            let picked = flows.filter { flow in
                let reading = time.reading(for: flow.timestamp)
                return hours.contains(reading.hour) && ((reading.weekday == 1 || reading.weekday == 7) == weekend)
            }
            return picked.map(\.congestionLevel).reduce(0, +) / Double(picked.count)
        }
        #expect(mean([8, 17], weekend: false) > 0.7)
        #expect(mean([3], weekend: false) < 0.2)
        #expect(mean([8, 17], weekend: true) < 0.45)
        #expect(flows.allSatisfy { (0...1).contains($0.congestionLevel) && $0.trafficVolume > 0 })
    }

    @Test func catalogAndPages() async throws {
        let provider = SampleProvider(generator: SampleOpeningGenerator(seed: 1), lastDay: Self.firstDay, days: 1)
        #expect(try await provider.fetchBridgeCatalog().count == 7)
        #expect(await provider.checkConnection().isReachable)
        var rows: [SourceRecord] = []
        for try await page in provider.eventPages(since: nil) { rows += page.records }
        #expect(rows == SampleOpeningGenerator(seed: 1).rows(forDay: Self.firstDay).map(SocrataObservationReader.source))
    }

    @Test("DST days generate valid rows: none in the spring gap, none rejected on the fall-back day",
          arguments: [(2024, 3, 10), (2024, 11, 3), (2025, 3, 9), (2025, 11, 2)])
    func dstDays(_ date: (Int, Int, Int)) {
        let generator = SampleOpeningGenerator(seed: 9, invalidRowRate: 0, profiles: Dictionary(
            uniqueKeysWithValues: BridgeCatalog.seattle.bridges.map { bridge in
                (bridge.id, SampleBridgeProfile(openingsPerYear: 40_000, hourWeights: Array(repeating: 1, count: 24),
                                                keepsRushHourCurfew: false))
            }))
        let day = CivilCalendar.daysFromCivil(year: date.0, month: date.1, day: date.2)
        let rows = generator.rows(forDay: day)
        let outcome = Self.validator.validate(rows)
        #expect(rows.count > 300)
        #expect(outcome.rejected.isEmpty, "\(outcome.rejectionCounts.summary)")
        #expect(!rows.contains { $0.opendatetime?.dropFirst(11).hasPrefix("02:") == true && date.1 == 3 })
        #expect(rows.contains { $0.opendatetime?.dropFirst(11).hasPrefix("01:") == true })
    }
}

extension EventPage {
    /// The page's records as received.
    var records: [SourceRecord] { observations.map(\.source) }
}
