import BridgetDTOs
import BridgetPersistence
import Foundation
import Testing

extension StoreConformance {
    /// Checks `EventStore`: idempotent counted upserts, exact round trips, key order and the keyset cursor, filters,
    /// lean records, deletion, the history's version, atomic batches, and record versions (see
    /// `StoreConformance+EventRecords.swift`). The checks save the Seattle catalog first
    /// (the events name its bridges) and expect a batch that names a bridge the catalog lacks to be refused whole.
    public static func checkEvents(makeStore: () async throws -> any EventStore & BridgeCatalogStore) async throws {
        try await upsertIsIdempotentAndCountsOutcomes(makeStore)
        try await eventsRoundTripExactly(makeStore)
        try await cursorWalksEveryEventOnce(makeStore)
        try await queriesFilterOrderAndLimit(makeStore)
        try await openingRecordsFollowTheEvents(makeStore)
        try await foldReadsPagesInOrder(makeStore)
        try await textsOfAnyLengthAreKept(makeStore)
        try await emptyStoreHasNoEvents(makeStore)
        try await deletionRemovesOlderEvents(makeStore)
        try await batchesAreAtomic(makeStore)
        try await statusAndRecordRoundTrip(makeStore)
        try await higherVersionReplacesEvenWhenMoved(makeStore)
        try await lowerVersionDoesNotOverwrite(makeStore)
        try await plannedBecomesOneObserved(makeStore)
        try await openingRecordsLeaveOutPlanned(makeStore)
        try await eventsWithoutRecordIDAreKeyedAlone(makeStore)
    }

    /// Inserted, updated and unchanged are counted on (bridge id, opening instant); only a change moves the version.
    static func upsertIsIdempotentAndCountsOutcomes(
        _ makeStore: () async throws -> any EventStore & BridgeCatalogStore
    ) async throws {
        let store = try await makeStore()
        try await store.upsertBridges(BridgeCatalog.seattle.bridges)
        let batch = (0..<10).map { StoreFixture.event(minute: $0 * 10) }
        #expect(try await store.upsertEvents(batch) == UpsertCounts(inserted: 10))
        #expect(try await store.upsertEvents(batch) == UpsertCounts(unchanged: 10))
        var changed = batch
        changed[3] = StoreFixture.event(minute: 30, minutes: 9)
        let beforeUpdate = try await store.historyVersion()
        #expect(try await store.upsertEvents(batch) == UpsertCounts(unchanged: 10))
        #expect(try await store.historyVersion() == beforeUpdate) // nothing changed, same version
        #expect(try await store.upsertEvents(changed) == UpsertCounts(updated: 1, unchanged: 9))
        #expect(try await store.historyVersion() > beforeUpdate)
        #expect(try await store.eventCount(bridgeID: nil) == 10)
        let stored = try await store.allEvents()
        #expect(stored == changed)
    }

    /// Events round-trip exactly, milliseconds and missing fields included.
    static func eventsRoundTripExactly(_ makeStore: () async throws -> any EventStore & BridgeCatalogStore) async throws {
        let store = try await makeStore()
        try await store.upsertBridges(BridgeCatalog.seattle.bridges)
        let open = BridgeEventDTO(
            bridgeID: "2", bridgeName: "Ballard", openedAt: Date(timeIntervalSince1970: 1_780_315_200.123),
            openLocal: "2026-06-01T05:00:00.123", closedAt: nil, closeLocal: nil, minutesOpen: nil,
            latitude: nil, longitude: nil)
        let events = [StoreFixture.event(minute: 1, milliseconds: 500), open]
        _ = try await store.upsertEvents(events)
        #expect(try await store.allEvents() == events.sorted { $0.key < $1.key })
    }

    /// A cursor (`EventQuery.after`) walks every event once, in order, both ways, including ties on the opening instant.
    static func cursorWalksEveryEventOnce(_ makeStore: () async throws -> any EventStore & BridgeCatalogStore) async throws {
        let store = try await makeStore()
        try await store.upsertBridges(BridgeCatalog.seattle.bridges)
        // Fremont and Ballard open at the same minutes: ties the cursor must break by bridge id.
        let events = (0..<9).map { StoreFixture.event(minute: $0 * 10) }
            + (0..<9).map { StoreFixture.event(StoreFixture.ballard, minute: $0 * 10) }
        _ = try await store.upsertEvents(events.shuffled())
        for newestFirst in [false, true] {
            var walked: [BridgeEventDTO] = []
            var cursor: EventKey?
            while true {
                let page = try await store.events(matching: EventQuery(limit: 4, newestFirst: newestFirst, after: cursor))
                guard let last = page.last else { break }
                walked += page
                cursor = last.key
                try #require(walked.count <= events.count, "the cursor does not move past \(last.key)")
            }
            #expect(walked == (try await store.events(matching: EventQuery(newestFirst: newestFirst))))
            #expect(walked.count == 18)
        }
    }

    /// Queries filter by bridge and time window, order oldest or newest first, and limit.
    static func queriesFilterOrderAndLimit(_ makeStore: () async throws -> any EventStore & BridgeCatalogStore) async throws {
        let store = try await makeStore()
        try await store.upsertBridges(BridgeCatalog.seattle.bridges)
        let events = (0..<6).map { StoreFixture.event(minute: $0 * 10) }
            + (0..<4).map { StoreFixture.event(StoreFixture.ballard, minute: $0 * 10 + 5) }
        _ = try await store.upsertEvents(events.shuffled())

        let all = try await store.allEvents()
        #expect(all.map(\.openedAt) == all.map(\.openedAt).sorted())
        #expect(try await store.events(matching: EventQuery(bridgeID: "2")).count == 4)
        let window = EventQuery(openedFrom: StoreFixture.event(minute: 10).openedAt,
                                openedBefore: StoreFixture.event(minute: 30).openedAt)
        #expect(try await store.events(matching: window).map(\.openLocal)
                == [10, 15, 20, 25].map { StoreFixture.event(minute: $0).openLocal })
        let newest = try await store.events(matching: EventQuery(limit: 2, newestFirst: true))
        #expect(newest.map(\.openedAt) == [StoreFixture.event(minute: 50).openedAt, StoreFixture.event(minute: 40).openedAt])
        #expect(try await store.eventCount(bridgeID: "3") == 6)
        #expect(try await store.latestOpening() == StoreFixture.event(minute: 50).openedAt)
    }

    /// Lean opening records match the stored events, by bridge then time.
    static func openingRecordsFollowTheEvents(
        _ makeStore: () async throws -> any EventStore & BridgeCatalogStore
    ) async throws {
        let store = try await makeStore()
        try await store.upsertBridges(BridgeCatalog.seattle.bridges)
        let events = [StoreFixture.event(minute: 9, milliseconds: 500),
                      StoreFixture.event(StoreFixture.ballard, minute: 20, minutes: nil), StoreFixture.event(minute: 3)]
        _ = try await store.upsertEvents(events)
        let records = try await store.openingRecords()
        #expect(records == [events[1], events[2], events[0]].compactMap(OpeningRecordDTO.init))
        #expect(records.first?.closedAt == nil && records.last?.openedAt == 1_780_315_740)
    }

    /// A fold sees every observed record once, in pages of at most `openingRecordPageSize`, ordered by bridge then
    /// opening across page boundaries; `bridgeIDs` keeps those bridges only; an error thrown by the update ends the
    /// read and comes back as it was thrown.
    static func foldReadsPagesInOrder(
        _ makeStore: () async throws -> any EventStore & BridgeCatalogStore
    ) async throws {
        struct Stop: Error, Equatable {}
        let store = try await makeStore()
        try await store.upsertBridges(BridgeCatalog.seattle.bridges)
        let count = openingRecordPageSize + 5
        // Two bridges, each opening every 10 minutes: more than one page in all.
        let fremont = (0..<(count / 2)).map { StoreFixture.event(minute: $0 * 10, minutes: 3) }
        let ballard = (0..<(count - count / 2)).map { StoreFixture.event(StoreFixture.ballard, minute: $0 * 10, minutes: 4) }
        _ = try await store.upsertEvents(fremont + ballard)
        let pages = try await store.foldOpeningRecords(bridgeIDs: nil, into: [Int]()) { sizes, page in
            sizes.append(page.count)
        }
        #expect(pages.reduce(0, +) == count && pages.allSatisfy { $0 > 0 && $0 <= openingRecordPageSize })
        let all = try await store.openingRecords()
        #expect(all == (fremont + ballard).compactMap(OpeningRecordDTO.init)
            .sorted { ($0.bridgeID, $0.openedAt) < ($1.bridgeID, $1.openedAt) })
        #expect(try await store.openingRecords(bridgeIDs: [StoreFixture.ballard.id])
            == all.filter { $0.bridgeID == StoreFixture.ballard.id })
        #expect(try await store.openingRecords(bridgeIDs: []).isEmpty)
        await #expect(throws: Stop()) {
            _ = try await store.foldOpeningRecords(bridgeIDs: nil, into: 0) { _, _ in throw Stop() }
        }
    }

    /// Texts of any length, empty ones included, are stored exactly, inserted and then updated.
    static func textsOfAnyLengthAreKept(_ makeStore: () async throws -> any EventStore & BridgeCatalogStore) async throws {
        // The SQLite store binds texts in place from one buffer reused row after row: rows far longer than the
        // buffer's first size make it move between rows, and '' must stay '' (not NULL).
        let store = try await makeStore()
        try await store.upsertBridges(BridgeCatalog.seattle.bridges)
        func event(_ minute: Int, name: String, closeLocal: String?) -> BridgeEventDTO {
            let base = StoreFixture.event(minute: minute)
            return BridgeEventDTO(bridgeID: base.bridgeID, bridgeName: name, openedAt: base.openedAt,
                                  openLocal: base.openLocal, closedAt: base.closedAt, closeLocal: closeLocal,
                                  minutesOpen: base.minutesOpen, latitude: base.latitude, longitude: base.longitude)
        }
        let long = String(repeating: "Fremont Avenue North ", count: 40) // 840 bytes
        let first = [event(1, name: "F", closeLocal: ""), event(2, name: long, closeLocal: nil),
                     event(3, name: "", closeLocal: long + "é"), event(4, name: "Fremont", closeLocal: "x")]
        #expect(try await store.upsertEvents(first) == UpsertCounts(inserted: 4))
        let second = [event(1, name: long, closeLocal: long), event(2, name: "", closeLocal: ""),
                      event(3, name: "", closeLocal: long + "é"), event(4, name: "F", closeLocal: nil)]
        #expect(try await store.upsertEvents(second) == UpsertCounts(updated: 3, unchanged: 1))
        let stored = try await store.allEvents()
        #expect(stored.map(\.bridgeName) == second.map(\.bridgeName))
        #expect(stored.map(\.closeLocal) == second.map(\.closeLocal))
        #expect(stored.map(\.openLocal) == second.map(\.openLocal))
    }

    /// A new store has no events and no watermark, and an empty batch does nothing.
    static func emptyStoreHasNoEvents(_ makeStore: () async throws -> any EventStore & BridgeCatalogStore) async throws {
        let store = try await makeStore()
        #expect(try await store.latestOpening() == nil)
        #expect(try await store.allEvents().isEmpty)
        #expect(try await store.upsertEvents([]) == UpsertCounts())
    }

    /// `deleteEvents(openedBefore:)` removes the older events, says how many, and moves the version.
    static func deletionRemovesOlderEvents(_ makeStore: () async throws -> any EventStore & BridgeCatalogStore) async throws {
        let store = try await makeStore()
        try await store.upsertBridges(BridgeCatalog.seattle.bridges)
        _ = try await store.upsertEvents((0..<5).map { StoreFixture.event(minute: $0) })
        let version = try await store.historyVersion()
        #expect(try await store.deleteEvents(openedBefore: StoreFixture.event(minute: 3).openedAt) == 3)
        #expect(try await store.historyVersion() > version)
        #expect(try await store.eventCount(bridgeID: nil) == 2)
    }

    /// A batch naming a bridge the catalog lacks is refused and changes nothing.
    static func batchesAreAtomic(_ makeStore: () async throws -> any EventStore & BridgeCatalogStore) async throws {
        let store = try await makeStore()
        try await store.upsertBridges([StoreFixture.fremont])
        let batch = [StoreFixture.event(minute: 1), StoreFixture.event(StoreFixture.ballard, minute: 2)]
        await #expect(throws: (any Error).self) { try await store.upsertEvents(batch) }
        #expect(try await store.eventCount(bridgeID: nil) == 0)
    }
}
