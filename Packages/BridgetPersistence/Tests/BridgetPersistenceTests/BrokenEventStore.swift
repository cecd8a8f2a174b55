import BridgetDTOs
import BridgetPersistence
import Foundation

/// An event store that breaks one promise on purpose (or none), over the in-memory store: what the conformance suite
/// must reject.
struct BrokenEventStore: EventStore, BridgeCatalogStore {
    /// The promise broken.
    enum Breach: String, CaseIterable, Sendable, CustomStringConvertible {
        /// Upserts count each inserted event twice.
        case countsInsertsTwice
        /// Queries ignore `EventQuery.after`, so a cursor never moves.
        case ignoresTheCursor
        /// `historyVersion()` stays 0 whatever changes.
        case neverVersionsTheHistory
        /// A batch is written row by row, so a failing row keeps the rows before it.
        case writesRowByRow
        /// `foldOpeningRecords` holds planned openings too, so models would learn from announcements.
        case learnsFromPlannedOpenings

        var description: String { rawValue }
    }

    let breach: Breach?
    private let store: any BridgeStore = InMemoryBridgeStore()

    init(breaking breach: Breach?) { self.breach = breach }

    func upsertBridges(_ bridges: [BridgeInfoDTO]) async throws { try await store.upsertBridges(bridges) }

    func bridges() async throws -> [BridgeInfoDTO] { try await store.bridges() }

    func upsertEvents(_ events: [BridgeEventDTO]) async throws -> UpsertCounts {
        switch breach {
        case .countsInsertsTwice:
            var counts = try await store.upsertEvents(events)
            counts.inserted *= 2
            return counts
        case .writesRowByRow:
            var counts = UpsertCounts()
            for event in events { counts = counts + (try await store.upsertEvents([event])) }
            return counts
        case .ignoresTheCursor, .neverVersionsTheHistory, .learnsFromPlannedOpenings, nil:
            return try await store.upsertEvents(events)
        }
    }

    func events(matching query: EventQuery) async throws -> [BridgeEventDTO] {
        var query = query
        if breach == .ignoresTheCursor { query.after = nil }
        return try await store.events(matching: query)
    }

    func eventCount(bridgeID: String?) async throws -> Int { try await store.eventCount(bridgeID: bridgeID) }

    func latestOpening() async throws -> Date? { try await store.latestOpening() }

    func deleteEvents(openedBefore cutoff: Date) async throws -> Int { try await store.deleteEvents(openedBefore: cutoff) }

    func foldOpeningRecords<State: Sendable>(
        bridgeIDs: [String]?, into initial: State,
        _ update: @escaping @Sendable (inout State, [OpeningRecordDTO]) throws -> Void
    ) async throws -> State {
        guard breach == .learnsFromPlannedOpenings else {
            return try await store.foldOpeningRecords(bridgeIDs: bridgeIDs, into: initial, update)
        }
        var state = initial
        try update(&state, try await store.allEvents().sorted { ($0.bridgeID, $0.openedAt) < ($1.bridgeID, $1.openedAt) }
            .compactMap(OpeningRecordDTO.init))
        return state
    }

    func historyVersion() async throws -> Int64 {
        breach == .neverVersionsTheHistory ? 0 : try await store.historyVersion()
    }
}
