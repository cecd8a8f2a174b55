import BridgetCore
import BridgetDTOs
import BridgetPersistence
import Foundation

/// What runs each call of a `ReopeningStore`: nothing more by default (`StoreCallGuard.none`); the server's
/// deadline on every call and short cool-down after an outage (BridgetWeb's `ServingGuard`).
package protocol StoreCallGuard: Sendable {
    /// Throws what would fail a call at once (a store cooling down after an outage), without calling it.
    func checkAvailable() throws

    /// Runs `work`, a call named `action` (for errors); `work` calls the function it is given each time it advances
    /// (a fold, each page), for a guard that times the steps of a long call rather than the whole.
    func run<T: Sendable>(_ action: String,
                          _ work: @escaping @Sendable (_ advanced: @escaping @Sendable () -> Void) async throws -> T)
        async throws -> T
}

/// The guard that adds nothing: each call runs as it is.
package struct UnguardedCalls: StoreCallGuard {
    package init() {}

    package func checkAvailable() throws {}

    package func run<T: Sendable>(_ action: String,
                                  _ work: @escaping @Sendable (_ advanced: @escaping @Sendable () -> Void) async throws -> T)
        async throws -> T
    {
        try await work({})
    }
}

/// The store as a long-running process holds it (`bridget serve`, `bridget watch`): the configured store, with **its
/// file reopened** when another file replaced it or it was deleted and made again (`bridget sync` into a new file, a
/// restore), looked at, at most once a `recheck`, before a call; and every call run by a `StoreCallGuard` (the
/// server's deadline and cool-down; none for the refresher's syncs and `watch`).
package final class ReopeningStore: BridgeStore, Sendable {
    /// What every `ReopeningStore` of one opened store shares (the handlers' and the refresher's): the store calls go
    /// to, and when its file was last looked at.
    private final class Shared: Sendable {
        struct State {
            var store: any BridgeStore
            /// How many times the store was reopened.
            var generation = 0
            var checkedAt: ContinuousClock.Instant = .now
            /// What the last look found that every call would meet (a deleted file), until the next look.
            var unusable: (any Error)?
        }

        let state: Locked<State>

        init(store: any BridgeStore) { state = Locked(State(store: store)) }
    }

    private let open: @Sendable () async throws -> any BridgeStore
    private let shared: Shared
    /// What runs each call.
    package let callGuard: any StoreCallGuard
    package let recheck: Duration
    /// How the store is named in errors.
    package let name: String
    private let note: @Sendable (String) -> Void

    /// A reopening store over `store`, which `open` opens again when its file is replaced.
    package convenience init(store: any BridgeStore, name: String, recheck: Duration = .seconds(1),
                             note: @escaping @Sendable (String) -> Void = { _ in },
                             open: @escaping @Sendable () async throws -> any BridgeStore) {
        self.init(shared: Shared(store: store), name: name, callGuard: UnguardedCalls(), recheck: recheck, note: note,
                  open: open)
    }

    private init(shared: Shared, name: String, callGuard: any StoreCallGuard, recheck: Duration,
                 note: @escaping @Sendable (String) -> Void, open: @escaping @Sendable () async throws -> any BridgeStore) {
        self.shared = shared
        self.open = open
        self.callGuard = callGuard
        self.recheck = recheck
        self.name = name
        self.note = note
    }

    /// The same store, each call run by `callGuard` (the handlers' deadline); a reopen by either is seen by both.
    package func guarded(by callGuard: any StoreCallGuard) -> ReopeningStore {
        ReopeningStore(shared: shared, name: name, callGuard: callGuard, recheck: recheck, note: note, open: open)
    }

    /// The store calls go to now.
    package var current: any BridgeStore { shared.state.withLock { $0.store } }

    /// How many times the store was reopened: answers kept from one generation are not another's (two files can have
    /// the same history version).
    package var generation: Int { shared.state.withLock { $0.generation } }

    // MARK: The one path of every call

    /// Runs `body` on the current store, reopened first if its file was replaced, under the guard.
    private func call<T: Sendable>(_ action: String, _ body: @escaping @Sendable (any BridgeStore) async throws -> T)
        async throws -> T
    {
        try callGuard.checkAvailable()
        return try await callGuard.run(action) { _ in try await body(try await self.storeToCall()) }
    }

    /// Throws what is already known to fail every call (the store cooling down after an outage, its file gone or
    /// damaged at the last look), without calling it: answers kept in memory are not served from a store that is no
    /// longer there.
    package func checkKnownProblems() throws {
        try callGuard.checkAvailable()
        let now = ContinuousClock.now
        let recheck = self.recheck
        // Once the next look is due, the call goes ahead to take it (the file may be back).
        if let unusable = shared.state.withLock({ now - $0.checkedAt < recheck ? $0.unusable : nil }) { throw unusable }
    }

    /// The store to call: reopened when its file was replaced; an error when the last look found it unusable, or
    /// when this look fails (the call would meet the same).
    private func storeToCall() async throws -> any BridgeStore {
        let now = ContinuousClock.now
        let (store, due, unusable): (any BridgeStore, Bool, (any Error)?) = shared.state.withLock { state in
            let due = now - state.checkedAt >= recheck
            if due { state.checkedAt = now }
            return (state.store, due, state.unusable)
        }
        guard due else {
            if let unusable { throw unusable }
            return store
        }
        do {
            try await store.checkReadiness()
            shared.state.withLock { $0.unusable = nil }
            return store
        } catch let error as StoreError {
            if case .replaced(let path, false) = error {
                let reopened = try await open()
                shared.state.withLock { state in
                    state.store = reopened
                    state.generation += 1
                    state.unusable = nil
                }
                note("the store at \(path) was replaced by another file: serving the new one")
                return reopened
            }
            // Gone, cut short or unreadable: every call fails alike until the next look, so no answer comes from a
            // file that is no longer the store (a deleted one is not made again empty: a new file is waited for).
            guard Self.failsEveryCall(error) else { return store }
            shared.state.withLock { $0.unusable = error }
            throw error
        }
    }

    /// What a readiness look can find that every call would meet: the file replaced, gone, unreadable or damaged.
    private static func failsEveryCall(_ error: StoreError) -> Bool {
        switch error {
        case .replaced, .notSQLite, .missing, .unreadable: true
        case .sqlite: error.sqliteFailure == .corrupt || error.sqliteFailure == .io
        default: false
        }
    }

    // MARK: BridgeStore

    package var isReadOnly: Bool { current.isReadOnly }

    /// Looks at the store now (its file, a query); what every call would meet fails every call until the next look.
    package func checkReadiness() async throws {
        do {
            try await call("answer") { try await $0.checkReadiness() }
        } catch let error as StoreError where Self.failsEveryCall(error) {
            shared.state.withLock { $0.unusable = error }
            throw error
        }
    }

    package func integrityCheck() async throws -> String { try await call("check integrity") { try await $0.integrityCheck() } }
    package func bridgeActivity() async throws -> [BridgeActivity] {
        try await call("summarise bridges") { try await $0.bridgeActivity() }
    }

    package func upsertBridges(_ bridges: [BridgeInfoDTO]) async throws {
        try await call("save bridges") { try await $0.upsertBridges(bridges) }
    }

    package func bridges() async throws -> [BridgeInfoDTO] { try await call("read bridges") { try await $0.bridges() } }

    package func upsertEvents(_ events: [BridgeEventDTO]) async throws -> UpsertCounts {
        try await call("save events") { try await $0.upsertEvents(events) }
    }

    package func events(matching query: EventQuery) async throws -> [BridgeEventDTO] {
        try await call("read events") { try await $0.events(matching: query) }
    }

    package func eventCount(bridgeID: String?) async throws -> Int {
        try await call("count events") { try await $0.eventCount(bridgeID: bridgeID) }
    }

    package func latestOpening() async throws -> Date? { try await call("read the latest opening") { try await $0.latestOpening() } }

    package func deleteEvents(openedBefore cutoff: Date) async throws -> Int {
        try await call("delete events") { try await $0.deleteEvents(openedBefore: cutoff) }
    }

    package func foldOpeningRecords<State: Sendable>(
        bridgeIDs: [String]?, into initial: State, _ update: @escaping @Sendable (inout State, [OpeningRecordDTO]) throws -> Void
    ) async throws -> State {
        try callGuard.checkAvailable()
        return try await callGuard.run("read the history") { advanced in
            try await self.storeToCall().foldOpeningRecords(bridgeIDs: bridgeIDs, into: initial) { state, page in
                advanced()
                try update(&state, page)
            }
        }
    }

    package func historyVersion() async throws -> Int64 { try await call("read the history version") { try await $0.historyVersion() } }

    package func upsertEvents(_ events: [BridgeEventDTO], checkpoint: ImportCheckpoint?) async throws -> UpsertCounts {
        try await call("save events") { try await $0.upsertEvents(events, checkpoint: checkpoint) }
    }

    package func importCheckpoint(source: String) async throws -> ImportCheckpoint? {
        try await call("read an import checkpoint") { try await $0.importCheckpoint(source: source) }
    }

    package func removeImportCheckpoint(source: String) async throws {
        try await call("remove an import checkpoint") { try await $0.removeImportCheckpoint(source: source) }
    }

    package func startSyncRun(provider: String, startedAt: Date, watermarkBefore: Date?) async throws -> Int64 {
        try await call("record a sync run") {
            try await $0.startSyncRun(provider: provider, startedAt: startedAt, watermarkBefore: watermarkBefore)
        }
    }

    package func finishSyncRun(_ record: SyncRunRecord) async throws {
        try await call("record a sync run") { try await $0.finishSyncRun(record) }
    }

    package func syncRuns(limit: Int) async throws -> [SyncRunRecord] {
        try await call("read sync runs") { try await $0.syncRuns(limit: limit) }
    }

    package func lastSucceededRun(provider: String) async throws -> SyncRunRecord? {
        try await call("read sync runs") { try await $0.lastSucceededRun(provider: provider) }
    }

    package func saveOpeningModels(_ models: [OpeningModelDTO]) async throws {
        try await call("save opening models") { try await $0.saveOpeningModels(models) }
    }

    package func openingModels(bridgeIDs: [String]) async throws -> [OpeningModelDTO] {
        try await call("read opening models") { try await $0.openingModels(bridgeIDs: bridgeIDs) }
    }

    package func saveRoute(_ route: RouteDTO) async throws { try await call("save a route") { try await $0.saveRoute(route) } }
    package func routes() async throws -> [RouteDTO] { try await call("read routes") { try await $0.routes() } }
    package func removeRoute(named name: String) async throws -> Bool {
        try await call("remove a route") { try await $0.removeRoute(named: name) }
    }

    package func upsertTrafficFlows(_ flows: [TrafficFlowDTO]) async throws {
        try await call("save traffic flows") { try await $0.upsertTrafficFlows(flows) }
    }

    package func trafficFlows(bridgeID: String) async throws -> [TrafficFlowDTO] {
        try await call("read traffic flows") { try await $0.trafficFlows(bridgeID: bridgeID) }
    }

    package func keepAnswer(_ body: Data, named name: String, historyVersion: Int64) async throws {
        try await call("keep an answer") { try await $0.keepAnswer(body, named: name, historyVersion: historyVersion) }
    }

    package func keptAnswer(named name: String) async throws -> KeptAnswer? {
        try await call("read a kept answer") { try await $0.keptAnswer(named: name) }
    }

    /// The sync lock is held for a whole sync: no deadline, whatever the store's.
    package func withSyncLock<T: Sendable>(holder: String, _ body: @Sendable () async throws -> T) async throws -> T {
        try callGuard.checkAvailable()
        return try await storeToCall().withSyncLock(holder: holder, body)
    }
}

// MARK: ChangeLogStore, AlertStore

extension ReopeningStore {
    package func changes(after sequence: Int64, bridgeIDs: [String]?, limit: Int) async throws -> [ChangeLogEntryDTO] {
        try await call("read the change log") { try await $0.changes(after: sequence, bridgeIDs: bridgeIDs, limit: limit) }
    }

    package func changeLogBounds() async throws -> ChangeLogBounds {
        try await call("read the change log") { try await $0.changeLogBounds() }
    }

    /// The wake-ups of the store open now. A store reopened later (its file replaced) is a new log, which readers
    /// meet through their timer's reads, as they meet every reopening.
    package func changeWakeups() -> AsyncStream<Void> { shared.state.withLock { $0.store }.changeWakeups() }

    package func pruneChanges(recordedBefore cutoff: Date) async throws -> Int {
        try await call("prune the change log") { try await $0.pruneChanges(recordedBefore: cutoff) }
    }

    package func withdrawAnnouncements(bridgeIDs: [String], keeping current: Set<String>) async throws -> Int {
        try await call("withdraw announcements") {
            try await $0.withdrawAnnouncements(bridgeIDs: bridgeIDs, keeping: current)
        }
    }

    package func saveAlert(_ rule: AlertRuleDTO, maximum: Int) async throws -> AlertSaveResult {
        try await call("save an alert") { try await $0.saveAlert(rule, maximum: maximum) }
    }

    package func pruneAlertMessages(finishedBefore cutoff: Date) async throws -> Int {
        try await call("prune the alert outbox") { try await $0.pruneAlertMessages(finishedBefore: cutoff) }
    }

    package func alerts() async throws -> [AlertRuleDTO] { try await call("read alerts") { try await $0.alerts() } }

    package func removeAlert(named name: String) async throws -> Bool {
        try await call("remove an alert") { try await $0.removeAlert(named: name) }
    }

    package func enqueueAlertMessage(_ message: AlertMessageDTO, at now: Date) async throws -> Bool {
        try await call("enqueue an alert message") { try await $0.enqueueAlertMessage(message, at: now) }
    }

    package func claimDueMessages(holder: String, now: Date, leaseUntil: Date, limit: Int) async throws
        -> [AlertOutboxEntryDTO]
    {
        try await call("claim alert messages") {
            try await $0.claimDueMessages(holder: holder, now: now, leaseUntil: leaseUntil, limit: limit)
        }
    }

    package func claimMessage(eventID: String, holder: String, now: Date, leaseUntil: Date) async throws
        -> AlertOutboxEntryDTO?
    {
        try await call("claim an alert message") {
            try await $0.claimMessage(eventID: eventID, holder: holder, now: now, leaseUntil: leaseUntil)
        }
    }

    package func recordAttempt(outboxID: Int64, holder: String, at: Date, outcome: AlertAttemptOutcome) async throws {
        try await call("record an alert attempt") {
            try await $0.recordAttempt(outboxID: outboxID, holder: holder, at: at, outcome: outcome)
        }
    }

    package func outboxMessages(alert: String?, limit: Int) async throws -> [AlertOutboxEntryDTO] {
        try await call("read the alert outbox") { try await $0.outboxMessages(alert: alert, limit: limit) }
    }

    package func alertAttempts(alert: String?, limit: Int) async throws -> [AlertAttemptDTO] {
        try await call("read alert attempts") { try await $0.alertAttempts(alert: alert, limit: limit) }
    }

    package func liveFeedState() async throws -> LiveFeedState? {
        try await call("read the live state") { try await $0.liveFeedState() }
    }

    package func claimLiveFeed(holder: String, now: Date, until: Date) async throws -> LiveFeedLease {
        try await call("claim the live state feed") { try await $0.claimLiveFeed(holder: holder, now: now, until: until) }
    }

    package func saveLiveFeed(_ state: LiveFeedState, events: [BridgeEventDTO], holder: String, now: Date) async throws
        -> UpsertCounts
    {
        try await call("save the live state") {
            try await $0.saveLiveFeed(state, events: events, holder: holder, now: now)
        }
    }

    package func releaseLiveFeed(holder: String) async throws {
        try await call("release the live state feed") { try await $0.releaseLiveFeed(holder: holder) }
    }

    package func recordedSource() async throws -> RecordedSource? {
        try await call("read the store's source") { try await $0.recordedSource() }
    }

    package func claimSource(_ identity: SourceIdentity, at now: Date) async throws -> SourceClaim {
        try await call("record the store's source") { try await $0.claimSource(identity, at: now) }
    }
}
