import BridgetDTOs
import Foundation

/// The history a processor analyses. Analysis does not depend on a store package: the composition root adapts
/// whatever store it built to this port.
public protocol EventHistory: Sendable {
    /// The bridges known to the history, by numeric id.
    func bridges() async throws -> [BridgeInfoDTO]
    /// Stored events, oldest first, optionally for one bridge.
    func events(bridgeID: String?) async throws -> [BridgeEventDTO]
    /// Removes events that opened before an instant; returns how many.
    func deleteEvents(openedBefore cutoff: Date) async throws -> Int
    /// Every event in lean form, ordered by bridge then opening: what whole-history analysis reads.
    func openingRecords() async throws -> [OpeningRecordDTO]
    /// Road traffic observations near a bridge, oldest first (empty when none are known).
    func trafficFlows(bridgeID: String) async throws -> [TrafficFlowDTO]
}

/// The boundary to CPU-side work: turning raw batches into events, and history into statistics and patterns.
///
/// An implementation must guarantee: `processSyncData` judges rows with `EventValidator` (the shared rule book) and
/// returns every input row either as an event or as a counted rejection; results do not depend on how work is
/// scheduled (a serial and a parallel implementation give equal answers for equal input).
public protocol BackgroundProcessing: Sendable {
    /// The processor's configuration name, e.g. "serial".
    var name: String { get }
    /// Validates a batch's `rows` against its `bridges`, filling `events` and `rejections`.
    func processSyncData(_ batch: SyncDataDTO) async throws -> SyncDataDTO
    /// Removes history older than a date; returns the number of events removed.
    func cleanupOldData(olderThan cutoff: Date) async throws -> Int
    /// A bridge's opening profile.
    func analyzeTrafficPatterns(bridgeID: String) async throws -> TrafficAnalysisDTO
    /// Statistics for every bridge of the history.
    func generateStatistics() async throws -> StatisticsDTO
    /// The opening model of every bridge of the history.
    func buildOpeningModels() async throws -> [OpeningModelDTO]
    /// Models fitted before `trainUntil`, scored on `trainUntil ..< testUntil` (Seattle day numbers; `nil`: the day
    /// after the history's last).
    func backtest(trainUntil: Int, testUntil: Int?) async throws -> BacktestDTO
    /// Bridge pairs whose openings follow each other within `withinMinutes` more often than chance.
    func findCascades(withinMinutes: Int, minimumCount: Int) async throws -> [CascadeDTO]
    /// Openings longer than their bridge's p99, or at times the model deems near-impossible.
    func findAnomalies() async throws -> [AnomalyDTO]
}

extension SyncDataDTO {
    /// The batch with a validation outcome's events and rejections.
    func applying(_ outcome: EventValidator.Outcome) -> SyncDataDTO {
        var processed = self
        processed.events = outcome.events
        processed.rejections = outcome.rejected
        return processed
    }
}

extension EventHistory {
    /// Lean records from `events(bridgeID: nil)`, for histories without a cheaper way.
    public func recordsFromEvents() async throws -> [OpeningRecordDTO] {
        try await events(bridgeID: nil).compactMap(OpeningRecordDTO.init)
            .sorted { ($0.bridgeID, $0.openedAt) < ($1.bridgeID, $1.openedAt) }
    }
}
