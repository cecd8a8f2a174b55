import BridgetDTOs
import BridgetPersistence
import Foundation
import Testing

// The change log's promises (`ChangeLogStore`).
extension StoreConformance {
    /// Checks `ChangeLogStore` against a whole store: one change per changed opening, of the right kind, numbered
    /// in order, in the write's transaction; none for an unchanged one or a refused batch; withdrawals; pruning
    /// that keeps the newest; a commit waking the readers (`changeWakeups()`).
    public static func checkChangeLog(makeStore: () async throws -> any BridgeStore) async throws {
        let store = try await makeStore()
        #expect(try await store.changeLogBounds() == ChangeLogBounds(oldest: nil, newest: 0))
        #expect(try await store.changes(after: 0, bridgeIDs: nil, limit: 10).isEmpty)
        try await store.upsertBridges(BridgeCatalog.seattle.bridges)

        // New, announced, and nothing for what is stored as it is.
        let observed = StoreFixture.event(minute: 0)
        let open = StoreFixture.event(StoreFixture.ballard, minute: 5, minutes: nil)
        let planned = StoreFixture.record("ndw-1", version: 1, minute: 60)
        _ = try await store.upsertEvents([observed, open, planned])
        let first = try await openingChanges(store, after: 0, limit: 10)
        #expect(first.map(\.kind) == [.new, .new, .announced])
        #expect(first.map(\.key) == [observed.key, open.key, planned.key])
        #expect(first.map(\.sequence) == first.map(\.sequence).sorted() && Set(first.map(\.sequence)).count == 3)
        #expect(first[2].status == .planned && first[2].recordID == "ndw-1" && first[2].recordVersion == 1)
        let afterFirst = try await store.changeLogBounds().newest
        #expect(afterFirst == first.last?.sequence)
        _ = try await store.upsertEvents([observed, planned])
        #expect(try await openingChanges(store, after: afterFirst).map(\.kind).isEmpty,
                "an unchanged event logs nothing")

        try await checkEachKindOnce(store, after: afterFirst)
        let all = try await checkPaging(store)
        try await checkRefusedBatch(store, like: observed)
        try await checkWithdrawals(store)
        try await checkPruning(store, oldest: all.first?.sequence)
        try await checkWakeups(store)
    }

    /// Wake-ups: a stream that says it listens (its first wake-up) is woken again by a write committed after that.
    /// A store whose stream ends without one has none (its readers poll).
    private static func checkWakeups(_ store: any BridgeStore) async throws {
        let heard = WakeupCounter(store.changeWakeups())
        defer { heard.stop() }
        guard await heard.listens() else {
            #expect(heard.ended, "the wake-ups neither listen nor end")
            return
        }
        let quiet = await heard.quietCount()
        _ = try await store.upsertEvents([StoreFixture.event(StoreFixture.ballard, minute: 900, minutes: 4)])
        #expect(await heard.grows(past: quiet), "a committed write did not wake the log's readers")
    }

    /// The openings' changes after `sequence`: each write of `checkChangeLog` changes a few openings, so each has an
    /// entry of its own (none is summarised).
    private static func openingChanges(_ store: any BridgeStore, after sequence: Int64, bridgeIDs: [String]? = nil,
                                       limit: Int = 100) async throws -> [OpeningChangeDTO] {
        let entries = try await store.changes(after: sequence, bridgeIDs: bridgeIDs, limit: limit)
        let openings = entries.compactMap(\.opening)
        #expect(openings.count == entries.count, "a few changes are never summarised")
        return openings
    }

    /// Closed, updated, replaced (in place and moved), each once, after `sequence`.
    private static func checkEachKindOnce(_ store: any BridgeStore, after sequence: Int64) async throws {
        let closed = StoreFixture.event(StoreFixture.ballard, minute: 5, minutes: 7)
        _ = try await store.upsertEvents([closed])
        let corrected = StoreFixture.event(StoreFixture.ballard, minute: 5, minutes: 8)
        _ = try await store.upsertEvents([corrected])
        let underWay = StoreFixture.record("ndw-1", version: 2, minute: 60, status: .observed, minutes: nil)
        _ = try await store.upsertEvents([underWay])
        let moved = StoreFixture.record("ndw-1", version: 3, minute: 62, status: .observed, minutes: nil)
        _ = try await store.upsertEvents([moved])
        let changes = try await openingChanges(store, after: sequence, limit: 10)
        #expect(changes.map(\.kind) == [.closed, .updated, .replaced, .replaced])
        #expect(changes[0].closedAt == closed.closedAt)
        #expect(changes[2].status == .observed && changes[2].recordVersion == 2)
        #expect(changes[3].openedAt == moved.openedAt)
    }

    /// Paging and the bridge filter continue strictly after a number; every opening's change so far.
    private static func checkPaging(_ store: any BridgeStore) async throws -> [OpeningChangeDTO] {
        let all = try await openingChanges(store, after: 0)
        #expect(all.count == 7)
        let paged = try await openingChanges(store, after: 0, limit: 3) + openingChanges(store, after: all[2].sequence)
        #expect(paged == all)
        #expect(try await openingChanges(store, after: 0, bridgeIDs: [StoreFixture.ballard.id])
            == all.filter { $0.bridgeID == StoreFixture.ballard.id })
        return all
    }

    /// A refused batch (an unknown bridge, at the time of `observed`) logs nothing.
    private static func checkRefusedBatch(_ store: any BridgeStore, like observed: BridgeEventDTO) async throws {
        let newest = try await store.changeLogBounds().newest
        let orphan = BridgeEventDTO(bridgeID: "999", bridgeName: "Nowhere", openedAt: observed.openedAt,
                                    openLocal: observed.openLocal, closedAt: nil, closeLocal: nil, minutesOpen: nil,
                                    latitude: nil, longitude: nil)
        await #expect(throws: (any Error).self) { _ = try await store.upsertEvents([StoreFixture.event(minute: 90), orphan]) }
        #expect(try await store.changeLogBounds().newest == newest)
    }

    /// Withdrawals: announced records the source no longer lists, at its bridges only; never what happened.
    private static func checkWithdrawals(_ store: any BridgeStore) async throws {
        _ = try await store.upsertEvents([StoreFixture.record("ndw-2", version: 1, minute: 120),
                                          StoreFixture.record("ndw-3", version: 1, minute: 130)])
        let beforeWithdrawal = try await store.changeLogBounds().newest
        let version = try await store.historyVersion()
        #expect(try await store.withdrawAnnouncements(bridgeIDs: [StoreFixture.ballard.id], keeping: []) == 0)
        #expect(try await store.withdrawAnnouncements(bridgeIDs: [StoreFixture.fremont.id], keeping: ["ndw-3"]) == 1)
        let withdrawn = try await openingChanges(store, after: beforeWithdrawal, limit: 10)
        #expect(withdrawn.map(\.kind) == [.withdrawn])
        #expect(withdrawn.first?.recordID == "ndw-2" && withdrawn.first?.status == .planned)
        #expect(try await store.historyVersion() > version)
        #expect(try await store.events(matching: EventQuery(status: .planned)).map(\.recordID) == ["ndw-3"])
        #expect(try await store.eventCount(bridgeID: StoreFixture.fremont.id) == 3, "the running record stays")
    }

    /// Pruning keeps the newest change, so the newest number survives (the oldest is `oldest` before); removing
    /// events logs nothing.
    private static func checkPruning(_ store: any BridgeStore, oldest: Int64?) async throws {
        let bounds = try await store.changeLogBounds()
        #expect(bounds.oldest == oldest)
        #expect(bounds.continues(after: bounds.newest) && bounds.continues(after: 0))
        #expect(!bounds.continues(after: bounds.newest + 1))
        _ = try await store.deleteEvents(openedBefore: Date(timeIntervalSince1970: 4_000_000_000))
        #expect(try await store.changeLogBounds() == bounds)
        let pruned = try await store.pruneChanges(recordedBefore: Date().addingTimeInterval(3_600))
        #expect(pruned == 9)
        let after = try await store.changeLogBounds()
        #expect(after == ChangeLogBounds(oldest: bounds.newest, newest: bounds.newest))
        #expect(after.continues(after: bounds.newest) && after.continues(after: bounds.newest - 1))
        #expect(!after.continues(after: 0), "a reader behind the pruned changes must resync")
        #expect(try await store.pruneChanges(recordedBefore: Date().addingTimeInterval(3_600)) == 0)
    }

    /// Checks the log's summaries of bulk writes (`BulkChangeTally`): a write with more changes to older openings
    /// than `itemizedLimit` logs them as one `bulk` entry, after an entry for each recent, announced or replaced
    /// one, whichever way the store writes the batch (new rows, rows that overlap stored ones, source records); a
    /// few older changes keep an entry each; a bridge's reader gets the summaries that count its bridge; alerts are
    /// matched against openings' entries only.
    public static func checkBulkChanges(makeStore: () async throws -> any BridgeStore) async throws {
        let store = try await makeStore()
        try await store.upsertBridges(BridgeCatalog.seattle.bridges)
        let limit = BulkChangeTally.itemizedLimit
        let base = Date(timeIntervalSince1970: 1_780_315_200)
        let minuteNow = Int(Date().timeIntervalSince(base) / 60)
        // An alert that every announced opening of Fremont triggers.
        try await store.saveAlert(AlertRuleDTO(
            name: "fremont", bridgeIDs: [StoreFixture.fremont.id], timeZone: "UTC",
            destination: AlertDestination(kind: .webhook, url: "https://example.org/hook")))

        // New rows: a backfill of older openings with a few of the last hours and one announced.
        // The last 50 still open (their closing unknown).
        let old = (0..<(limit + 50)).map {
            StoreFixture.event(bulkBridge($0), minute: $0 * 30, minutes: $0 < limit ? 5 : nil)
        }
        let recent = (1...3).map { StoreFixture.event(minute: minuteNow - 60 * $0, minutes: 5) }
        let announced = StoreFixture.record("ndw-bulk", version: 1, minute: minuteNow + 90)
        _ = try await store.upsertEvents(old + recent + [announced])
        let logged = try await bulkEntries(store, after: 0)
        #expect(logged.count == 5, "three recent, one announced, one summary: \(logged.map(\.kindName))")
        let loggedOpenings = logged.compactMap(\.opening).map(\.key).sorted { $0.openedAt < $1.openedAt }
        let expectedOpenings = (Array(recent.reversed()) + [announced]).map(\.key)
        #expect(loggedOpenings == expectedOpenings)
        let summary = try #require(logged.last.flatMap { if case .bulk(let s) = $0 { s } else { nil } })
        #expect(summary.counts == [.new: limit + 50] && summary.total == limit + 50)
        #expect(summary.bridgeIDs == [StoreFixture.ballard.id, StoreFixture.fremont.id].sorted())
        #expect(summary.openedFrom == old.first?.openedAt && summary.openedThrough == old.last?.openedAt)
        #expect(summary.historyVersion == (try await store.historyVersion()))
        #expect(logged.map(\.sequence) == logged.map(\.sequence).sorted())
        try checkReadsBack(logged.last, summary: summary)
        // Only the announced opening paged anyone.
        #expect(try await store.outboxMessages(alert: nil, limit: 10).count == 1)

        // A bridge's reader gets the summaries that count it, and no other.
        #expect(try await bulkEntries(store, after: 0, bridgeIDs: [StoreFixture.ballard.id]).map(\.sequence)
            == [summary.sequence])
        #expect(try await bulkEntries(store, after: 0, bridgeIDs: ["1"]).isEmpty, "a summary not counting the bridge")

        try await checkStoredOpeningsChanged(store)
        let later = try await checkPlainBackfill(store)

        // Source records (one at a time, in order): older ones summarised the same way.
        let newest = try await store.changeLogBounds().newest
        let records = (0..<(limit + 5)).map {
            StoreFixture.record("old-\($0)", version: 1, minute: 100_000 + $0 * 30, status: .observed, minutes: 5)
        }
        _ = try await store.upsertEvents(records)
        let fromRecords = try await bulkEntries(store, after: newest)
        let recordsSummary = try #require(fromRecords.first.flatMap { if case .bulk(let s) = $0 { s } else { nil } })
        #expect(fromRecords.count == 1 && recordsSummary.counts == [.new: limit + 5])
        #expect(recordsSummary.bridgeIDs == [StoreFixture.fremont.id])
        #expect(try await store.eventCount(bridgeID: nil) == old.count + recent.count + 1 + later.count + records.count)
        #expect(try await store.outboxMessages(alert: nil, limit: 10).count == 1, "a backfill pages nobody")
    }

    /// Every entry after `sequence` (of `bridgeIDs`, nil: all).
    private static func bulkEntries(_ store: any BridgeStore, after sequence: Int64, bridgeIDs: [String]? = nil)
        async throws -> [ChangeLogEntryDTO]
    {
        try await store.changes(after: sequence, bridgeIDs: bridgeIDs, limit: 10_000)
    }

    /// The bridge of a bulk write's `index`th opening: Ballard's every third, Fremont's the others.
    private static func bulkBridge(_ index: Int) -> BridgeInfoDTO {
        index % 3 == 0 ? StoreFixture.ballard : StoreFixture.fremont
    }

    /// A summary's entry (`entry`, of `summary`) reads back as written.
    private static func checkReadsBack(_ entry: ChangeLogEntryDTO?, summary: BulkChangeDTO) throws {
        let sorted = JSONEncoder()
        sorted.outputFormatting = .sortedKeys
        let encoded = try sorted.encode(entry)
        let decoded = try JSONDecoder().decode(ChangeLogEntryDTO.self, from: encoded)
        #expect(decoded.sequence == summary.sequence && decoded.opening == nil && decoded.bridgeIDs == summary.bridgeIDs)
        #expect(try sorted.encode(decoded) == encoded, "a summary reads back as written")
        #expect(String(decoding: encoded, as: UTF8.self).contains(#""kind":"bulk""#))
    }

    /// A few older openings changed: an entry each. Many stored openings changed (rows overlapping stored ones):
    /// one summary, by kind.
    private static func checkStoredOpeningsChanged(_ store: any BridgeStore) async throws {
        let limit = BulkChangeTally.itemizedLimit
        var newest = try await store.changeLogBounds().newest
        _ = try await store.upsertEvents((0..<10).map {
            StoreFixture.event(bulkBridge($0), minute: $0 * 30, minutes: 6)
        })
        var logged = try await bulkEntries(store, after: newest)
        #expect(logged.compactMap(\.opening).map(\.kind) == Array(repeating: .updated, count: 10))
        #expect(logged.count == 10)

        newest = try await store.changeLogBounds().newest
        _ = try await store.upsertEvents((0..<(limit + 50)).map {
            StoreFixture.event(bulkBridge($0), minute: $0 * 30, minutes: 7)
        })
        logged = try await bulkEntries(store, after: newest)
        let updated = try #require(logged.first.flatMap { if case .bulk(let s) = $0 { s } else { nil } })
        #expect(logged.count == 1 && updated.counts == [.updated: limit, .closed: 50])
    }

    /// A plain backfill where nothing is stored yet (a store's fastest path): one summary. Returns the openings.
    private static func checkPlainBackfill(_ store: any BridgeStore) async throws -> [BridgeEventDTO] {
        let limit = BulkChangeTally.itemizedLimit
        let newest = try await store.changeLogBounds().newest
        let later = (0..<(limit + 10)).map { StoreFixture.event(bulkBridge($0), minute: 200_000 + $0 * 30) }
        _ = try await store.upsertEvents(later)
        let logged = try await bulkEntries(store, after: newest)
        let backfill = try #require(logged.first.flatMap { if case .bulk(let s) = $0 { s } else { nil } })
        #expect(logged.count == 1 && backfill.counts == [.new: limit + 10])
        #expect(backfill.openedFrom == later.first?.openedAt && backfill.openedThrough == later.last?.openedAt)
        return later
    }
}
