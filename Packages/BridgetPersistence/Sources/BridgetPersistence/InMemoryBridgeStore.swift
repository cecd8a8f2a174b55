import BridgetDTOs
import Foundation
import Synchronization

/// A store that keeps everything in memory, for tests and throw-away runs; same guarantees as the SQLite store.
public actor InMemoryBridgeStore: BridgeStore {
    // Those without `private` are read or written by the change log's and alerts' extension as well
    // (InMemoryBridgeStore+ChangeLog.swift).
    var bridgesByID: [String: BridgeInfoDTO] = [:]
    var eventsByKey: [EventKey: BridgeEventDTO] = [:]
    private var runs: [SyncRunRecord] = []
    private var models: [String: OpeningModelDTO] = [:]
    private var storedRoutes: [String: RouteDTO] = [:]
    private var flows: [String: [Date: TrafficFlowDTO]] = [:]
    var version: Int64 = 0
    private var checkpoints: [String: ImportCheckpoint] = [:]
    private var keptAnswers: [String: KeptAnswer] = [:]
    var changeLog: [ChangeLogEntryDTO] = []
    /// The newest change's number: each one logged wakes the log's readers (`changeWakeups()`).
    var newestChange: Int64 = 0 { didSet { bell.ring() } }
    let bell = ChangeBell()
    var alertRules: [String: AlertRuleDTO] = [:]
    var outbox: [OutboxMessage] = []
    var attempts: [AlertAttemptDTO] = []
    /// The outbox's last number given (pruning never gives one again).
    var lastOutboxID: Int64 = 0
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
        for event in events {
            if let kind = store(event, counts: &counts) { logChange(kind, event, tally: &tally, at: now) }
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

    /// Stores `event` as the SQLite store does (a live opening whose published one is stored is left; a published
    /// opening replaces the live ones it matches; a record's version replaces its earlier ones, unless a newer one is
    /// stored), counts it, and returns the change to log (nil: none).
    private func store(_ event: BridgeEventDTO, counts: inout UpsertCounts) -> OpeningChangeKind? {
        var replaced = false
        if event.status == .live, eventsByKey.values.contains(where: { stored in
            stored.bridgeID == event.bridgeID && stored.status == .observed && stored.recordID == nil
                && LiveMatch.matches(published: (stored.openedAt, stored.closedAt),
                                     live: (event.openedAt, event.closedAt))
        }) {
            counts.unchanged += 1
            return nil
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
                return nil
            }
            for stale in earlier where stale.key != event.key {
                eventsByKey[stale.key] = nil
                replaced = true
            }
        }
        let change: OpeningChangeKind?
        switch eventsByKey[event.key] {
        case nil where replaced: // a record's opening moved: one opening, changed
            counts.updated += 1
            change = .replaced
        case nil:
            counts.inserted += 1
            change = event.status == .planned ? .announced : .new
        case let existing? where existing == event && !replaced:
            counts.unchanged += 1
            change = nil
        case let existing?:
            counts.updated += 1
            if replaced || (event.recordID != nil && existing.recordVersion != event.recordVersion) {
                change = .replaced
            } else if existing.closedAt == nil && event.closedAt != nil {
                change = .closed
            } else {
                change = .updated
            }
        }
        eventsByKey[event.key] = event
        return change
    }

    /// Logs a change, or tallies it for the write's summary (`BulkChangeTally`).
    private func logChange(_ kind: OpeningChangeKind, _ event: BridgeEventDTO, tally: inout BulkChangeTally,
                           at now: Date) {
        if tally.isItemized(kind, status: event.status, openedAt: event.openedAt, closedAt: event.closedAt) {
            return log(kind, event, at: now)
        }
        switch tally.add(kind, bridgeID: event.bridgeID, openedAt: event.openedAt) {
        case .logEntry:
            log(kind, event, at: now)
            tally.logged(newestChange)
        case .retract(let sequences):
            let retracted = Set(sequences)
            changeLog.removeAll { retracted.contains($0.sequence) }
        case .tallied: break
        }
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
