import BridgetDTOs
import BridgetPersistence
import Foundation
import Testing

extension StoreConformance {
    /// Checks `SourceIdentityStore`: the first claim of an empty store records its identity; the same identity is
    /// `same` after it and another is refused with what is recorded, changing nothing; a store that holds openings
    /// and no identity adopts the first claimed; claims racing on a new store record exactly one identity.
    public static func checkSource(makeStore: () async throws -> any BridgeStore) async throws {
        let at = Date(timeIntervalSince1970: 1_790_000_000)
        let seattle = SourceIdentity(kind: "socrata", name: "dataset gm8h-9449 at https://data.seattle.gov")
        let sample = SourceIdentity(kind: "sample", name: "seed 42, rate scale 1")

        let store = try await makeStore()
        #expect(try await store.recordedSource() == nil)
        #expect(try await store.claimSource(sample, at: at) == .recorded)
        #expect(try await store.claimSource(sample, at: at.addingTimeInterval(60)) == .same)
        let recorded = RecordedSource(identity: sample, recordedAt: at)
        #expect(try await store.claimSource(seattle, at: at.addingTimeInterval(120)) == .other(recorded))
        #expect(try await store.recordedSource() == recorded)

        let older = try await makeStore()
        try await older.upsertBridges([StoreFixture.fremont])
        _ = try await older.upsertEvents([StoreFixture.event(minute: 0)])
        #expect(try await older.claimSource(seattle, at: at) == .adopted)
        #expect(try await older.claimSource(sample, at: at) == .other(RecordedSource(identity: seattle, recordedAt: at)))

        let raced = try await makeStore()
        let claims = try await withThrowingTaskGroup(of: SourceClaim.self) { group in
            for index in 0..<8 {
                let identity = index.isMultiple(of: 2) ? sample : seattle
                group.addTask { try await raced.claimSource(identity, at: at) }
            }
            return try await group.reduce(into: [SourceClaim]()) { $0.append($1) }
        }
        let winner = try #require(try await raced.recordedSource()).identity
        #expect(claims.filter { $0 == .recorded }.count == 1)
        #expect(claims.filter { $0 == .same }.count == 3)
        #expect(claims.filter { if case .other(let kept) = $0 { kept.identity == winner } else { false } }.count == 4)
    }
}
