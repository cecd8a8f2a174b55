import BridgetDTOs
import Foundation

/// The `parallel` processor: the serial processor's answers, with the work spread over a task group.
///
/// Rows are validated in chunks concurrently, then duplicates are judged in input order exactly as the serial
/// processor does (rows whose reading may fall in the autumn repeated hour are judged again in order, because their
/// instant can depend on earlier rows). Statistics and models read the history split by bridge, `width` bridges at a
/// time, each read tallied on its own task, and the tallies are assembled in catalog order. Each bridge is its own
/// read, so a write between two of them can show in one bridge's figures and not another's (the serial processor
/// reads once); records of bridges outside the catalog are not read. A test proves both processors give equal
/// results on the same data.
public struct ParallelProcessor: BackgroundProcessing {
    public let name = "parallel"
    private let serial: SerialProcessor
    private let history: any EventHistory
    private let now: @Sendable () -> Date
    private let maximumDistanceMeters: Double
    private let mergeGap: TimeInterval
    private let rules: RuleCalendar?
    /// Concurrent tasks to use.
    public let width: Int

    /// Creates a processor; `width` defaults to the machine's active cores.
    public init(
        history: any EventHistory, maximumDistanceMeters: Double = 1_000, mergeGap: TimeInterval = 120,
        width: Int = ProcessInfo.processInfo.activeProcessorCount, rules: RuleCalendar? = nil,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.serial = SerialProcessor(history: history, maximumDistanceMeters: maximumDistanceMeters,
                                      mergeGap: mergeGap, rules: rules, now: now)
        self.rules = rules
        self.history = history
        self.now = now
        self.maximumDistanceMeters = maximumDistanceMeters
        self.mergeGap = mergeGap
        self.width = max(width, 1)
    }

    public func validate(_ observations: [OpeningObservation], catalog: BridgeCatalog, clock: LocalClock) async throws
        -> ObservationValidator.Outcome
    {
        let validator = ObservationValidator(catalog: catalog, clock: clock, now: now(),
                                             maximumDistanceMeters: maximumDistanceMeters)
        let rows = observations
        let chunk = max(1, (rows.count + width * 2 - 1) / (width * 2))
        let firstPass = await withTaskGroup(of: (Int, [Result<BridgeEventDTO, RejectionReason>]).self) { group in
            for start in stride(from: 0, to: rows.count, by: chunk) {
                group.addTask {
                    (start, validator.firstPass(rows[start..<min(start + chunk, rows.count)]))
                }
            }
            var parts: [(Int, [Result<BridgeEventDTO, RejectionReason>])] = []
            for await part in group { parts.append(part) }
            return parts.sorted { $0.0 < $1.0 }.flatMap(\.1)
        }
        // Duplicates, and rows whose instant depends on earlier ones, are judged in input order.
        return validator.validate(rows, firstPass: firstPass)
    }

    public func cleanupOldData(olderThan cutoff: Date) async throws -> Int {
        try await serial.cleanupOldData(olderThan: cutoff)
    }

    public func analyzeTrafficPatterns(bridgeID: String, in scope: HistoryScope) async throws -> TrafficAnalysisDTO {
        try await serial.analyzeTrafficPatterns(bridgeID: bridgeID, in: scope)
    }

    public func backtest(trainUntil: Int, testUntil: Int?, in scope: HistoryScope) async throws -> BacktestDTO {
        try await serial.backtest(trainUntil: trainUntil, testUntil: testUntil, in: scope)
    }

    public func findCascades(withinMinutes: Int, minimumCount: Int, in scope: HistoryScope) async throws -> [CascadeDTO] {
        try await serial.findCascades(withinMinutes: withinMinutes, minimumCount: minimumCount, in: scope)
    }

    public func findAnomalies() async throws -> [AnomalyDTO] {
        try await serial.findAnomalies()
    }

    public func generateStatistics(in scope: HistoryScope) async throws -> StatisticsDTO {
        let bridges = scope.filter(try await history.bridges())
        let tallies = try await talliesByBridge(bridges, scope: scope, occupancy: false)
        return OpeningStatistics.compute(bridges: bridges, tallies: tallies, generatedAt: now(), mergeGap: mergeGap)
    }

    public func tallies(in scope: HistoryScope) async throws -> Tallies {
        try await talliesByBridge(scope.filter(try await history.bridges()), scope: scope, occupancy: false)
    }

    public func buildOpeningModels() async throws -> [OpeningModelDTO] {
        let bridges = try await history.bridges()
        let tallies = try await talliesByBridge(bridges, scope: .everything, occupancy: true, rules: rules)
        let builtAt = now()
        return try await OwnThread.run { OpeningModelBuilder().buildAll(bridges: bridges, tallies: tallies, builtAt: builtAt) }
    }

    /// The tallies of `bridges` over the scope's time range: one read per bridge, at most `width` at once.
    private func talliesByBridge(_ bridges: [BridgeInfoDTO], scope: HistoryScope, occupancy: Bool,
                                 rules: RuleCalendar? = nil) async throws
        -> Tallies
    {
        let (history, gap) = (history, mergeGap)
        let scopes = bridges.map { HistoryScope(bridgeIDs: [$0.id], from: scope.from, before: scope.before) }
        return try await withThrowingTaskGroup(of: Tallies.self) { group in
            var next = 0
            func start() {
                guard next < scopes.count else { return }
                let part = scopes[next]
                next += 1
                group.addTask { try await history.tallies(part, mergeGap: gap, occupancy: occupancy, rules: rules) }
            }
            for _ in 0..<width { start() }
            var parts: [Tallies] = []
            while let part = try await group.next() {
                parts.append(part)
                start()
            }
            return Tallies.merged(parts)
        }
    }
}
