import BridgetDTOs
import Foundation
import Synchronization

/// A store that keeps everything in memory, for tests and throw-away runs; same guarantees as the SQLite store.
public actor InMemoryBridgeStore: BridgeStore {
    private var bridgesByID: [String: BridgeInfoDTO] = [:]
    private var eventsByKey: [EventKey: BridgeEventDTO] = [:]
    private var runs: [SyncRunRecord] = []
    private var models: [String: OpeningModelDTO] = [:]
    private var storedRoutes: [String: RouteDTO] = [:]
    private var flows: [String: [Date: TrafficFlowDTO]] = [:]
    private var version: Int64 = 0
    private var checkpoints: [String: ImportCheckpoint] = [:]
    private var keptAnswers: [String: KeptAnswer] = [:]
    private var changeLog: [ChangeLogEntryDTO] = []
    private var newestChange: Int64 = 0
    private var alertRules: [String: AlertRuleDTO] = [:]
    private var outbox: [OutboxMessage] = []
    private var attempts: [AlertAttemptDTO] = []
    /// The outbox's last number given (pruning never gives one again).
    private var lastOutboxID: Int64 = 0
    /// Who holds the sync lock, if anyone: a lock of this process, as the store lives in it.
    private let syncLockHolder = Mutex<String?>(nil)
    private var liveState: LiveFeedState?
    private var liveLease: LiveFeedLease?
    private var source: RecordedSource?

    /// Creates an empty store.
    public init() {}

    public func upsertBridges(_ bridges: [BridgeInfoDTO]) {
        for bridge in bridges { bridgesByID[bridge.id] = bridge }
    }

    public func bridges() -> [BridgeInfoDTO] { BridgeCatalog(bridges: Array(bridgesByID.values)).bridges }

    public func upsertEvents(_ events: [BridgeEventDTO], checkpoint: ImportCheckpoint?) throws -> UpsertCounts {
        // Check the whole batch first, so a bad batch changes nothing (the SQLite store's foreign key does the same).
        if let orphan = events.first(where: { bridgesByID[$0.bridgeID] == nil }) {
            throw StoreError.orphan(.event, bridgeID: orphan.bridgeID)
        }
        var counts = UpsertCounts()
        let logged = newestChange
        let now = Date()
        var tally = BulkChangeTally(now: now)
        /// Logs a change, or tallies it for the write's summary (`BulkChangeTally`).
        func log(_ kind: OpeningChangeKind, _ event: BridgeEventDTO) {
            if tally.isItemized(kind, status: event.status, openedAt: event.openedAt, closedAt: event.closedAt) {
                return self.log(kind, event, at: now)
            }
            switch tally.add(kind, bridgeID: event.bridgeID, openedAt: event.openedAt) {
            case .logEntry:
                self.log(kind, event, at: now)
                tally.logged(newestChange)
            case .retract(let sequences):
                let retracted = Set(sequences)
                changeLog.removeAll { retracted.contains($0.sequence) }
            case .tallied: break
            }
        }
        for event in events {
            var replaced = false
            if event.status == .live, eventsByKey.values.contains(where: { stored in
                stored.bridgeID == event.bridgeID && stored.status == .observed && stored.recordID == nil
                    && LiveMatch.matches(published: (stored.openedAt, stored.closedAt),
                                         live: (event.openedAt, event.closedAt))
            }) {
                counts.unchanged += 1
                continue
            }
            if event.status == .observed, event.recordID == nil {
                // A scan: this store is for tests and small runs.
                let matched = eventsByKey.values.filter { stored in
                    stored.bridgeID == event.bridgeID && stored.status == .live
                        && LiveMatch.matches(published: (event.openedAt, event.closedAt),
                                             live: (stored.openedAt, stored.closedAt))
                }
                for live in matched { eventsByKey[live.key] = nil }
                replaced = !matched.isEmpty
            }
            if let recordID = event.recordID {
                // A scan: only records (never Socrata's rows) take it, and this store is for tests and small runs.
                let earlier = eventsByKey.values.filter { $0.recordID == recordID }
                if earlier.contains(where: { Self.isNewer($0.recordVersion, than: event.recordVersion) }) {
                    counts.unchanged += 1
                    continue
                }
                for stale in earlier where stale.key != event.key {
                    eventsByKey[stale.key] = nil
                    replaced = true
                }
            }
            switch eventsByKey[event.key] {
            case nil where replaced: // a record's opening moved: one opening, changed
                counts.updated += 1
                log(.replaced, event)
            case nil:
                counts.inserted += 1
                log(event.status == .planned ? .announced : .new, event)
            case let existing? where existing == event && !replaced: counts.unchanged += 1
            case let existing?:
                counts.updated += 1
                if replaced || (event.recordID != nil && existing.recordVersion != event.recordVersion) {
                    log(.replaced, event)
                } else if existing.closedAt == nil && event.closedAt != nil {
                    log(.closed, event)
                } else {
                    log(.updated, event)
                }
            }
            eventsByKey[event.key] = event
        }
        if counts.inserted + counts.updated > 0 {
            version += 1
            if tally.summarises, let summary = try? StoredBulkChange.entry(
                json: try tally.stored(historyVersion: version).json(), sequence: newestChange + 1, recordedAt: now) {
                newestChange += 1
                changeLog.append(.bulk(summary))
            }
            enqueueAlerts(changesAfter: logged)
        }
        if var checkpoint {
            checkpoint.counts = checkpoint.counts + counts
            checkpoints[checkpoint.source] = checkpoint
        }
        return counts
    }

    /// Whether a stored record version beats an incoming one: a higher number, or any number against none.
    private static func isNewer(_ stored: Int?, than incoming: Int?) -> Bool {
        guard let stored else { return false }
        guard let incoming else { return true }
        return stored > incoming
    }

    public func importCheckpoint(source: String) -> ImportCheckpoint? { checkpoints[source] }

    public func removeImportCheckpoint(source: String) { checkpoints[source] = nil }

    public func events(matching query: EventQuery) -> [BridgeEventDTO] {
        var matches = eventsByKey.values.filter { event in
            (query.bridgeID.map { event.bridgeID == $0 } ?? true)
                && (query.status.map { event.status == $0 } ?? (!query.happened || event.status.happened))
                && (query.openedFrom.map { event.openedAt >= $0 } ?? true)
                && (query.openedBefore.map { event.openedAt < $0 } ?? true)
        }
        matches.sort { $0.key < $1.key }
        if query.newestFirst { matches.reverse() }
        if let after = query.after {
            matches.removeAll { query.newestFirst ? !($0.key < after) : !(after < $0.key) }
        }
        if let limit = query.limit { matches = Array(matches.prefix(max(limit, 0))) }
        return matches
    }

    public func eventCount(bridgeID: String?) -> Int {
        guard let bridgeID else { return eventsByKey.count }
        return eventsByKey.values.count { $0.bridgeID == bridgeID }
    }

    public func latestOpening() -> Date? { eventsByKey.keys.map(\.openedAt).max() }

    public func bridgeActivity() -> [BridgeActivity] {
        bridges().map { bridge in
            let openings = eventsByKey.values.filter { $0.bridgeID == bridge.id }
            return BridgeActivity(bridge: bridge, openings: openings.count, lastOpening: openings.map(\.openedAt).max())
        }
    }

    public func deleteEvents(openedBefore cutoff: Date) -> Int {
        let doomed = eventsByKey.keys.filter { $0.openedAt < cutoff }
        for key in doomed { eventsByKey[key] = nil }
        if !doomed.isEmpty { version += 1 }
        return doomed.count
    }

    public func startSyncRun(provider: String, startedAt: Date, watermarkBefore: Date?) -> Int64 {
        let id = Int64(runs.count + 1)
        runs.append(SyncRunRecord(id: id, provider: provider, startedAt: startedAt, watermarkBefore: watermarkBefore))
        return id
    }

    public func finishSyncRun(_ record: SyncRunRecord) throws {
        guard let index = runs.firstIndex(where: { $0.id == record.id }) else {
            throw StoreError.noSyncRun(id: record.id)
        }
        runs[index] = record
    }

    public func syncRuns(limit: Int) -> [SyncRunRecord] { Array(runs.reversed().prefix(max(limit, 0))) }

    public func lastSucceededRun(provider: String) -> SyncRunRecord? {
        runs.last { $0.provider == provider && $0.status == .succeeded }
    }

    public func saveOpeningModels(_ models: [OpeningModelDTO]) throws {
        if let orphan = models.first(where: { bridgesByID[$0.bridgeID] == nil }) {
            throw StoreError.orphan(.model, bridgeID: orphan.bridgeID)
        }
        self.models = Dictionary(uniqueKeysWithValues: models.map { ($0.bridgeID, $0) })
    }

    public func openingModels(bridgeIDs: [String]) -> [OpeningModelDTO] {
        Set(bridgeIDs).sorted().compactMap { models[$0] }
    }

    public func saveRoute(_ route: RouteDTO) { storedRoutes[route.id] = route }

    public func routes() -> [RouteDTO] {
        storedRoutes.values.sorted { ($0.isFavorite ? 0 : 1, $0.id) < ($1.isFavorite ? 0 : 1, $1.id) }
    }

    public func removeRoute(named name: String) -> Bool { storedRoutes.removeValue(forKey: name) != nil }

    public func historyVersion() -> Int64 { version }

    public func keepAnswer(_ body: Data, named name: String, historyVersion: Int64) {
        keptAnswers[name] = KeptAnswer(historyVersion: historyVersion, body: body)
    }

    public func keptAnswer(named name: String) -> KeptAnswer? { keptAnswers[name] }

    public func foldOpeningRecords<State: Sendable>(
        bridgeIDs: [String]?, into initial: State,
        _ update: @escaping @Sendable (inout State, [OpeningRecordDTO]) throws -> Void
    ) throws -> State {
        let wanted = bridgeIDs.map(Set.init)
        let records = eventsByKey.values
            .filter { $0.status.happened && wanted?.contains($0.bridgeID) ?? true }
            .sorted { ($0.bridgeID, $0.openedAt) < ($1.bridgeID, $1.openedAt) }.compactMap(OpeningRecordDTO.init)
        var pages = OpeningRecordPages(into: initial, update)
        for record in records { try pages.append(record) }
        return try pages.finish()
    }

    public func upsertTrafficFlows(_ flows: [TrafficFlowDTO]) throws {
        if let orphan = flows.first(where: { bridgesByID[$0.bridgeID] == nil }) {
            throw StoreError.orphan(.traffic, bridgeID: orphan.bridgeID)
        }
        for flow in flows { self.flows[flow.bridgeID, default: [:]][flow.timestamp] = flow }
    }

    public func trafficFlows(bridgeID: String) -> [TrafficFlowDTO] {
        (flows[bridgeID] ?? [:]).values.sorted { $0.timestamp < $1.timestamp }
    }

    public func integrityCheck() -> String {
        let orphans = eventsByKey.values.filter { bridgesByID[$0.bridgeID] == nil }.count
        return orphans == 0 ? "ok" : "\(orphans) events name an unknown bridge"
    }

    /// Runs `body` holding the store's sync lock, a lock in this process (the store lives only in it); throws
    /// `SyncInProgress` naming the holder when another call holds it.
    public nonisolated func withSyncLock<T: Sendable>(holder: String, _ body: @Sendable () async throws -> T)
        async throws -> T
    {
        let other: String? = syncLockHolder.withLock { held in
            if let held { return held }
            held = holder
            return nil
        }
        if let other { throw SyncInProgress(holder: other) }
        defer { syncLockHolder.withLock { $0 = nil } }
        return try await body()
    }
}

// The change log and alerts.
extension InMemoryBridgeStore {
    private func log(_ kind: OpeningChangeKind, _ event: BridgeEventDTO, at now: Date = Date()) {
        newestChange += 1
        changeLog.append(.opening(OpeningChangeDTO(
            sequence: newestChange, recordedAt: now, kind: kind, bridgeID: event.bridgeID, openedAt: event.openedAt,
            closedAt: event.closedAt, status: event.status, recordID: event.recordID, recordVersion: event.recordVersion)))
    }

    public func changes(after sequence: Int64, bridgeIDs: [String]?, limit: Int) -> [ChangeLogEntryDTO] {
        Array(changeLog.lazy.filter { entry in
            entry.sequence > sequence && (bridgeIDs.map { wanted in entry.bridgeIDs.contains(where: wanted.contains) } ?? true)
        }.prefix(max(limit, 0)))
    }

    public func changeLogBounds() -> ChangeLogBounds {
        ChangeLogBounds(oldest: changeLog.first?.sequence, newest: newestChange)
    }

    public func pruneChanges(recordedBefore cutoff: Date) -> Int {
        let before = changeLog.count
        let newest = changeLog.last?.sequence
        changeLog.removeAll { $0.recordedAt < cutoff && $0.sequence != newest }
        return before - changeLog.count
    }

    public func withdrawAnnouncements(bridgeIDs: [String], keeping current: Set<String>) -> Int {
        let logged = newestChange
        let doomed = eventsByKey.values.filter { event in
            event.status == .planned && bridgeIDs.contains(event.bridgeID)
                && event.recordID.map { !current.contains($0) } ?? false
        }.sorted { $0.key < $1.key }
        for event in doomed {
            eventsByKey[event.key] = nil
            log(.withdrawn, event)
        }
        if !doomed.isEmpty {
            version += 1
            enqueueAlerts(changesAfter: logged)
        }
        return doomed.count
    }

    private func enqueueAlerts(changesAfter sequence: Int64) {
        guard !alertRules.isEmpty else { return }
        let now = Date()
        for entry in changeLog where entry.sequence > sequence {
            guard let change = entry.opening else { continue } // a summary pages nobody
            for rule in alertRules.values.sorted(by: { $0.name < $1.name }) where rule.isTriggered(by: change, at: now) {
                let name = bridgesByID[change.bridgeID]?.displayName ?? change.bridgeID
                _ = insert(AlertMessageDTO(alert: rule.name, change: change, bridgeName: name, createdAt: now), at: now)
            }
        }
    }

    private func insert(_ message: AlertMessageDTO, at now: Date) -> Bool {
        guard !outbox.contains(where: { $0.entry.eventID == message.id }), let body = try? message.jsonBody() else {
            return false
        }
        lastOutboxID += 1
        let id = lastOutboxID
        outbox.append(OutboxMessage(entry: AlertOutboxEntryDTO(
            id: id, eventID: message.id, alert: message.alert, createdAt: now, body: body, state: .pending, attempts: 0,
            nextAttemptAt: now)))
        return true
    }

    public func saveAlert(_ rule: AlertRuleDTO, maximum: Int) -> AlertSaveResult {
        let exists = alertRules[rule.name] != nil
        guard exists || alertRules.count < maximum else { return .refused(count: alertRules.count) }
        alertRules[rule.name] = rule
        return exists ? .replaced : .created
    }

    public func pruneAlertMessages(finishedBefore cutoff: Date) -> Int {
        let gone = Set(outbox.filter { $0.entry.state != .pending && $0.entry.nextAttemptAt < cutoff }.map(\.entry.id))
        outbox.removeAll { gone.contains($0.entry.id) }
        attempts.removeAll { gone.contains($0.outboxID) }
        return gone.count
    }

    public func alerts() -> [AlertRuleDTO] { alertRules.values.sorted { $0.name < $1.name } }

    public func removeAlert(named name: String) -> Bool { alertRules.removeValue(forKey: name) != nil }

    public func enqueueAlertMessage(_ message: AlertMessageDTO, at now: Date) -> Bool { insert(message, at: now) }

    public func claimDueMessages(holder: String, now: Date, leaseUntil: Date, limit: Int) -> [AlertOutboxEntryDTO] {
        var claimed: [AlertOutboxEntryDTO] = []
        let due = outbox.indices.filter { index in
            outbox[index].entry.state == .pending && outbox[index].entry.nextAttemptAt <= now
                && (outbox[index].leaseUntil.map { $0 <= now } ?? true)
        }.sorted { (outbox[$0].entry.nextAttemptAt, $0) < (outbox[$1].entry.nextAttemptAt, $1) }
        for index in due.prefix(max(limit, 0)) {
            outbox[index].leaseUntil = leaseUntil
            claimed.append(outbox[index].entry)
        }
        return claimed.sorted { $0.id < $1.id }
    }

    public func claimMessage(eventID: String, holder: String, now: Date, leaseUntil: Date) -> AlertOutboxEntryDTO? {
        guard let index = outbox.firstIndex(where: { $0.entry.eventID == eventID }), outbox[index].entry.state == .pending,
              outbox[index].leaseUntil.map({ $0 <= now }) ?? true
        else { return nil }
        outbox[index].leaseUntil = leaseUntil
        return outbox[index].entry
    }

    public func recordAttempt(outboxID: Int64, holder: String, at: Date, outcome: AlertAttemptOutcome) throws {
        _ = try StoredInstant.seconds(at, "the attempt's time")
        if case .retry(_, _, let next) = outcome { _ = try StoredInstant.seconds(next, "the next attempt's time") }
        guard let index = outbox.firstIndex(where: { $0.entry.id == outboxID }) else { return }
        let entry = outbox[index].entry
        let (state, next, status, detail): (AlertDeliveryState, Date, Int?, String?) = switch outcome {
        case .delivered(let status): (.delivered, at, status, nil)
        case .retry(let status, let detail, let next): (.pending, next, status, detail)
        case .gone(let status): (.gone, at, status, nil)
        case .expired(let detail): (.expired, at, nil, detail)
        }
        outbox[index] = OutboxMessage(entry: AlertOutboxEntryDTO(
            id: entry.id, eventID: entry.eventID, alert: entry.alert, createdAt: entry.createdAt, body: entry.body,
            state: entry.state == .delivered ? .delivered : state, attempts: entry.attempts + 1, nextAttemptAt: next))
        let number = attempts.count { $0.outboxID == outboxID } + 1
        attempts.append(AlertAttemptDTO(outboxID: outboxID, eventID: entry.eventID, alert: entry.alert, attempt: number,
                                        at: at, holder: holder, outcome: outcome.name, httpStatus: status,
                                        detail: detail))
        if case .gone(let status) = outcome, alertRules[entry.alert]?.disabled == nil {
            alertRules[entry.alert]?.disabled = AlertDisabling(reason: AlertRuleDTO.goneReason(httpStatus: status), at: at)
        }
    }

    public func outboxMessages(alert: String?, limit: Int) -> [AlertOutboxEntryDTO] {
        Array(outbox.reversed().map(\.entry).filter { alert == nil || $0.alert == alert }.prefix(max(limit, 0)))
    }

    public func alertAttempts(alert: String?, limit: Int) -> [AlertAttemptDTO] {
        Array(attempts.reversed().filter { alert == nil || $0.alert == alert }.prefix(max(limit, 0)))
    }
}

/// A message in the in-memory outbox with its lease.
private struct OutboxMessage {
    var entry: AlertOutboxEntryDTO
    var leaseUntil: Date?
}

extension InMemoryBridgeStore: LiveStateStore {
    public func liveFeedState() -> LiveFeedState? { liveState }

    public func claimLiveFeed(holder: String, now: Date, until: Date) -> LiveFeedLease {
        if let lease = liveLease, lease.holder != holder, lease.until >= now { return lease }
        let lease = LiveFeedLease(holder: holder, until: until)
        liveLease = lease
        return lease
    }

    public func saveLiveFeed(_ state: LiveFeedState, events: [BridgeEventDTO], holder: String, now: Date) throws
        -> UpsertCounts
    {
        guard liveLease?.holder == holder else { throw StoreError.notLiveFeedHolder(holder: liveLease?.holder) }
        let counts = try upsertEvents(events, checkpoint: nil)
        liveState = state
        return counts
    }

    public func releaseLiveFeed(holder: String) {
        if liveLease?.holder == holder { liveLease = nil }
    }
}

extension InMemoryBridgeStore: SourceIdentityStore {
    public func recordedSource() -> RecordedSource? { source }

    public func claimSource(_ identity: SourceIdentity, at now: Date) -> SourceClaim {
        if let source { return source.identity == identity ? .same : .other(source) }
        source = RecordedSource(identity: identity, recordedAt: now)
        return eventsByKey.isEmpty ? .recorded : .adopted
    }
}
