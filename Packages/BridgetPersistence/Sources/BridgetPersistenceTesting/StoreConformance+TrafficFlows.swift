import BridgetDTOs
import BridgetPersistence
import Foundation
import Testing

extension StoreConformance {
    /// Checks `TrafficFlowStore`: observations are upserted by (bridge, instant) and read back per bridge, oldest first.
    /// Saves the Seattle catalog first (an observation names its bridge).
    public static func checkTrafficFlows(
        makeStore: () async throws -> any TrafficFlowStore & BridgeCatalogStore
    ) async throws {
        let store = try await makeStore()
        try await store.upsertBridges(BridgeCatalog.seattle.bridges)
        let start = Date(timeIntervalSince1970: 1_780_315_200)
        let flows = (0..<3).map { TrafficFlowDTO(bridgeID: "3", timestamp: start.addingTimeInterval(Double($0) * 3600),
                                                congestionLevel: 0.25 * Double($0), trafficVolume: 1_000 + $0) }
        try await store.upsertTrafficFlows(flows.reversed())
        try await store.upsertTrafficFlows([TrafficFlowDTO(bridgeID: "3", timestamp: start, congestionLevel: 0.9,
                                                           trafficVolume: 3_000)])
        let stored = try await store.trafficFlows(bridgeID: "3")
        #expect(stored.count == 3 && stored.first?.congestionLevel == 0.9 && stored.last == flows[2])
        #expect(try await store.trafficFlows(bridgeID: "2").isEmpty)
    }
}
