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
    /// The rules models and backtests know (holidays lifting a curfew count as Sundays); `nil`: none.
    public let rules: RuleCalendar?

    /// Creates a processor over a history; `now` bounds accepted opening times from above.
    public init(
        history: any EventHistory, maximumDistanceMeters: Double = 1_000, mergeGap: TimeInterval = 120,
        rules: RuleCalendar? = nil, now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.history = history
        self.rules = rules
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
        let flows = try await history.trafficFlows(bridgeID: bridgeID)
        let bridgeScope = HistoryScope(bridgeIDs: [bridgeID], from: scope.from, before: scope.before)
        // The starts are kept only when there are observations to correlate them with.
        var sink = PatternSink(bridgeID: bridgeID, keepsStarts: flows.count >= 3)
        sink = try await history.pass(sink, scope: bridgeScope, mergeGap: mergeGap)
        return OpeningStatistics.trafficPatterns(bridgeID: bridgeID, tally: sink.tally, starts: sink.starts, flows: flows)
    }

    public func buildOpeningModels() async throws -> [OpeningModelDTO] {
        let bridges = try await history.bridges()
        let tallies = try await history.tallies(.everything, mergeGap: mergeGap, occupancy: true, rules: rules)
        let builtAt = now()
        return try await OwnThread.run { OpeningModelBuilder().buildAll(bridges: bridges, tallies: tallies, builtAt: builtAt) }
    }

    public func backtest(trainUntil: Int, testUntil: Int?, in scope: HistoryScope) async throws -> BacktestDTO {
        // Every bridge's openings are read (the evidence and the river's links); the scope's bridges are scored.
        let bridges = try await history.bridges()
        var everyBridge = scope
        everyBridge.bridgeIDs = []
        let periods = try await history.pass(
            Backtester.Periods(trainUntil: trainUntil, testUntil: testUntil, mergeGap: mergeGap, rules: rules),
            scope: everyBridge, mergeGap: mergeGap)
        // Never past the history: there is nothing to score there, and a far date would mean years of empty work.
        let afterHistory = (periods.lastDay ?? trainUntil) + 1
        let (mergeGap, rules) = (mergeGap, rules)
        let scoring = scope.bridgeIDs.isEmpty ? nil : Set(scope.bridgeIDs)
        return try await OwnThread.run {
            try Backtester(mergeGap: mergeGap, rules: rules).run(
                bridges: bridges, periods: periods, testUntil: min(testUntil ?? afterHistory, afterHistory),
                scoring: scoring)
        }
    }

    public func findCascades(withinMinutes: Int, minimumCount: Int, in scope: HistoryScope) async throws -> [CascadeDTO] {
        let bridges = scope.filter(try await history.bridges())
        let starts = try await history.pass(StartSink(), scope: scope, mergeGap: mergeGap).finished()
        return PatternFinder(bridges: bridges, models: [])
            .cascades(startsByBridge: starts, withinMinutes: withinMinutes, minimumCount: minimumCount)
    }

    /// Two reads of the history: the first tallies it (models and each bridge's p99 duration), the second judges each
    /// opening against them and keeps the anomalies only.
    public func findAnomalies() async throws -> [AnomalyDTO] {
        let bridges = try await history.bridges()
        let tallies = try await history.tallies(.everything, mergeGap: mergeGap, occupancy: true, rules: rules)
        let builtAt = now()
        let models = try await OwnThread.run {
            OpeningModelBuilder().buildAll(bridges: bridges, tallies: tallies, builtAt: builtAt)
        }
        let finder = PatternFinder(bridges: bridges, models: models, rules: rules, startMinutes: tallies.startMinutes)
        let p99 = tallies.byBridge.compactMapValues { $0.durations.percentileMinutes(0.99) }
        let found = try await history.pass(AnomalySink(finder: finder, p99: p99), scope: .everything, mergeGap: mergeGap)
        return PatternFinder.newestFirst(found.found)
    }

    public func generateStatistics(in scope: HistoryScope) async throws -> StatisticsDTO {
        OpeningStatistics.compute(bridges: scope.filter(try await history.bridges()), tallies: try await tallies(in: scope),
                                  generatedAt: now(), mergeGap: mergeGap)
    }

    public func tallies(in scope: HistoryScope) async throws -> Tallies {
        try await history.tallies(scope, mergeGap: mergeGap, occupancy: false)
    }
}

/// A bridge's patterns: its tally, and its openings' start instants when there is traffic to correlate them with.
struct PatternSink: OpeningSink {
    private(set) var tally: OpeningTally
    private(set) var starts: [Int64] = []
    let keepsStarts: Bool

    init(bridgeID: String, keepsStarts: Bool) {
        tally = OpeningTally(bridgeID: bridgeID, occupancy: false)
        self.keepsStarts = keepsStarts
    }

    mutating func begin(bridgeID: String) {}
    mutating func take(record: OpeningRecordDTO) { tally.add(row: record) }

    mutating func take(opening: MergedOpening) {
        tally.add(opening)
        if keepsStarts { starts.append(Int64(opening.start.timeIntervalSince1970.rounded(.down))) }
    }
}
