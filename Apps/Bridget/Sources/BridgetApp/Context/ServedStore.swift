import BridgetDTOs
import BridgetPersistence
import Foundation
import Synchronization

/// The store as a long-running process serves it (`bridget serve`, `bridget watch`): the configured store, with
///
/// - **a deadline on every call** (`deadline`): a store that does not answer in time is `StoreError.timedOut`, which
///   the server answers 503 with `Retry-After`, instead of a request that hangs as long as a database's connection
///   attempts. A fold of the whole history may take longer as long as pages keep coming: its deadline is between
///   pages. The call itself is cancelled and left to end on its own;
/// - **a short cool-down** after the store was found down (timed out, unreachable): for `coolDown`, calls fail at once
///   with that error instead of each waiting out the deadline, so an outage under load answers in milliseconds and
///   does not pile up waiting calls; the first call after it tries the store again, so it recovers by itself;
/// - **its file reopened** when another file replaced it or it was deleted and made again (`bridget sync` into a new
///   file, a restore): looked at, at most once a `recheck`, before a call.
///
/// Without a deadline (the refresher's syncs, which may take long) it only reopens.
package final class ServedStore: BridgeStore, Sendable {
    /// What every `ServedStore` of one opened store shares (the handlers' and the refresher's): the store calls go to,
    /// and when its file was last looked at.
    private final class Shared: Sendable {
        struct State {
            var store: any BridgeStore
            /// How many times the store was reopened.
            var generation = 0
            var checkedAt: ContinuousClock.Instant = .now
            /// What the last look found that every call would meet (a deleted file), until the next look.
            var unusable: (any Error)?
        }

        let state: Mutex<State>

        init(store: any BridgeStore) { state = Mutex(State(store: store)) }
    }

    /// Since when, and with what error, calls fail at once.
    private struct Down {
        var until: ContinuousClock.Instant
        var error: any Error
    }

    private let open: @Sendable () async throws -> any BridgeStore
    private let shared: Shared
    private let down = Mutex<Down?>(nil)
    /// The longest a call may take (between two pages, for a fold); `nil` for none.
    package let deadline: Duration?
    package let coolDown: Duration
    package let recheck: Duration
    /// How the store is named in errors.
    package let name: String
    private let note: @Sendable (String) -> Void

    /// A served store over `store`, which `open` opens again when its file is replaced.
    package convenience init(store: any BridgeStore, name: String, deadline: Duration?, coolDown: Duration = .seconds(1),
                             recheck: Duration = .seconds(1), note: @escaping @Sendable (String) -> Void = { _ in },
                             open: @escaping @Sendable () async throws -> any BridgeStore) {
        self.init(shared: Shared(store: store), name: name, deadline: deadline, coolDown: coolDown, recheck: recheck,
                  note: note, open: open)
    }

    private init(shared: Shared, name: String, deadline: Duration?, coolDown: Duration, recheck: Duration,
                 note: @escaping @Sendable (String) -> Void, open: @escaping @Sendable () async throws -> any BridgeStore) {
        self.shared = shared
        self.open = open
        self.deadline = deadline
        self.coolDown = coolDown
        self.recheck = recheck
        self.name = name
        self.note = note
    }

    /// The same store, with another deadline (the refresher's: none); a reopen by either is seen by both, a cool-down
    /// is each one's own.
    package func withDeadline(_ deadline: Duration?) -> ServedStore {
        ServedStore(shared: shared, name: name, deadline: deadline, coolDown: coolDown, recheck: recheck, note: note,
                    open: open)
    }

    /// The store calls go to now.
    package var current: any BridgeStore { shared.state.withLock { $0.store } }

    /// How many times the store was reopened: answers kept from one generation are not another's (two files can have
    /// the same history version).
    package var generation: Int { shared.state.withLock { $0.generation } }

    // MARK: The one path of every call

    /// Runs `body` on the current store, reopened first if its file was replaced, all under the deadline.
    private func call<T: Sendable>(_ action: String, _ body: @escaping @Sendable (any BridgeStore) async throws -> T)
        async throws -> T
    {
        try checkCoolingDown()
        do {
            guard let deadline else { return try await body(try await storeToCall()) }
            return try await Deadline.within(deadline, progress: nil, timeout: timeout(action, deadline)) {
                try await body(try await self.storeToCall())
            }
        } catch {
            markDownIfUnavailable(error)
            throw error
        }
    }

    /// Throws the error that found the store down, while it cools down.
    private func checkCoolingDown() throws {
        if let down = down.withLock({ $0 }), ContinuousClock.now < down.until { throw down.error }
    }

    /// Throws what is already known to fail every call (the store cooling down after an outage, its file gone or
    /// damaged at the last look), without calling it: answers kept in memory are not served from a store that is no
    /// longer there.
    package func checkKnownProblems() throws {
        try checkCoolingDown()
        let now = ContinuousClock.now
        let recheck = self.recheck
        // Once the next look is due, the call goes ahead to take it (the file may be back).
        if let unusable = shared.state.withLock({ now - $0.checkedAt < recheck ? $0.unusable : nil }) { throw unusable }
    }

    /// The store to call: reopened when its file was replaced; an error when the last look found it unusable.
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
            guard Self.failsEveryCall.contains(error.code) else { return store }
            shared.state.withLock { $0.unusable = error }
            throw error
        } catch {
            return store // the call meets it too, and says what it is
        }
    }

    /// What a readiness look can find that every call would meet.
    private static let failsEveryCall: Set<String> = [
        "store.replaced", "store.corrupt", "store.not-sqlite", "store.missing", "store.unreadable", "store.io",
    ]

    private func timeout(_ action: String, _ deadline: Duration) -> @Sendable () -> any Error {
        let name = self.name
        return {
            let seconds = Double(deadline.components.seconds) + Double(deadline.components.attoseconds) / 1e18
            return StoreError.timedOut(store: name, action: action, seconds: seconds)
        }
    }

    /// After a call found the store down (it did not answer, or cannot be reached), calls fail at once for
    /// `coolDown`.
    private func markDownIfUnavailable(_ error: any Error) {
        guard let code = ErrorPresentation(error)?.code,
              ["store.timeout", "store.unreachable", "store.unavailable"].contains(code)
        else { return }
        let until = ContinuousClock.now + coolDown
        down.withLock { $0 = Down(until: until, error: error) }
    }

    // MARK: BridgeStore

    package var isReadOnly: Bool { current.isReadOnly }

    /// Looks at the store now (its file, a query); what every call would meet fails every call until the next look.
    package func checkReadiness() async throws {
        do {
            try await call("answer") { try await $0.checkReadiness() }
        } catch let error as StoreError where Self.failsEveryCall.contains(error.code) {
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
        try checkCoolingDown()
        guard let deadline else {
            return try await storeToCall().foldOpeningRecords(bridgeIDs: bridgeIDs, into: initial, update)
        }
        let progress = ProgressMark()
        do {
            return try await Deadline.within(deadline, progress: progress, timeout: timeout("read the history", deadline)) {
                try await self.storeToCall().foldOpeningRecords(bridgeIDs: bridgeIDs, into: initial) { state, page in
                    progress.advance()
                    try update(&state, page)
                }
            }
        } catch {
            markDownIfUnavailable(error)
            throw error
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
        try checkCoolingDown()
        return try await storeToCall().withSyncLock(holder: holder, body)
    }
}

// MARK: ChangeLogStore, AlertStore

extension ServedStore {
    package func changes(after sequence: Int64, bridgeIDs: [String]?, limit: Int) async throws -> [ChangeLogEntryDTO] {
        try await call("read the change log") { try await $0.changes(after: sequence, bridgeIDs: bridgeIDs, limit: limit) }
    }

    package func changeLogBounds() async throws -> ChangeLogBounds {
        try await call("read the change log") { try await $0.changeLogBounds() }
    }

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
}
