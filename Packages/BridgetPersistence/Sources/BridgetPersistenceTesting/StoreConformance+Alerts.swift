import BridgetDTOs
import BridgetPersistence
import Foundation
import Testing

// The alerts' promises (`AlertStore`).
extension StoreConformance {
    /// Checks `AlertStore` against a whole store: alerts saved and removed by name; a change that triggers an alert
    /// puts one message in the outbox in its transaction, never twice; claims lease each message to one holder at a
    /// time; attempts are recorded and set the message's state.
    public static func checkAlerts(makeStore: () async throws -> any BridgeStore) async throws {
        let store = try await makeStore()
        try await store.upsertBridges(BridgeCatalog.seattle.bridges)
        let hook = AlertDestination(kind: .webhook, url: "https://example.org/hook", secretEnvironment: "HOOK_SECRET")
        let fremont = AlertRuleDTO(name: "fremont", bridgeIDs: [StoreFixture.fremont.id], timeZone: "America/Los_Angeles",
                                   destination: hook)
        try await checkSavedByName(store, fremont: fremont)

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
        let messages = try await store.outboxMessages(alert: nil, limit: 10)
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

        try await checkClaimsAndAttempts(store, announced: announced, now: now, later: later)

        // A gone receiver turned its alert off in the attempt's transaction: a change it would match sends nothing.
        let off = try #require(try await store.alerts().first { $0.name == "fremont" })
        #expect(off.disabled?.reason == AlertRuleDTO.goneReason(httpStatus: 410))
        _ = try await store.upsertEvents([StoreFixture.record("ndw-10", version: 1, minute: minuteFromNow + 120)])
        #expect(try await store.outboxMessages(alert: nil, limit: 10).count == 2)

        try await checkClaimByID(store, now: now)
        try await checkRetention(store, announced: announced, now: now, later: later)
        try await checkCap(store, hook: hook, fremont: fremont)
    }

    /// Alerts saved (a second save replaces), listed by name and removed by name.
    private static func checkSavedByName(_ store: any BridgeStore, fremont: AlertRuleDTO) async throws {
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
    }

    /// Claims: due messages (`announced`'s and a test message, due at `later` + 30 s) go to one holder until its
    /// lease ends, the longest due first. Attempts set the state; a retry waits for its time; a delivered or gone
    /// message is never claimed again.
    private static func checkClaimsAndAttempts(_ store: any BridgeStore, announced: OpeningChangeDTO, now: Date,
                                               later: Date) async throws {
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
        let messages = try await store.outboxMessages(alert: "fremont", limit: 10)
        #expect(messages.map(\.state) == [.gone, .delivered])
        #expect(messages.map(\.attempts) == [1, 2])
        let attempts = try await store.alertAttempts(alert: nil, limit: 10)
        #expect(attempts.map(\.outcome) == ["delivered", "gone", "retry"])
        #expect(attempts.map(\.holder) == ["c", "a", "b"])
        #expect(attempts.last?.httpStatus == 503 && attempts.last?.detail == "HTTP 503" && attempts.first?.attempt == 2)
        #expect(try await store.alertAttempts(alert: "other", limit: 10).isEmpty)
    }

    /// `alert test`'s claim: a message by its id, to one holder while its lease lives, and no claim of all takes it.
    /// An instant no store keeps in an attempt is refused, and the message left as it was.
    private static func checkClaimByID(_ store: any BridgeStore, now: Date) async throws {
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
    }

    /// Retention: finished messages recorded before the cutoff go with their attempts; a pending one stays.
    private static func checkRetention(_ store: any BridgeStore, announced: OpeningChangeDTO, now: Date, later: Date)
        async throws
    {
        let pending = AlertMessageDTO(id: "fremont:test-3", alert: "fremont", type: "test", bridgeID: "3",
                                      bridgeName: "Fremont", openedAt: now, closedAt: nil, status: .planned,
                                      sequence: nil, chance: nil, createdAt: now)
        #expect(try await store.enqueueAlertMessage(pending, at: now))
        #expect(try await store.pruneAlertMessages(finishedBefore: later.addingTimeInterval(100)) == 2)
        #expect(try await store.outboxMessages(alert: nil, limit: 10).map(\.eventID) == [pending.id, "fremont:\(announced.sequence)"])
        #expect(try await store.pruneAlertMessages(finishedBefore: later.addingTimeInterval(1_000)) == 1)
        #expect(try await store.outboxMessages(alert: nil, limit: 10).map(\.eventID) == [pending.id])
        #expect(try await store.alertAttempts(alert: nil, limit: 10).isEmpty)
    }

    /// The cap holds whatever saves run at once; replacing an alert (`fremont`) at the cap is no new one.
    private static func checkCap(_ store: any BridgeStore, hook: AlertDestination, fremont: AlertRuleDTO) async throws {
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
