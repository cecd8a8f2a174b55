import BridgetDTOs
import BridgetPersistence
import Foundation
import Testing

// The live state's promises (`LiveStateStore`) and the events' promises about openings seen live.
extension StoreConformance {
    /// Checks `LiveStateStore` and live openings against a whole store: a live opening and its window round-trip,
    /// closing it logs `closed`; a published row replaces the live openings it matches (and only those), logged
    /// `replaced`, counted once; a live opening matching a stored published one is left; models read one opening;
    /// the lease goes to one holder, is taken over when it runs out, and fences the old holder's writes once another
/// has claimed it.
    public static func checkLiveState(makeStore: () async throws -> any BridgeStore) async throws {
        let store = try await makeStore()
        try await store.upsertBridges(BridgeCatalog.seattle.bridges)
        #expect(try await store.liveFeedState() == nil)

        // The lease: one holder; another waits until it runs out; the old one cannot write after.
        let t0 = StoreFixture.event(minute: 0).openedAt
        let first = try await store.claimLiveFeed(holder: "a", now: t0, until: t0.addingTimeInterval(60))
        #expect(first.holder == "a")
        let refused = try await store.claimLiveFeed(holder: "b", now: t0.addingTimeInterval(30),
                                                    until: t0.addingTimeInterval(90))
        #expect(refused.holder == "a", "a lease still running is not taken")
        let renewed = try await store.claimLiveFeed(holder: "a", now: t0.addingTimeInterval(40),
                                                    until: t0.addingTimeInterval(100))
        #expect(renewed.holder == "a" && abs(renewed.until.timeIntervalSince(t0.addingTimeInterval(100))) < 0.01)

        // A live opening under way, then closed; the state saved with it.
        let open = StoreFixture.live(minute: 0, minutes: nil)
        var state = LiveFeedState(source: "http://feed", lastPollAt: open.openedAt, lastGoodPollAt: open.openedAt,
                                  bridges: ["3": .init(position: .raised, since: open.openedAt, lastSeenAt: open.openedAt,
                                                       openingAt: open.openedAt)])
        let logged = try await store.changeLogBounds().newest
        let opened = try await store.saveLiveFeed(state, events: [open], holder: "a", now: t0.addingTimeInterval(41))
        #expect(opened.inserted == 1)
        #expect(try await store.liveFeedState() == state)
        let closed = StoreFixture.live(minute: 0, minutes: 4)
        state.bridges["3"]?.position = .lowered
        _ = try await store.saveLiveFeed(state, events: [closed], holder: "a", now: t0.addingTimeInterval(42))
        let stored = try await store.events(matching: EventQuery(status: .live))
        #expect(stored == [closed], "a live opening and its window round-trip")
        #expect(try await store.changes(after: logged, bridgeIDs: nil, limit: 10).compactMap(\.opening?.kind) == [.new, .closed])
        #expect(try await store.events(matching: EventQuery(happened: true)) == [closed])

        // A lease that ran out during a slow poll, claimed by no one, is still its holder's to write with.
        _ = try await store.saveLiveFeed(state, events: [], holder: "a", now: t0.addingTimeInterval(100.5))
        // Taken over after the lease ran out; the old holder's write is refused and writes nothing.
        let taken = try await store.claimLiveFeed(holder: "b", now: t0.addingTimeInterval(101),
                                                  until: t0.addingTimeInterval(160))
        #expect(taken.holder == "b")
        let late = StoreFixture.live(StoreFixture.ballard, minute: 30, minutes: nil)
        await #expect(throws: StoreError.self) {
            _ = try await store.saveLiveFeed(LiveFeedState(source: "x"), events: [late], holder: "a",
                                             now: t0.addingTimeInterval(102))
        }
        #expect(try await store.liveFeedState() == state, "a refused write leaves the state")
        #expect(try await store.events(matching: EventQuery(bridgeID: StoreFixture.ballard.id)).isEmpty)
        try await store.releaseLiveFeed(holder: "b")
        #expect(try await store.claimLiveFeed(holder: "c", now: t0.addingTimeInterval(103),
                                              until: t0.addingTimeInterval(163)).holder == "c",
                "a released lease is claimed at once")

        // The published row replaces the live opening: one opening, logged replaced, counted as updated.
        let beforePublished = try await store.changeLogBounds().newest
        let versionBefore = try await store.historyVersion()
        let published = StoreFixture.event(minute: 0, minutes: 4)
        let unrelated = StoreFixture.event(minute: 90, minutes: 5)
        let counts = try await store.upsertEvents([published, unrelated])
        #expect(counts == UpsertCounts(inserted: 1, updated: 1, unchanged: 0))
        #expect(try await store.events(matching: EventQuery()) == [published, unrelated])
        #expect(try await store.changes(after: beforePublished, bridgeIDs: nil, limit: 10).compactMap(\.opening?.kind) == [.replaced, .new])
        #expect(try await store.historyVersion() != versionBefore)
        #expect(try await store.openingRecords().count == 2, "a model reads one opening, not two")

        // A live opening its published record already matches is left; one near no published row is kept, and a
        // published row far from it does not take it.
        let lateLive = StoreFixture.live(minute: 1, minutes: 3)
        let alone = StoreFixture.live(minute: 200, minutes: 4)
        let leftCounts = try await store.upsertEvents([lateLive, alone])
        #expect(leftCounts == UpsertCounts(inserted: 1, updated: 0, unchanged: 1))
        let farPublished = StoreFixture.event(minute: 220, minutes: 5)
        #expect(try await store.upsertEvents([farPublished]) == UpsertCounts(inserted: 1))
        #expect(try await store.events(matching: EventQuery(status: .live)) == [alone])
        // Within the slack of a few minutes, on the same bridge: replaced; another bridge's row is not.
        let otherBridge = StoreFixture.event(StoreFixture.ballard, minute: 202, minutes: 4)
        #expect(try await store.upsertEvents([otherBridge]) == UpsertCounts(inserted: 1))
        let near = StoreFixture.event(minute: 203, minutes: 4)
        #expect(try await store.upsertEvents([near]) == UpsertCounts(updated: 1))
        #expect(try await store.events(matching: EventQuery(status: .live)).isEmpty)
    }
}
