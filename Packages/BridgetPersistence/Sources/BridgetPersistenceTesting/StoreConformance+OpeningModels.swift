import BridgetDTOs
import BridgetPersistence
import Foundation
import Testing

extension StoreConformance {
    /// Checks `OpeningModelStore`: a model round-trips exactly (every slot, month factor and follower), and a save replaces every
    /// stored model. Saves the Seattle catalog first (a model names its bridge).
    public static func checkOpeningModels(
        makeStore: () async throws -> any OpeningModelStore & BridgeCatalogStore
    ) async throws {
        let store = try await makeStore()
        try await store.upsertBridges(BridgeCatalog.seattle.bridges)
        let slots = (0..<OpeningModelDTO.slotsPerWeek).map {
            OpeningSlotDTO(starts: $0 % 3, occurrences: 52, startProbability: Double($0) / 1_000,
                           openProbability: 0.01, meanRemainingMinutes: 3.5)
        }
        let model = OpeningModelDTO(
            bridgeID: "3", builtAt: Date(timeIntervalSince1970: 1_790_000_000), firstDay: "2025-11-22",
            lastDay: "2026-11-21", openings: 3_300, sourceEvents: 14_000,
            sourceLatestOpening: Date(timeIntervalSince1970: 1_789_000_000), baseStartProbability: 0.09,
            baseOpenProbability: 0.02, slots: slots, monthFactors: (1...12).map { 0.5 + Double($0) / 10 }, sourceVersion: 7,
            dynamics: OpeningDynamicsDTO(
                followers: [FollowDTO(fromBridgeID: "2", maxLagMinutes: 4, sourceOpenings: 900, followed: 700,
                                      expectedByChance: 300.5, chanceSpread: 12.5, share: 0.73,
                                      originShares: ["": 0.7, "21": 0.8], lagWeights: [0.125, 0.5, 0.25, 0.125])],
                broughtShare: 0.2, backgroundShares: (0..<48).map { Double($0 % 10) / 10 },
                durationCounts: [0, 3, 10, 7], holidaysAsSundays: true, falseLinkRate: 0.001))
        #expect(try await store.openingModel(bridgeID: "3") == nil)
        try await store.saveOpeningModels([model])
        #expect(try await store.openingModel(bridgeID: "3") == model)
        try await store.saveOpeningModels([])
        #expect(try await store.openingModel(bridgeID: "3") == nil)
    }
}
