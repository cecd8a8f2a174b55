import BridgetDTOs
import Foundation

/// A history held in memory: `EventHistory`'s simplest honest implementation, for a tool that has its events at hand
/// and for tests. Only observed openings are folded (`OpeningRecordDTO`), as a store folds them.
public actor InMemoryHistory: EventHistory {
    private var stored: [BridgeEventDTO]
    private let known: [BridgeInfoDTO]

    /// A history of `events` over `bridges` (Seattle's catalog unless given).
    public init(_ events: [BridgeEventDTO], bridges: [BridgeInfoDTO] = BridgeCatalog.seattle.bridges) {
        stored = events
        known = bridges
    }

    public func bridges() -> [BridgeInfoDTO] { known }

    /// The events held, of one bridge or of all, in key order.
    public func events(bridgeID: String?) -> [BridgeEventDTO] {
        stored.filter { bridgeID == nil || $0.bridgeID == bridgeID }.sorted { $0.key < $1.key }
    }

    public func trafficFlows(bridgeID: String) -> [TrafficFlowDTO] { [] }

    public func foldOpeningRecords<State: Sendable>(
        bridgeIDs: [String]?, into initial: State,
        _ update: @escaping @Sendable (inout State, [OpeningRecordDTO]) throws -> Void
    ) throws -> State {
        try fold(stored.compactMap(OpeningRecordDTO.init), bridgeIDs: bridgeIDs, into: initial, update)
    }

    public func deleteEvents(openedBefore cutoff: Date) -> Int {
        let before = stored.count
        stored.removeAll { $0.openedAt < cutoff }
        return before - stored.count
    }
}
