import Foundation

/// One batch of a sync as it moves from a provider, through processing, to the store.
///
/// A provider fills `rows` (raw Socrata rows); processing turns them into `events` and `rejections`.
public struct SyncDataDTO: Sendable, Codable, Equatable {
    /// The bridge catalog the rows are judged against.
    public var bridges: [BridgeInfoDTO]
    /// Raw rows as received.
    public var rows: [SocrataRow]
    /// Validated events.
    public var events: [BridgeEventDTO]
    /// Rejected rows with reasons.
    public var rejections: [RejectedRow]
    /// Traffic observations carried by the batch, if any.
    public var trafficFlows: [TrafficFlowDTO]
    /// When the batch was fetched.
    public var syncTimestamp: Date
    /// The provider that produced it (e.g. "sample").
    public var source: String

    /// Creates a batch.
    public init(
        bridges: [BridgeInfoDTO] = [], rows: [SocrataRow] = [], events: [BridgeEventDTO] = [],
        rejections: [RejectedRow] = [], trafficFlows: [TrafficFlowDTO] = [],
        syncTimestamp: Date, source: String
    ) {
        self.bridges = bridges
        self.rows = rows
        self.events = events
        self.rejections = rejections
        self.trafficFlows = trafficFlows
        self.syncTimestamp = syncTimestamp
        self.source = source
    }

    /// Rejections counted by reason.
    public var rejectionCounts: RejectionCounts {
        var counts = RejectionCounts()
        for rejection in rejections { counts.record(rejection.reason) }
        return counts
    }
}
