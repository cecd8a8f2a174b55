import BridgetDTOs
import BridgetPersistence
import Foundation
import Testing

// The promises about a source's records (NDW's announced and running openings): an id and a version, read again and
// again, a higher version replacing the stored one wherever its opening went.
extension StoreConformance {
    /// Status, record id and version round-trip, filter queries, and a change to any of them is an update.
    static func statusAndRecordRoundTrip(_ makeStore: () async throws -> any EventStore & BridgeCatalogStore) async throws {
        let store = try await makeStore()
        try await store.upsertBridges(BridgeCatalog.seattle.bridges)
        let planned = StoreFixture.record("ndw-1", version: 3, minute: 20)
        let observed = StoreFixture.event(minute: 10)
        #expect(try await store.upsertEvents([planned, observed]) == UpsertCounts(inserted: 2))
        #expect(try await store.allEvents() == [observed, planned])
        #expect(try await store.events(matching: EventQuery(status: .planned)) == [planned])
        #expect(try await store.events(matching: EventQuery(status: .observed)) == [observed])
        let running = StoreFixture.record("ndw-1", version: 3, minute: 20, status: .observed)
        #expect(try await store.upsertEvents([running, observed]) == UpsertCounts(updated: 1, unchanged: 1))
        #expect(try await store.allEvents() == [observed, running])
    }

    /// A higher version replaces the stored one even when its opening moved: one event, counted as one update.
    static func higherVersionReplacesEvenWhenMoved(
        _ makeStore: () async throws -> any EventStore & BridgeCatalogStore
    ) async throws {
        let store = try await makeStore()
        try await store.upsertBridges(BridgeCatalog.seattle.bridges)
        #expect(try await store.upsertEvents([StoreFixture.record("ndw-1", version: 1, minute: 10)])
                == UpsertCounts(inserted: 1))
        let before = try await store.historyVersion()
        let moved = StoreFixture.record("ndw-1", version: 2, minute: 25)
        #expect(try await store.upsertEvents([moved]) == UpsertCounts(updated: 1))
        #expect(try await store.allEvents() == [moved])
        #expect(try await store.historyVersion() > before)
        #expect(try await store.upsertEvents([moved]) == UpsertCounts(unchanged: 1))
        // Within one batch too, the later version wins and the record is stored once.
        let first = StoreFixture.record("ndw-2", version: 1, minute: 40)
        let second = StoreFixture.record("ndw-2", version: 2, minute: 50, minutes: 9)
        #expect(try await store.upsertEvents([first, second]) == UpsertCounts(inserted: 1, updated: 1))
        #expect(try await store.allEvents() == [moved, second])
        #expect(try await store.eventCount(bridgeID: nil) == 2)
    }

    /// A lower version, at its old opening or at the current one, changes nothing and is counted unchanged.
    static func lowerVersionDoesNotOverwrite(_ makeStore: () async throws -> any EventStore & BridgeCatalogStore) async throws {
        let store = try await makeStore()
        try await store.upsertBridges(BridgeCatalog.seattle.bridges)
        let current = StoreFixture.record("ndw-1", version: 2, minute: 25)
        _ = try await store.upsertEvents([current])
        let version = try await store.historyVersion()
        let stale = [StoreFixture.record("ndw-1", version: 1, minute: 10),
                     StoreFixture.record("ndw-1", version: 1, minute: 25, minutes: 9),
                     StoreFixture.record("ndw-1", version: nil, minute: 30)]
        #expect(try await store.upsertEvents(stale) == UpsertCounts(unchanged: 3))
        #expect(try await store.allEvents() == [current])
        #expect(try await store.historyVersion() == version)
    }

    /// An announced opening later seen under way (a higher version, observed, maybe at another minute) is one
    /// observed opening, and what models learn from.
    static func plannedBecomesOneObserved(_ makeStore: () async throws -> any EventStore & BridgeCatalogStore) async throws {
        let store = try await makeStore()
        try await store.upsertBridges(BridgeCatalog.seattle.bridges)
        _ = try await store.upsertEvents([StoreFixture.record("ndw-7", version: 1, minute: 30)])
        #expect(try await store.openingRecords().isEmpty)
        let underWay = StoreFixture.record("ndw-7", version: 2, minute: 33, status: .observed, minutes: nil)
        #expect(try await store.upsertEvents([underWay]) == UpsertCounts(updated: 1))
        #expect(try await store.allEvents() == [underWay])
        #expect(try await store.events(matching: EventQuery(status: .planned)).isEmpty)
        #expect(try await store.openingRecords() == [underWay].compactMap(OpeningRecordDTO.init))
    }

    /// `openingRecords()` holds observed openings only: planned ones are left out.
    static func openingRecordsLeaveOutPlanned(
        _ makeStore: () async throws -> any EventStore & BridgeCatalogStore
    ) async throws {
        let store = try await makeStore()
        try await store.upsertBridges(BridgeCatalog.seattle.bridges)
        let observed = [StoreFixture.event(minute: 0), StoreFixture.record("ndw-1", version: 1, minute: 20, status: .observed)]
        let planned = [StoreFixture.record("ndw-2", version: 1, minute: 10),
                       StoreFixture.record("ndw-3", version: 4, minute: 40)]
        _ = try await store.upsertEvents(planned + observed)
        #expect(try await store.openingRecords() == observed.compactMap(OpeningRecordDTO.init))
        #expect(try await store.eventCount(bridgeID: nil) == 4)
    }

    /// Events without a record id keep their key alone: a record's replacement removes none of them, and they are
    /// counted as before. One that overwrites a record's opening takes that opening out of the record, and a pruned
    /// record is gone: a later version of either finds nothing to replace.
    static func eventsWithoutRecordIDAreKeyedAlone(
        _ makeStore: () async throws -> any EventStore & BridgeCatalogStore
    ) async throws {
        let store = try await makeStore()
        try await store.upsertBridges(BridgeCatalog.seattle.bridges)
        let rows = (0..<4).map { StoreFixture.event(minute: $0 * 10) }
        let record = StoreFixture.record("ndw-1", version: 1, minute: 5)
        #expect(try await store.upsertEvents(rows + [record]) == UpsertCounts(inserted: 5))
        let moved = StoreFixture.record("ndw-1", version: 2, minute: 15)
        #expect(try await store.upsertEvents(rows + [moved]) == UpsertCounts(updated: 1, unchanged: 4))
        #expect(try await store.allEvents() == (rows + [moved]).sorted { $0.key < $1.key })

        let overwriting = StoreFixture.event(minute: 15)
        #expect(try await store.upsertEvents([overwriting]) == UpsertCounts(updated: 1))
        let later = StoreFixture.record("ndw-1", version: 3, minute: 45)
        #expect(try await store.upsertEvents([later]) == UpsertCounts(inserted: 1))
        #expect(try await store.allEvents() == (rows + [overwriting, later]).sorted { $0.key < $1.key })

        #expect(try await store.deleteEvents(openedBefore: later.openedAt.addingTimeInterval(60)) == 6)
        #expect(try await store.upsertEvents([StoreFixture.record("ndw-1", version: 1, minute: 50)])
                == UpsertCounts(inserted: 1))
    }
}
