import BridgetAnalysis
import BridgetDTOs
import Foundation

/// The history the processor analyses, in memory: BridgetAnalysis reads history through its `EventHistory` port, so
/// an app without a store implements the port over an array.
actor ArrayHistory: EventHistory {
    private let catalog: [BridgeInfoDTO]
    private var stored: [BridgeEventDTO] = []

    /// A history of these bridges, with no events yet.
    init(bridges: [BridgeInfoDTO]) {
        catalog = bridges
    }

    /// Adds accepted events.
    func append(_ events: [BridgeEventDTO]) {
        stored += events
    }

    /// How many events are kept.
    var count: Int { stored.count }

    func bridges() -> [BridgeInfoDTO] { catalog }

    func deleteEvents(openedBefore cutoff: Date) -> Int {
        let before = stored.count
        stored.removeAll { $0.openedAt < cutoff }
        return before - stored.count
    }

    func foldOpeningRecords<State: Sendable>(
        bridgeIDs: [String]?, into initial: State,
        _ update: @escaping @Sendable (inout State, [OpeningRecordDTO]) throws -> Void
    ) throws -> State {
        try fold(stored.compactMap(OpeningRecordDTO.init), bridgeIDs: bridgeIDs, into: initial, update)
    }

    func trafficFlows(bridgeID: String) -> [TrafficFlowDTO] { [] }
}
