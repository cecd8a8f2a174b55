@testable import BridgetCLI
import BridgetAnalysis
import BridgetDTOs
import BridgetNetworking
import Foundation
import Testing

/// The model, fitted to a year of sample data whose generator is known, recovers what the generator put in.
@Suite("Opening model on sample data")
struct ModelOnSampleDataTests {
    static let events: [BridgeEventDTO] = {
        let generator = SampleOpeningGenerator(seed: 21, invalidRowRate: 0)
        let first = CivilCalendar.daysFromCivil(year: 2025, month: 1, day: 1)
        let rows = (first..<(first + 365)).flatMap { generator.rows(forDay: $0) }
        return EventValidator(catalog: .seattle, now: Date(timeIntervalSince1970: 1_800_000_000)).validate(rows).events
    }()

    static let models = OpeningModelBuilder().buildAll(
        bridges: BridgeCatalog.seattle.bridges, events: events, mergeGap: 120, builtAt: Date())

    @Test("Ship Canal bridges are near-zero on weekday rush hours, and busy at midday", arguments: ["2", "3", "4", "21"])
    func curfew(_ bridgeID: String) throws {
        let model = try #require(Self.models.first { $0.bridgeID == bridgeID })
        var rush: [Double] = []
        var midday: [Double] = []
        for weekday in 0..<5 {
            for quarter in 0..<4 {
                for hour in [7, 8, 16, 17] { rush.append(model.slots[weekday * 96 + hour * 4 + quarter].startProbability) }
                for hour in 11..<15 { midday.append(model.slots[weekday * 96 + hour * 4 + quarter].startProbability) }
            }
        }
        #expect(rush.allSatisfy { $0 < 0.02 })
        let mean = { (values: [Double]) in values.reduce(0, +) / Double(values.count) }
        #expect(mean(midday) > 10 * mean(rush))
        #expect(mean(midday) > model.baseStartProbability)
    }

    @Test("per-bridge rates keep the generator's order; summer is busier than winter")
    func ratesAndSeason() throws {
        let base = Dictionary(uniqueKeysWithValues: Self.models.map { ($0.bridgeID, $0.baseStartProbability) })
        #expect(base["3", default: 0] > base["2", default: 0])
        #expect(base["2", default: 0] > base["21", default: 0])
        #expect(base["21", default: 0] > base["4", default: 0])
        #expect(base["1", default: 0] > base["29", default: 0])
        let stats = OpeningStatistics.compute(bridges: BridgeCatalog.seattle.bridges, events: Self.events,
                                              generatedAt: Date(), mergeGap: 120)
        for bridge in stats.bridges {
            let july = try #require(bridge.openingsPerDayByMonth[6])
            let january = try #require(bridge.openingsPerDayByMonth[0])
            #expect(july > 1.4 * january, "\(bridge.bridgeName)")
        }
    }
}
