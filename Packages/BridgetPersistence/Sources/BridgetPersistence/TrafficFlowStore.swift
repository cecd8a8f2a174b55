import BridgetDTOs

/// Where hourly traffic observations at the bridges are kept.
///
/// An implementation must guarantee: `upsertTrafficFlows` inserts or replaces observations by (bridge id, instant),
/// in one transaction; `trafficFlows(bridgeID:)` returns that bridge's observations, once each, oldest first.
public protocol TrafficFlowStore: Sendable {
    /// Inserts or replaces traffic observations by (bridge, instant), in one transaction.
    func upsertTrafficFlows(_ flows: [TrafficFlowDTO]) async throws
    /// A bridge's traffic observations, oldest first.
    func trafficFlows(bridgeID: String) async throws -> [TrafficFlowDTO]
}
