import BridgetDTOs
import Foundation

/// The `parallel` processor: the serial processor's answers, with the work spread over a task group.
///
/// Rows are validated in chunks concurrently, then duplicates are judged in input order exactly as the serial
/// processor does (rows whose reading may fall in the autumn repeated hour are judged again in order, because their
/// instant can depend on earlier rows). Statistics and models are computed per bridge concurrently and assembled in
/// catalog order. A test proves both processors give equal results on the same data.
public struct ParallelProcessor: BackgroundProcessing {
    public let name = "parallel"
    private let serial: SerialProcessor
    private let history: any EventHistory
    private let now: @Sendable () -> Date
    private let maximumDistanceMeters: Double
    private let mergeGap: TimeInterval
    /// Concurrent tasks to use.
    public let width: Int

    /// Creates a processor; `width` defaults to the machine's active cores.
    public init(
        history: any EventHistory, maximumDistanceMeters: Double = 1_000, mergeGap: TimeInterval = 120,
        width: Int = ProcessInfo.processInfo.activeProcessorCount, now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.serial = SerialProcessor(history: history, maximumDistanceMeters: maximumDistanceMeters,
                                      mergeGap: mergeGap, now: now)
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
        let records = scope.filter(try await history.openingRecords())
        let span = HistorySpan(records: records)
        let gap = mergeGap
        let perBridge = await perBridgeConcurrently(bridges: bridges, records: records) { bridge, rows in
            OpeningStatistics.statistics(for: bridge, openings: MergedOpening.merge(records: rows, gap: gap),
                                         rows: rows.count, span: span)
        }
        return OpeningStatistics.assemble(perBridge, span: span, generatedAt: now(), totalRows: records.count,
                                          mergeGap: mergeGap)
    }

    public func buildOpeningModels() async throws -> [OpeningModelDTO] {
        let bridges = try await history.bridges()
        let records = try await history.openingRecords()
        let span = HistorySpan(records: records)
        let latest = records.map(\.openedAt).max().map { Date(timeIntervalSince1970: Double($0)) }
        let (gap, builtAt, total) = (mergeGap, now(), records.count)
        return await perBridgeConcurrently(bridges: bridges, records: records) { bridge, rows in
            OpeningModelBuilder().build(bridgeID: bridge.id, openings: MergedOpening.merge(records: rows, gap: gap),
                                        span: span, builtAt: builtAt, sourceEvents: total, sourceLatestOpening: latest)
        }
    }

    /// Runs `work` for each bridge on its own events concurrently; results in the order of `bridges`.
    private func perBridgeConcurrently<T: Sendable>(
        bridges: [BridgeInfoDTO], records: [OpeningRecordDTO],
        _ work: @escaping @Sendable (BridgeInfoDTO, [OpeningRecordDTO]) -> T
    ) async -> [T] {
        var byBridge: [String: [OpeningRecordDTO]] = [:]
        for record in records { byBridge[record.bridgeID, default: []].append(record) }
        return await withTaskGroup(of: (Int, T).self) { group in
            for (index, bridge) in bridges.enumerated() {
                let rows = byBridge[bridge.id] ?? []
                group.addTask { (index, work(bridge, rows)) }
            }
            var results: [(Int, T)] = []
            for await result in group { results.append(result) }
            return results.sorted { $0.0 < $1.0 }.map(\.1)
        }
    }
}
