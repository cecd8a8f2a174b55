import BridgetDTOs
import BridgetPersistence
import Foundation
import Testing

// The change log's promises (`ChangeLogStore`) and the alerts' (`AlertStore`).
extension StoreConformance {
    /// Checks `ChangeLogStore` against a whole store: one change per changed opening, of the right kind, numbered
    /// in order, in the write's transaction; none for an unchanged one or a refused batch; withdrawals; pruning
    /// that keeps the newest.
    public static func checkChangeLog(makeStore: () async throws -> any BridgeStore) async throws {
        let store = try await makeStore()
        #expect(try await store.changeLogBounds() == ChangeLogBounds(oldest: nil, newest: 0))
        #expect(try await store.changes(after: 0, bridgeIDs: nil, limit: 10).isEmpty)
        try await store.upsertBridges(BridgeCatalog.seattle.bridges)

        // Every write here changes a few openings: each has an entry of its own.
        func openings(after sequence: Int64, bridgeIDs: [String]? = nil, limit: Int = 100) async throws
            -> [OpeningChangeDTO]
        {
            let entries = try await store.changes(after: sequence, bridgeIDs: bridgeIDs, limit: limit)
            let openings = entries.compactMap(\.opening)
            #expect(openings.count == entries.count, "a few changes are never summarised")
            return openings
        }
        func kinds(after sequence: Int64) async throws -> [OpeningChangeKind] {
            try await openings(after: sequence).map(\.kind)
        }
        // New, announced, and nothing for what is stored as it is.
        let observed = StoreFixture.event(minute: 0)
        let open = StoreFixture.event(StoreFixture.ballard, minute: 5, minutes: nil)
        let planned = StoreFixture.record("ndw-1", version: 1, minute: 60)
        _ = try await store.upsertEvents([observed, open, planned])
        let first = try await openings(after: 0, limit: 10)
        #expect(first.map(\.kind) == [.new, .new, .announced])
        #expect(first.map(\.key) == [observed.key, open.key, planned.key])
        #expect(first.map(\.sequence) == first.map(\.sequence).sorted() && Set(first.map(\.sequence)).count == 3)
        #expect(first[2].status == .planned && first[2].recordID == "ndw-1" && first[2].recordVersion == 1)
        let afterFirst = try await store.changeLogBounds().newest
        #expect(afterFirst == first.last?.sequence)
        _ = try await store.upsertEvents([observed, planned])
        #expect(try await kinds(after: afterFirst).isEmpty, "an unchanged event logs nothing")

        // Closed, updated, replaced (in place and moved), each once.
        let closed = StoreFixture.event(StoreFixture.ballard, minute: 5, minutes: 7)
        _ = try await store.upsertEvents([closed])
        let corrected = StoreFixture.event(StoreFixture.ballard, minute: 5, minutes: 8)
        _ = try await store.upsertEvents([corrected])
        let underWay = StoreFixture.record("ndw-1", version: 2, minute: 60, status: .observed, minutes: nil)
        _ = try await store.upsertEvents([underWay])
        let moved = StoreFixture.record("ndw-1", version: 3, minute: 62, status: .observed, minutes: nil)
        _ = try await store.upsertEvents([moved])
        let changes = try await openings(after: afterFirst, limit: 10)
        #expect(changes.map(\.kind) == [.closed, .updated, .replaced, .replaced])
        #expect(changes[0].closedAt == closed.closedAt)
        #expect(changes[2].status == .observed && changes[2].recordVersion == 2)
        #expect(changes[3].openedAt == moved.openedAt)

        // Paging and the bridge filter continue strictly after a number.
        let all = try await openings(after: 0)
        #expect(all.count == 7)
        let paged = try await openings(after: 0, limit: 3) + openings(after: all[2].sequence)
        #expect(paged == all)
        #expect(try await openings(after: 0, bridgeIDs: [StoreFixture.ballard.id])
            == all.filter { $0.bridgeID == StoreFixture.ballard.id })

        // A refused batch (an unknown bridge) logs nothing.
        let newest = try await store.changeLogBounds().newest
        let orphan = BridgeEventDTO(bridgeID: "999", bridgeName: "Nowhere", openedAt: observed.openedAt,
                                    openLocal: observed.openLocal, closedAt: nil, closeLocal: nil, minutesOpen: nil,
                                    latitude: nil, longitude: nil)
        await #expect(throws: (any Error).self) { _ = try await store.upsertEvents([StoreFixture.event(minute: 90), orphan]) }
        #expect(try await store.changeLogBounds().newest == newest)

        // Withdrawals: announced records the source no longer lists, at its bridges only; never what happened.
        _ = try await store.upsertEvents([StoreFixture.record("ndw-2", version: 1, minute: 120),
                                          StoreFixture.record("ndw-3", version: 1, minute: 130)])
        let beforeWithdrawal = try await store.changeLogBounds().newest
        let version = try await store.historyVersion()
        #expect(try await store.withdrawAnnouncements(bridgeIDs: [StoreFixture.ballard.id], keeping: []) == 0)
        #expect(try await store.withdrawAnnouncements(bridgeIDs: [StoreFixture.fremont.id], keeping: ["ndw-3"]) == 1)
        let withdrawn = try await openings(after: beforeWithdrawal, limit: 10)
        #expect(withdrawn.map(\.kind) == [.withdrawn])
        #expect(withdrawn.first?.recordID == "ndw-2" && withdrawn.first?.status == .planned)
        #expect(try await store.historyVersion() > version)
        #expect(try await store.events(matching: EventQuery(status: .planned)).map(\.recordID) == ["ndw-3"])
        #expect(try await store.eventCount(bridgeID: StoreFixture.fremont.id) == 3, "the running record stays")

        // Pruning keeps the newest change, so the newest number survives; removing events logs nothing.
        let bounds = try await store.changeLogBounds()
        #expect(bounds.oldest == all.first?.sequence)
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
        func entries(after sequence: Int64, bridgeIDs: [String]? = nil) async throws -> [ChangeLogEntryDTO] {
            try await store.changes(after: sequence, bridgeIDs: bridgeIDs, limit: 10_000)
        }
        func bridge(_ index: Int) -> BridgeInfoDTO { index % 3 == 0 ? StoreFixture.ballard : StoreFixture.fremont }

        // New rows: a backfill of older openings with a few of the last hours and one announced.
        // The last 50 still open (their closing unknown).
        let old = (0..<(limit + 50)).map { StoreFixture.event(bridge($0), minute: $0 * 30, minutes: $0 < limit ? 5 : nil) }
        let recent = (1...3).map { StoreFixture.event(minute: minuteNow - 60 * $0, minutes: 5) }
        let announced = StoreFixture.record("ndw-bulk", version: 1, minute: minuteNow + 90)
        _ = try await store.upsertEvents(old + recent + [announced])
        var logged = try await entries(after: 0)
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
        let sorted = JSONEncoder()
        sorted.outputFormatting = .sortedKeys
        let encoded = try sorted.encode(logged.last)
        let decoded = try JSONDecoder().decode(ChangeLogEntryDTO.self, from: encoded)
        #expect(decoded.sequence == summary.sequence && decoded.opening == nil && decoded.bridgeIDs == summary.bridgeIDs)
        #expect(try sorted.encode(decoded) == encoded, "a summary reads back as written")
        #expect(String(decoding: encoded, as: UTF8.self).contains(#""kind":"bulk""#))
        // Only the announced opening paged anyone.
        #expect(try await store.outboxMessages(alert: nil, limit: 10).count == 1)

        // A bridge's reader gets the summaries that count it, and no other.
        #expect(try await entries(after: 0, bridgeIDs: [StoreFixture.ballard.id]).map(\.sequence) == [summary.sequence])
        #expect(try await entries(after: 0, bridgeIDs: ["1"]).isEmpty, "a summary not counting the bridge")

        // A few older openings changed: an entry each.
        var newest = try await store.changeLogBounds().newest
        _ = try await store.upsertEvents((0..<10).map { StoreFixture.event(bridge($0), minute: $0 * 30, minutes: 6) })
        logged = try await entries(after: newest)
        #expect(logged.compactMap(\.opening).map(\.kind) == Array(repeating: .updated, count: 10))
        #expect(logged.count == 10)

        // Many stored openings changed (rows overlapping stored ones): one summary, by kind.
        newest = try await store.changeLogBounds().newest
        _ = try await store.upsertEvents((0..<(limit + 50)).map { StoreFixture.event(bridge($0), minute: $0 * 30, minutes: 7) })
        logged = try await entries(after: newest)
        let updated = try #require(logged.first.flatMap { if case .bulk(let s) = $0 { s } else { nil } })
        #expect(logged.count == 1 && updated.counts == [.updated: limit, .closed: 50])

        // A plain backfill where nothing is stored yet (a store's fastest path): one summary.
        newest = try await store.changeLogBounds().newest
        let later = (0..<(limit + 10)).map { StoreFixture.event(bridge($0), minute: 200_000 + $0 * 30) }
        _ = try await store.upsertEvents(later)
        logged = try await entries(after: newest)
        let backfill = try #require(logged.first.flatMap { if case .bulk(let s) = $0 { s } else { nil } })
        #expect(logged.count == 1 && backfill.counts == [.new: limit + 10])
        #expect(backfill.openedFrom == later.first?.openedAt && backfill.openedThrough == later.last?.openedAt)

        // Source records (one at a time, in order): older ones summarised the same way.
        newest = try await store.changeLogBounds().newest
        let records = (0..<(limit + 5)).map {
            StoreFixture.record("old-\($0)", version: 1, minute: 100_000 + $0 * 30, status: .observed, minutes: 5)
        }
        _ = try await store.upsertEvents(records)
        logged = try await entries(after: newest)
        let fromRecords = try #require(logged.first.flatMap { if case .bulk(let s) = $0 { s } else { nil } })
        #expect(logged.count == 1 && fromRecords.counts == [.new: limit + 5])
        #expect(fromRecords.bridgeIDs == [StoreFixture.fremont.id])
        #expect(try await store.eventCount(bridgeID: nil) == old.count + recent.count + 1 + later.count + records.count)
        #expect(try await store.outboxMessages(alert: nil, limit: 10).count == 1, "a backfill pages nobody")
    }

    /// Checks `AlertStore` against a whole store: alerts saved and removed by name; a change that triggers an alert
    /// puts one message in the outbox in its transaction, never twice; claims lease each message to one holder at a
    /// time; attempts are recorded and set the message's state.
    public static func checkAlerts(makeStore: () async throws -> any BridgeStore) async throws {
        let store = try await makeStore()
        try await store.upsertBridges(BridgeCatalog.seattle.bridges)
        let hook = AlertDestination(kind: .webhook, url: "https://example.org/hook", secretEnvironment: "HOOK_SECRET")
        let fremont = AlertRuleDTO(name: "fremont", bridgeIDs: [StoreFixture.fremont.id], timeZone: "America/Los_Angeles",
                                   destination: hook)
        let ballard = AlertRuleDTO(name: "ballard", bridgeIDs: [StoreFixture.ballard.id], timeZone: "UTC",
                                   destination: AlertDestination(kind: .ntfy, url: "https://ntfy.example.org/b"))
        try await store.saveAlert(fremont)
        try await store.saveAlert(ballard)
        #expect(try await store.alerts() == [ballard, fremont])
        var renamed = ballard
        renamed.weekdays = [1, 2]
        try await store.saveAlert(renamed)
        #expect(try await store.alerts() == [renamed, fremont])
        #expect(try await store.removeAlert(named: "ballard"))
        #expect(try await !store.removeAlert(named: "ballard"))
        #expect(try await store.alerts() == [fremont])

        // An announced opening to come triggers; a past one, another bridge's or a closed one does not.
        let now = Date()
        let base = Date(timeIntervalSince1970: 1_780_315_200)
        let minuteFromNow = Int(now.timeIntervalSince(base) / 60)
        let coming = StoreFixture.record("ndw-9", version: 1, minute: minuteFromNow + 90)
        let past = StoreFixture.event(minute: 0)
        let elsewhere = StoreFixture.event(StoreFixture.ballard, minute: minuteFromNow - 1, minutes: nil)
        _ = try await store.upsertEvents([past, coming, elsewhere])
        let logged = try await store.changes(after: 0, bridgeIDs: nil, limit: 10).compactMap(\.opening)
        let announced = try #require(logged.first { $0.kind == .announced })
        var messages = try await store.outboxMessages(alert: nil, limit: 10)
        #expect(messages.map(\.eventID) == ["fremont:\(announced.sequence)"])
        #expect(messages.first?.state == .pending && messages.first?.attempts == 0)
        let body = try JSONDecoder.iso8601.decode(AlertMessageDTO.self, from: Data(try #require(messages.first).body.utf8))
        #expect(body.id == "fremont:\(announced.sequence)" && body.type == "opening.announced")
        #expect(body.bridgeID == "3" && body.bridgeName == StoreFixture.fremont.displayName && body.status == .planned)
        #expect(!messages[0].body.contains("HOOK_SECRET") && !messages[0].body.contains("example.org"))
        // The same opening stored again sends nothing; its version under way sends one more message.
        _ = try await store.upsertEvents([coming])
        #expect(try await store.outboxMessages(alert: nil, limit: 10).count == 1)
        // Times from here on count from after the writes, however long they took: the store stamped the announced
        // opening's message when it wrote it, at or before `later`.
        let later = Date()
        // A message enqueued by hand is enqueued once.
        let test = AlertMessageDTO(id: "fremont:test-1", alert: "fremont", type: "test", bridgeID: "3",
                                   bridgeName: "Fremont", openedAt: now, closedAt: nil, status: .planned, sequence: nil,
                                   chance: nil, createdAt: now)
        #expect(try await store.enqueueAlertMessage(test, at: later.addingTimeInterval(30)))
        #expect(try await !store.enqueueAlertMessage(test, at: later.addingTimeInterval(30)))

        // Claims: due messages go to one holder until its lease ends, the longest due first.
        #expect(try await store.claimDueMessages(holder: "a", now: now.addingTimeInterval(-1),
                                                 leaseUntil: later.addingTimeInterval(60), limit: 10).isEmpty)
        let claimed = try await store.claimDueMessages(holder: "a", now: later.addingTimeInterval(31),
                                                       leaseUntil: later.addingTimeInterval(60), limit: 10)
        #expect(claimed.map(\.eventID) == ["fremont:\(announced.sequence)", "fremont:test-1"])
        #expect(try await store.claimDueMessages(holder: "b", now: later.addingTimeInterval(32),
                                                 leaseUntil: later.addingTimeInterval(60), limit: 10).isEmpty)
        let retaken = try await store.claimDueMessages(holder: "b", now: later.addingTimeInterval(61),
                                                       leaseUntil: later.addingTimeInterval(120), limit: 1)
        #expect(retaken.map(\.id) == [claimed[0].id], "a dead holder's message goes to the next")

        // Attempts set the state; a retry waits for its time; a delivered or gone message is never claimed again.
        try await store.recordAttempt(outboxID: claimed[0].id, holder: "b", at: later.addingTimeInterval(62),
                                      outcome: .retry(httpStatus: 503, detail: "HTTP 503", next: later.addingTimeInterval(300)))
        try await store.recordAttempt(outboxID: claimed[1].id, holder: "a", at: later.addingTimeInterval(62),
                                      outcome: .gone(httpStatus: 410))
        #expect(try await store.claimDueMessages(holder: "c", now: later.addingTimeInterval(200),
                                                 leaseUntil: later.addingTimeInterval(400), limit: 10).isEmpty)
        let again = try await store.claimDueMessages(holder: "c", now: later.addingTimeInterval(301),
                                                     leaseUntil: later.addingTimeInterval(400), limit: 10)
        #expect(again.map(\.id) == [claimed[0].id] && again.first?.attempts == 1)
        try await store.recordAttempt(outboxID: claimed[0].id, holder: "c", at: later.addingTimeInterval(302),
                                      outcome: .delivered(httpStatus: 204))
        #expect(try await store.claimDueMessages(holder: "d", now: later.addingTimeInterval(10_000),
                                                 leaseUntil: later.addingTimeInterval(10_060), limit: 10).isEmpty)
        messages = try await store.outboxMessages(alert: "fremont", limit: 10)
        #expect(messages.map(\.state) == [.gone, .delivered])
        #expect(messages.map(\.attempts) == [1, 2])
        let attempts = try await store.alertAttempts(alert: nil, limit: 10)
        #expect(attempts.map(\.outcome) == ["delivered", "gone", "retry"])
        #expect(attempts.map(\.holder) == ["c", "a", "b"])
        #expect(attempts.last?.httpStatus == 503 && attempts.last?.detail == "HTTP 503" && attempts.first?.attempt == 2)
        #expect(try await store.alertAttempts(alert: "other", limit: 10).isEmpty)

        // A gone receiver turned its alert off in the attempt's transaction: a change it would match sends nothing.
        let off = try #require(try await store.alerts().first { $0.name == "fremont" })
        #expect(off.disabled?.reason == AlertRuleDTO.goneReason(httpStatus: 410))
        _ = try await store.upsertEvents([StoreFixture.record("ndw-10", version: 1, minute: minuteFromNow + 120)])
        #expect(try await store.outboxMessages(alert: nil, limit: 10).count == 2)

        // `alert test`'s claim: a message by its id, to one holder while its lease lives, and no claim of all takes it.
        let probe = AlertMessageDTO(id: "fremont:test-2", alert: "fremont", type: "test", bridgeID: "3",
                                    bridgeName: "Fremont", openedAt: now, closedAt: nil, status: .planned, sequence: nil,
                                    chance: nil, createdAt: now)
        #expect(try await store.enqueueAlertMessage(probe, at: now))
        let mine = try #require(try await store.claimMessage(eventID: probe.id, holder: "cli", now: now,
                                                             leaseUntil: now.addingTimeInterval(60)))
        #expect(mine.eventID == probe.id)
        #expect(try await store.claimMessage(eventID: probe.id, holder: "server", now: now.addingTimeInterval(1),
                                             leaseUntil: now.addingTimeInterval(60)) == nil)
        #expect(try await store.claimDueMessages(holder: "server", now: now.addingTimeInterval(2),
                                                 leaseUntil: now.addingTimeInterval(60), limit: 10).isEmpty)
        #expect(try await store.claimMessage(eventID: "fremont:none", holder: "cli", now: now,
                                             leaseUntil: now.addingTimeInterval(60)) == nil)

        // An instant no store keeps (a receiver's Retry-After of nan, inf or 1e300 made into a time) is refused with
        // an error, and the message is left as it was.
        for seconds in [Double.nan, .infinity, -.infinity, 1e300, -1e300, 253_402_300_800] {
            await #expect(throws: StoreError.self, "\(seconds)") {
                try await store.recordAttempt(outboxID: mine.id, holder: "cli", at: now,
                                              outcome: .retry(httpStatus: 503, detail: "HTTP 503",
                                                              next: Date(timeIntervalSince1970: seconds)))
            }
        }
        try await store.recordAttempt(outboxID: mine.id, holder: "cli", at: now.addingTimeInterval(3),
                                      outcome: .delivered(httpStatus: 204))
        #expect(try await store.outboxMessages(alert: nil, limit: 10).first?.attempts == 1)

        // Retention: finished messages recorded before the cutoff go with their attempts; a pending one stays.
        let pending = AlertMessageDTO(id: "fremont:test-3", alert: "fremont", type: "test", bridgeID: "3",
                                      bridgeName: "Fremont", openedAt: now, closedAt: nil, status: .planned,
                                      sequence: nil, chance: nil, createdAt: now)
        #expect(try await store.enqueueAlertMessage(pending, at: now))
        #expect(try await store.pruneAlertMessages(finishedBefore: later.addingTimeInterval(100)) == 2)
        #expect(try await store.outboxMessages(alert: nil, limit: 10).map(\.eventID) == [pending.id, "fremont:\(announced.sequence)"])
        #expect(try await store.pruneAlertMessages(finishedBefore: later.addingTimeInterval(1_000)) == 1)
        #expect(try await store.outboxMessages(alert: nil, limit: 10).map(\.eventID) == [pending.id])
        #expect(try await store.alertAttempts(alert: nil, limit: 10).isEmpty)

        // The cap holds whatever saves run at once; replacing an alert at the cap is no new one.
        let maximum = try await store.alerts().count + 5
        let results = try await withThrowingTaskGroup(of: AlertSaveResult.self) { group in
            for index in 0..<20 {
                group.addTask {
                    try await store.saveAlert(AlertRuleDTO(name: "cap-\(index)", bridgeIDs: ["3"], timeZone: "UTC",
                                                           destination: hook), maximum: maximum)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.filter { $0 == .created }.count == 5)
        #expect(results.filter { $0 == .refused(count: maximum) }.count == 15)
        #expect(try await store.alerts().count == maximum)
        #expect(try await store.saveAlert(fremont, maximum: maximum) == .replaced)
    }
}

extension JSONDecoder {
    fileprivate static var iso8601: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}
