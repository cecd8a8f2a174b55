import BridgetDTOs
import Foundation

/// The history a processor analyses. Analysis does not depend on a store package: the composition root adapts
/// whatever store it built to this port.
public protocol EventHistory: Sendable {
    /// The bridges known to the history, by numeric id.
    func bridges() async throws -> [BridgeInfoDTO]
    /// Removes events that opened before an instant; returns how many.
    func deleteEvents(openedBefore cutoff: Date) async throws -> Int
    /// Folds every observed opening in lean form into `initial`, page by page, ordered by bridge then opening within
    /// each bridge: what analysis reads, keeping only what its answer needs, so its memory does not grow with the
    /// history. `bridgeIDs` limits the read to those bridges (`nil`: every bridge). `update` sees each page once and
    /// must not keep it; an error it throws ends the read and is rethrown. A history held in memory can answer with
    /// `fold(_:bridgeIDs:into:_:)`.
    func foldOpeningRecords<State: Sendable>(
        bridgeIDs: [String]?, into initial: State,
        _ update: @escaping @Sendable (inout State, [OpeningRecordDTO]) throws -> Void
    ) async throws -> State
    /// Road traffic observations near a bridge, oldest first (empty when none are known).
    func trafficFlows(bridgeID: String) async throws -> [TrafficFlowDTO]
}

/// Judging records: every provider's and every import's observations go through one rule book
/// (`ObservationValidator`).
///
/// An implementation must guarantee: every observation comes back as an event or as a counted rejection with its
/// index, and the outcome does not depend on how the work is scheduled.
public protocol ObservationValidating: Sendable {
    /// Judges a batch against `catalog`, reading local times with `clock` (the source's zone).
    func validate(_ observations: [OpeningObservation], catalog: BridgeCatalog, clock: LocalClock) async throws
        -> ObservationValidator.Outcome
}

/// Answers about the history: statistics, models, backtests, patterns.
///
/// An implementation must guarantee: answers depend only on the history, not on how the work is scheduled (a serial
/// and a parallel implementation give equal answers).
public protocol HistoryAnalysing: Sendable {
    /// A bridge's opening profile.
    func analyzeTrafficPatterns(bridgeID: String, in scope: HistoryScope) async throws -> TrafficAnalysisDTO
    /// Statistics for every bridge of the scope, from its openings only.
    func generateStatistics(in scope: HistoryScope) async throws -> StatisticsDTO
    /// What statistics are computed from: each bridge's tally over the scope (without occupancy), for answers that
    /// need more than the statistics say (a histogram of durations) without reading the openings.
    func tallies(in scope: HistoryScope) async throws -> Tallies
    /// The opening model of every bridge of the history, learnt from observed openings only.
    func buildOpeningModels() async throws -> [OpeningModelDTO]
    /// Models fitted before `trainUntil`, scored on `trainUntil ..< testUntil` (the source's local day numbers; `nil`: the day
    /// after the history's last).
    ///
    /// With a scope, only its bridges are scored, and only its openings (from `from`, before `before`) are seen.
    func backtest(trainUntil: Int, testUntil: Int?, in scope: HistoryScope) async throws -> BacktestDTO
    /// Pairs of the scope's bridges whose openings in the scope follow each other within `withinMinutes` more often
    /// than chance.
    func findCascades(withinMinutes: Int, minimumCount: Int, in scope: HistoryScope) async throws -> [CascadeDTO]
    /// Openings longer than their bridge's p99, or at times the model deems near-impossible.
    func findAnomalies() async throws -> [AnomalyDTO]
}

extension HistoryAnalysing {
    /// A backtest over the whole history.
    public func backtest(trainUntil: Int, testUntil: Int?) async throws -> BacktestDTO {
        try await backtest(trainUntil: trainUntil, testUntil: testUntil, in: .everything)
    }

    /// A bridge's opening profile over the whole history.
    public func analyzeTrafficPatterns(bridgeID: String) async throws -> TrafficAnalysisDTO {
        try await analyzeTrafficPatterns(bridgeID: bridgeID, in: .everything)
    }

    /// Statistics for every bridge of the whole history.
    public func generateStatistics() async throws -> StatisticsDTO { try await generateStatistics(in: .everything) }

    /// Cascades over the whole history.
    public func findCascades(withinMinutes: Int, minimumCount: Int) async throws -> [CascadeDTO] {
        try await findCascades(withinMinutes: withinMinutes, minimumCount: minimumCount, in: .everything)
    }
}

/// Keeping the history within bounds.
public protocol HistoryMaintaining: Sendable {
    /// Removes history older than a date; returns the number of events removed.
    func cleanupOldData(olderThan cutoff: Date) async throws -> Int
}

/// The boundary to CPU-side work, as the composition root configures it (`processor.kind`): judging records,
/// answering about the history, and pruning it. Code that needs one of these asks for that protocol alone.
public protocol BackgroundProcessing: ObservationValidating, HistoryAnalysing, HistoryMaintaining {
    /// The processor's configuration name, e.g. "serial".
    var name: String { get }
}

extension EventHistory {
    /// A fold over records held in memory (any order), as a store would stream them: for histories without a store.
    public func fold<State: Sendable>(
        _ records: [OpeningRecordDTO], bridgeIDs: [String]?, into initial: State,
        _ update: @escaping @Sendable (inout State, [OpeningRecordDTO]) throws -> Void
    ) throws -> State {
        let wanted = bridgeIDs.map(Set.init)
        var state = initial
        try update(&state, OpeningRecordDTO.inHistoryOrder(records.filter { wanted?.contains($0.bridgeID) ?? true }))
        return state
    }

    /// Every observed opening in lean form, held at once (for tests and small histories; analysis folds them).
    public func openingRecords(bridgeIDs: [String]? = nil) async throws -> [OpeningRecordDTO] {
        try await foldOpeningRecords(bridgeIDs: bridgeIDs, into: [OpeningRecordDTO]()) { $0.append(contentsOf: $1) }
    }
}
