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

        func kinds(after sequence: Int64) async throws -> [OpeningChangeKind] {
            try await store.changes(after: sequence, bridgeIDs: nil, limit: 100).map(\.kind)
        }
        // New, announced, and nothing for what is stored as it is.
        let observed = StoreFixture.event(minute: 0)
        let open = StoreFixture.event(StoreFixture.ballard, minute: 5, minutes: nil)
        let planned = StoreFixture.record("ndw-1", version: 1, minute: 60)
        _ = try await store.upsertEvents([observed, open, planned])
        let first = try await store.changes(after: 0, bridgeIDs: nil, limit: 10)
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
        let changes = try await store.changes(after: afterFirst, bridgeIDs: nil, limit: 10)
        #expect(changes.map(\.kind) == [.closed, .updated, .replaced, .replaced])
        #expect(changes[0].closedAt == closed.closedAt)
        #expect(changes[2].status == .observed && changes[2].recordVersion == 2)
        #expect(changes[3].openedAt == moved.openedAt)

        // Paging and the bridge filter continue strictly after a number.
        let all = try await store.changes(after: 0, bridgeIDs: nil, limit: 100)
        #expect(all.count == 7)
        let paged = try await store.changes(after: 0, bridgeIDs: nil, limit: 3)
            + store.changes(after: all[2].sequence, bridgeIDs: nil, limit: 100)
        #expect(paged == all)
        #expect(try await store.changes(after: 0, bridgeIDs: [StoreFixture.ballard.id], limit: 100)
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
        let withdrawn = try await store.changes(after: beforeWithdrawal, bridgeIDs: nil, limit: 10)
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
        let logged = try await store.changes(after: 0, bridgeIDs: nil, limit: 10)
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
        // A message enqueued by hand is enqueued once.
        let test = AlertMessageDTO(id: "fremont:test-1", alert: "fremont", type: "test", bridgeID: "3",
                                   bridgeName: "Fremont", openedAt: now, closedAt: nil, status: .planned, sequence: nil,
                                   chance: nil, createdAt: now)
        #expect(try await store.enqueueAlertMessage(test, at: now.addingTimeInterval(30)))
        #expect(try await !store.enqueueAlertMessage(test, at: now.addingTimeInterval(30)))

        // Claims: due messages go to one holder until its lease ends, the longest due first.
        #expect(try await store.claimDueMessages(holder: "a", now: now.addingTimeInterval(-1),
                                                 leaseUntil: now.addingTimeInterval(60), limit: 10).isEmpty)
        let claimed = try await store.claimDueMessages(holder: "a", now: now.addingTimeInterval(31),
                                                       leaseUntil: now.addingTimeInterval(60), limit: 10)
        #expect(claimed.map(\.eventID) == ["fremont:\(announced.sequence)", "fremont:test-1"])
        #expect(try await store.claimDueMessages(holder: "b", now: now.addingTimeInterval(32),
                                                 leaseUntil: now.addingTimeInterval(60), limit: 10).isEmpty)
        let retaken = try await store.claimDueMessages(holder: "b", now: now.addingTimeInterval(61),
                                                       leaseUntil: now.addingTimeInterval(120), limit: 1)
        #expect(retaken.map(\.id) == [claimed[0].id], "a dead holder's message goes to the next")

        // Attempts set the state; a retry waits for its time; a delivered or gone message is never claimed again.
        try await store.recordAttempt(outboxID: claimed[0].id, holder: "b", at: now.addingTimeInterval(62),
                                      outcome: .retry(httpStatus: 503, detail: "HTTP 503", next: now.addingTimeInterval(300)))
        try await store.recordAttempt(outboxID: claimed[1].id, holder: "a", at: now.addingTimeInterval(62),
                                      outcome: .gone(httpStatus: 410))
        #expect(try await store.claimDueMessages(holder: "c", now: now.addingTimeInterval(200),
                                                 leaseUntil: now.addingTimeInterval(400), limit: 10).isEmpty)
        let again = try await store.claimDueMessages(holder: "c", now: now.addingTimeInterval(301),
                                                     leaseUntil: now.addingTimeInterval(400), limit: 10)
        #expect(again.map(\.id) == [claimed[0].id] && again.first?.attempts == 1)
        try await store.recordAttempt(outboxID: claimed[0].id, holder: "c", at: now.addingTimeInterval(302),
                                      outcome: .delivered(httpStatus: 204))
        #expect(try await store.claimDueMessages(holder: "d", now: now.addingTimeInterval(10_000),
                                                 leaseUntil: now.addingTimeInterval(10_060), limit: 10).isEmpty)
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
        #expect(try await store.pruneAlertMessages(finishedBefore: now.addingTimeInterval(100)) == 2)
        #expect(try await store.outboxMessages(alert: nil, limit: 10).map(\.eventID) == [pending.id, "fremont:\(announced.sequence)"])
        #expect(try await store.pruneAlertMessages(finishedBefore: now.addingTimeInterval(1_000)) == 1)
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
