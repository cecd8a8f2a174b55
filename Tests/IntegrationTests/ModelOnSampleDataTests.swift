import BridgetAnalysis
import BridgetCore
import BridgetDTOs
import BridgetNetworking
import BridgetTestSupport
import Foundation
import Testing

/// The model, fitted to a year of sample data whose generator is known, recovers what the generator put in.
@Suite("Opening model on sample data")
struct ModelOnSampleDataTests {
    static let events: [BridgeEventDTO] = {
        let generator = SampleOpeningGenerator(seed: 21, invalidRowRate: 0)
        let first = CivilCalendar.daysFromCivil(year: 2024, month: 1, day: 1)
        let rows = (first..<CivilCalendar.daysFromCivil(year: 2026, month: 1, day: 1)).flatMap { generator.rows(forDay: $0) }
        return judgeSocrataRows(rows, now: Date(timeIntervalSince1970: 1_800_000_000)).events
    }()

    /// The sample years' events and models, made on a thread of their own: seconds of arithmetic that on the
    /// cooperative pool would hold a thread the in-process servers of other tests need.
    static func built() async -> (events: [BridgeEventDTO], models: [OpeningModelDTO]) {
        await RawConnection.blocking(computing: true) { (events, models) }
    }

    /// Models as Bridget builds them for Seattle: federal holidays that lift the curfew count as Sundays.
    static let models = OpeningModelBuilder().buildAll(
        bridges: BridgeCatalog.seattle.bridges,
        tallies: Tallies(records: events.compactMap(OpeningRecordDTO.init), mergeGap: 120, rules: .seattle),
        builtAt: Date())

    @Test("Ship Canal bridges are near-zero on weekday rush hours (large vessels only), and busy at midday", arguments: ["2", "3", "4", "21"])
    func curfew(_ bridgeID: String) async throws {
        let model = try #require(await Self.built().models.first { $0.bridgeID == bridgeID })
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

    @Test("the model knows the season: summer months scale forecasts up, winter months down")
    func seasonFactors() async throws {
        for model in await Self.built().models {
            #expect(model.monthFactors[6] > 1.15 && model.monthFactors[0] < 0.85, "\(model.bridgeID)")
        }
    }

    @Test("a backtest on held-out months beats climatology for every bridge and both windows, and is calibrated")
    func backtestBeatsClimatology() async throws {
        let october = CivilCalendar.daysFromCivil(year: 2025, month: 10, day: 1)
        let result = try await RawConnection.blocking(computing: true) {
            Result {
                try Backtester(mergeGap: 120).run(bridges: BridgeCatalog.seattle.bridges, events: Self.events,
                                                  trainUntil: october, testUntil: october + 61)
            }
        }.get()
        #expect(result.windows.map(\.minutes) == [15, 30])
        #expect(result.testFrom == "2025-10-01" && result.testUntil == "2025-12-01")
        for window in result.windows {
            #expect(window.overall.points == 7 * 61 * 96)
            #expect(window.overall.brier < window.overall.brierClimatology)
            #expect(window.overall.logLoss < window.overall.logLossClimatology)
            for bridge in window.bridges {
                #expect(bridge.brier < bridge.brierClimatology, "\(window.minutes) min \(bridge.bridgeName ?? "")")
            }
            for bin in window.reliability where bin.count > 500 {
                #expect(abs((bin.meanPredicted ?? 0) - (bin.observed ?? 0)) < 0.1, "bin \(bin.lower)")
            }
        }
    }

    @Test("a test period reaching past the history is cut at its end, not scored for years")
    func backtestStopsAtHistory() async throws {
        let processor = SerialProcessor(history: ProcessorEqualityTests.YearHistory(await Self.built().events),
                                        now: { Date() })
        let october = CivilCalendar.daysFromCivil(year: 2025, month: 10, day: 1)
        let farFuture = CivilCalendar.daysFromCivil(year: 2900, month: 1, day: 1)
        let result = try await processor.backtest(trainUntil: october, testUntil: farFuture)
        #expect(result.testUntil == "2026-01-01")
        #expect(result.windows[0].overall.points == 7 * 92 * 96)
    }

    @Test("per-bridge rates keep the generator's order; summer is busier than winter")
    func ratesAndSeason() async throws {
        let (events, models) = await Self.built()
        let base = Dictionary(uniqueKeysWithValues: models.map { ($0.bridgeID, $0.baseStartProbability) })
        #expect(base["3", default: 0] > base["2", default: 0])
        #expect(base["2", default: 0] > base["21", default: 0])
        #expect(base["21", default: 0] > base["4", default: 0])
        #expect(base["1", default: 0] > base["29", default: 0])
        let stats = OpeningStatistics.compute(bridges: BridgeCatalog.seattle.bridges, events: events,
                                              generatedAt: Date(), mergeGap: 120)
        for bridge in stats.bridges {
            let july = try #require(bridge.openingsPerDayByMonth[6])
            let january = try #require(bridge.openingsPerDayByMonth[0])
            #expect(july > 1.4 * january, "\(bridge.bridgeName)")
        }
    }
}

/// The serial and the parallel processor give equal answers on the same data.
@Suite("Serial and parallel processors")
struct ProcessorEqualityTests {
    /// A history the processors read, holding a year of sample events.
    typealias YearHistory = InMemoryHistory

    @Test("validation, statistics and models are equal, DST days and invalid rows included")
    func equalResults() async throws {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let generator = SampleOpeningGenerator(seed: 4, invalidRowRate: 0.05)
        let first = CivilCalendar.daysFromCivil(year: 2024, month: 1, day: 1)
        var rows = (first..<(first + 366)).flatMap { generator.rows(forDay: $0) }
        // Two openings at the same repeated-hour reading, and one whose minutesopen needs the second occurrence.
        let fremont = BridgeCatalog.seattle.bridges[2]
        for (open, close, minutes) in [("2024-11-03T01:30:00.000", "2024-11-03T01:34:00.000", "4"),
                                       ("2024-11-03T01:30:00.000", "2024-11-03T01:34:00.000", "4"),
                                       ("2024-11-03T01:58:00.000", "2024-11-03T02:03:00.000", "5")] {
            rows.append(SocrataRow(entityname: fremont.name, entityid: fremont.id, opendatetime: open,
                                   closedatetime: close, minutesopen: minutes, latitude: nil, longitude: nil))
        }
        var reader = SocrataObservationReader()
        let batch = reader.observations(rows)
        let empty = YearHistory([])
        let serialBatch = try await SerialProcessor(history: empty, now: { now })
            .validate(batch, catalog: .seattle, clock: .seattle)
        let parallelBatch = try await ParallelProcessor(history: empty, width: 2, now: { now })
            .validate(batch, catalog: .seattle, clock: .seattle)
        #expect(serialBatch == parallelBatch)
        #expect(serialBatch.rejected.count > 100)

        let history = YearHistory(serialBatch.events)
        let serial = SerialProcessor(history: history, now: { now })
        let parallel = ParallelProcessor(history: history, width: 2, now: { now })
        #expect(try await serial.generateStatistics() == parallel.generateStatistics())
        #expect(try await serial.buildOpeningModels() == parallel.buildOpeningModels())
    }
}
