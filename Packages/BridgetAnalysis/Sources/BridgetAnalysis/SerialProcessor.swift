import BridgetDTOs
import Foundation

/// The `serial` processor: does each job on the calling task, one step after another.
public struct SerialProcessor: BackgroundProcessing {
    public let name = "serial"
    private let history: any EventHistory
    private let now: @Sendable () -> Date
    private let maximumDistanceMeters: Double
    /// Rows of one bridge closer than this (seconds) count as one opening.
    public let mergeGap: TimeInterval

    /// Creates a processor over a history; `now` bounds accepted opening times from above.
    public init(
        history: any EventHistory, maximumDistanceMeters: Double = 1_000, mergeGap: TimeInterval = 120,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.history = history
        self.now = now
        self.maximumDistanceMeters = maximumDistanceMeters
        self.mergeGap = mergeGap
    }

    public func validate(_ observations: [OpeningObservation], catalog: BridgeCatalog, clock: LocalClock) async throws
        -> ObservationValidator.Outcome
    {
        ObservationValidator(catalog: catalog, clock: clock, now: now(), maximumDistanceMeters: maximumDistanceMeters)
            .validate(observations)
    }

    public func cleanupOldData(olderThan cutoff: Date) async throws -> Int {
        try await history.deleteEvents(openedBefore: cutoff)
    }

    public func analyzeTrafficPatterns(bridgeID: String, in scope: HistoryScope) async throws -> TrafficAnalysisDTO {
        guard try await history.bridges().contains(where: { $0.id == bridgeID }) else {
            throw AnalysisError.unknownBridge(id: bridgeID)
        }
        let events = try await history.events(bridgeID: bridgeID)
            .filter { scope.from == nil && scope.before == nil || scope.contains(bridgeID: bridgeID, openedAt: $0.openedAt) }
        let openings = MergedOpening.merge(events, gap: mergeGap)
        return OpeningStatistics.trafficPatterns(bridgeID: bridgeID, openings: openings,
                                                 flows: try await history.trafficFlows(bridgeID: bridgeID))
    }

    public func buildOpeningModels() async throws -> [OpeningModelDTO] {
        OpeningModelBuilder().buildAll(bridges: try await history.bridges(), records: try await history.openingRecords(),
                                       mergeGap: mergeGap, builtAt: now())
    }

    public func backtest(trainUntil: Int, testUntil: Int?, in scope: HistoryScope) async throws -> BacktestDTO {
        let records = scope.filter(try await history.openingRecords())
        // Never past the history: there is nothing to score there, and a far date would mean years of empty work.
        let afterHistory = (HistorySpan(records: records).lastDay?.dayNumber ?? trainUntil) + 1
        let end = min(testUntil ?? afterHistory, afterHistory)
        return try Backtester(mergeGap: mergeGap).run(bridges: scope.filter(try await history.bridges()), records: records,
                                                      trainUntil: trainUntil, testUntil: end)
    }

    public func findCascades(withinMinutes: Int, minimumCount: Int, in scope: HistoryScope) async throws -> [CascadeDTO] {
        let bridges = scope.filter(try await history.bridges())
        let records = scope.filter(try await history.openingRecords())
        let models = OpeningModelBuilder().buildAll(bridges: bridges, records: records, mergeGap: mergeGap, builtAt: now())
        return PatternFinder(bridges: bridges, models: models)
            .cascades(MergedOpening.merge(records: records, gap: mergeGap), withinMinutes: withinMinutes,
                      minimumCount: minimumCount)
    }

    public func findAnomalies() async throws -> [AnomalyDTO] {
        let (finder, openings) = try await patternInputs()
        return finder.anomalies(openings)
    }

    private func patternInputs() async throws -> (PatternFinder, [MergedOpening]) {
        let bridges = try await history.bridges()
        let records = try await history.openingRecords()
        let models = OpeningModelBuilder().buildAll(bridges: bridges, records: records, mergeGap: mergeGap, builtAt: now())
        return (PatternFinder(bridges: bridges, models: models), MergedOpening.merge(records: records, gap: mergeGap))
    }

    public func generateStatistics(in scope: HistoryScope) async throws -> StatisticsDTO {
        OpeningStatistics.compute(
            bridges: scope.filter(try await history.bridges()), records: scope.filter(try await history.openingRecords()),
            generatedAt: now(), mergeGap: mergeGap)
    }
}
