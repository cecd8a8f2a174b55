import BridgetAnalysis
import BridgetDTOs
import Foundation
import Testing

/// A history that hands its records out in pages of `pageSize`, as a store does, and counts what it handed out.
actor PagedHistory: EventHistory {
    let records: [OpeningRecordDTO]
    let pageSize: Int
    private(set) var largestPage = 0
    private(set) var reads = 0

    /// A history of `records`, sorted by bridge then opening as the port promises unless `breaksTheOrder`.
    init(_ records: [OpeningRecordDTO], pageSize: Int, breaksTheOrder: Bool = false) {
        self.records = breaksTheOrder ? records : records.sorted { ($0.bridgeID, $0.openedAt) < ($1.bridgeID, $1.openedAt) }
        self.pageSize = pageSize
    }

    func bridges() -> [BridgeInfoDTO] { BridgeCatalog.seattle.bridges }
    func deleteEvents(openedBefore cutoff: Date) -> Int { 0 }
    func trafficFlows(bridgeID: String) -> [TrafficFlowDTO] { [] }

    func foldOpeningRecords<State: Sendable>(
        bridgeIDs: [String]?, into initial: State,
        _ update: @escaping @Sendable (inout State, [OpeningRecordDTO]) throws -> Void
    ) throws -> State {
        reads += 1
        let wanted = records.filter { bridgeIDs?.contains($0.bridgeID) ?? true }
        var state = initial
        for start in stride(from: 0, to: wanted.count, by: pageSize) {
            let page = Array(wanted[start..<min(start + pageSize, wanted.count)])
            largestPage = max(largestPage, page.count)
            try update(&state, page)
        }
        return state
    }
}

/// Records of several bridges over two years: fragments seconds apart (merged), durations in seconds (not whole
/// minutes), openings still open, from a fixed seed.
enum SyntheticHistory {
    static func records(count: Int, seed: UInt64 = 7) -> [OpeningRecordDTO] {
        var state = seed
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        let bridges = ["1", "2", "3", "4", "6"]
        let start: Int64 = 1_735_718_400 // 2025-01-01T08:00:00Z
        var result: [OpeningRecordDTO] = []
        var clock = [Int64](repeating: start, count: bridges.count)
        for _ in 0..<count {
            let bridge = next(bridges.count)
            let fragment = next(10) == 0 && clock[bridge] > start
            let opened = clock[bridge] + Int64(fragment ? 30 + next(60) : 600 + next(86_400 / 3))
            let seconds = Int64(next(4) == 0 ? 60 * (1 + next(20)) : 30 + next(1_500))
            let closed: Int64? = next(50) == 0 ? nil : opened + seconds
            clock[bridge] = closed ?? opened + 60
            // Seattle wall clock, eight hours behind (DST is not the point here).
            result.append(OpeningRecordDTO(bridgeID: bridges[bridge], openedAt: opened, closedAt: closed,
                                           openWall: opened - 8 * 3_600))
        }
        return result
    }
}

@Suite("Analysis over a stream of pages")
struct StreamingAnalysisTests {
    static let records = SyntheticHistory.records(count: 3_000)
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    @Test("statistics from the stream equal figures computed from the list of merged openings")
    func statisticsMatchTheList() async throws {
        let history = PagedHistory(Self.records, pageSize: 97)
        let stats = try await SerialProcessor(history: history, now: { [now] in now }).generateStatistics()
        let openings = MergedOpening.merge(records: Self.records, gap: 120)
        #expect(await history.largestPage == 97)
        #expect(stats.totalRows == Self.records.count && stats.totalOpenings == openings.count)
        #expect(openings.count < Self.records.count, "the history has fragments to merge")
        for figures in stats.bridges where figures.rows > 0 {
            let mine = openings.filter { $0.bridgeID == figures.bridgeID }
            let durations = mine.compactMap(\.durationMinutes).sorted()
            #expect(figures.openings == mine.count)
            #expect(figures.timedOpenings == durations.count)
            #expect(figures.meanMinutes == durations.reduce(0, +) / Double(durations.count), "bit for bit")
            #expect(figures.medianMinutes == OpeningStatistics.nearestRank(durations, 0.5))
            #expect(figures.p90Minutes == OpeningStatistics.nearestRank(durations, 0.9))
            #expect(figures.maxMinutes == durations.last)
            #expect(figures.firstOpening == mine.map(\.start).min() && figures.lastOpening == mine.map(\.start).max())
            var week = [[Int]](repeating: [Int](repeating: 0, count: 24), count: 7)
            var monthly: [String: Int] = [:]
            for opening in mine {
                week[opening.startLocal.mondayFirstWeekday][opening.startLocal.hour] += 1
                monthly[String(opening.startLocal.dateString.prefix(7)), default: 0] += 1
            }
            #expect(figures.hourOfWeek == week)
            #expect(figures.monthlyTrend == monthly)
            #expect(figures.yearlyTrend == ["2025": mine.filter { $0.startLocal.year == 2025 }.count,
                                            "2026": mine.filter { $0.startLocal.year == 2026 }.count]
                .filter { $0.value > 0 })
        }
    }

    @Test("every answer is the same whatever the page size, and the same from the parallel processor")
    func answersDoNotDependOnPaging() async throws {
        struct Answers: Equatable {
            var stats: StatisticsDTO
            var models: [OpeningModelDTO]
            var backtest: BacktestDTO
            var cascades: [CascadeDTO]
            var anomalies: [AnomalyDTO]
            var patterns: TrafficAnalysisDTO
        }
        let now = now
        func answers(_ processor: some BackgroundProcessing) async throws -> Answers {
            let scope = HistoryScope(bridgeIDs: ["3", "1"], from: Date(timeIntervalSince1970: 1_740_000_000))
            let backtest = try await processor.backtest(trainUntil: 20_160, testUntil: nil, in: scope)
            return Answers(
                stats: try await processor.generateStatistics(in: scope),
                models: try await processor.buildOpeningModels(), backtest: backtest,
                cascades: try await processor.findCascades(withinMinutes: 30, minimumCount: 1, in: .everything),
                anomalies: try await processor.findAnomalies(),
                patterns: try await processor.analyzeTrafficPatterns(bridgeID: "3", in: scope))
        }
        let whole = try await answers(SerialProcessor(history: PagedHistory(Self.records, pageSize: 100_000), now: { now }))
        #expect(whole.stats.totalOpenings > 0 && !whole.anomalies.isEmpty && !whole.cascades.isEmpty)
        #expect(whole.backtest.testOpenings > 0 && whole.backtest.trainOpenings > 0)
        for size in [1, 64] {
            let paged = try await answers(SerialProcessor(history: PagedHistory(Self.records, pageSize: size), now: { now }))
            #expect(paged == whole, "pages of \(size)")
        }
        let history = PagedHistory(Self.records, pageSize: 500)
        let parallel = try await answers(ParallelProcessor(history: history, width: 3, now: { now }))
        #expect(parallel == whole)
        #expect(await history.reads > 6, "the parallel processor reads the history bridge by bridge")
        // The list functions agree with the stream.
        #expect(whole.models == OpeningModelBuilder().buildAll(bridges: BridgeCatalog.seattle.bridges, records: Self.records,
                                                                mergeGap: 120, builtAt: now))
    }

    @Test("a history out of order is refused, not silently merged wrong")
    func unorderedHistoryIsRefused() async throws {
        await #expect(throws: AnalysisError.unorderedHistory(bridgeID: "3")) {
            let history = PagedHistory([OpeningRecordDTO(bridgeID: "3", openedAt: 2_000_000, closedAt: nil, openWall: 2_000_000),
                                        OpeningRecordDTO(bridgeID: "3", openedAt: 1_000_000, closedAt: nil, openWall: 1_000_000)],
                                       pageSize: 1, breaksTheOrder: true)
            _ = try await SerialProcessor(history: history).generateStatistics()
        }
        #expect(AnalysisError.unorderedHistory(bridgeID: "3").code == "analysis.unordered-history")
    }

    @Test("duration counts give the sorted list's mean to the last bit and its nearest-rank percentiles")
    func durationCountsAreExact() {
        var counts = DurationCounts()
        var seconds: [Int64] = []
        var state: UInt64 = 11
        for _ in 0..<5_000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1
            let value = Int64((state >> 40) % 3_000)
            seconds.append(value)
            counts.add(seconds: value)
        }
        let sorted = seconds.sorted().map { Double($0) / 60 }
        #expect(counts.total == 5_000)
        #expect(counts.meanMinutes == sorted.reduce(0, +) / 5_000)
        for percentile in [0.0, 0.01, 0.5, 0.9, 0.99, 1] {
            #expect(counts.percentileMinutes(percentile) == OpeningStatistics.nearestRank(sorted, percentile))
        }
        #expect(counts.maxMinutes == sorted.last)
        #expect(counts.counts.count <= 3_000, "one entry per distinct duration, not per opening")
        #expect(DurationCounts().meanMinutes == nil && DurationCounts().percentileMinutes(0.5) == nil)
    }
}
