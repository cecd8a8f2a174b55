import BridgetAnalysis
import BridgetContext
import BridgetCore
import BridgetDTOs
import BridgetPersistence
import Foundation

/// Which history an answer was computed from: the store's history version, and how many times a long-running process
/// reopened the store (two files can hold the same version).
package struct HistoryKey: Sendable, Hashable {
    package let version: Int64
    package let generation: Int

    package init(version: Int64, generation: Int = 0) {
        self.version = version
        self.generation = generation
    }
}

/// What forecasts, route scores and best times read of one history, in memory: the catalog, and each bridge's current
/// opening model and recent openings (what a forecast cites as evidence) once an answer first needs them. Loaded
/// once per history, then answered without the store.
package final class ForecastBook: Sendable {
    /// The bridges the store keeps (none before the first sync).
    package let storedBridges: [BridgeInfoDTO]
    /// The stored catalog, or the embedded Seattle one before any sync (as names are resolved).
    package let catalog: BridgeCatalog
    /// Whether any opening is stored.
    package let hasHistory: Bool
    /// The latest opening that happened, and the first (read when a forecast first needs it): what a forecast's
    /// evidence can reach.
    private let latestOpening: Date?
    private let firstOpening = Locked<Task<Date?, any Error>?>(nil)
    /// The latest announced opening, if any: a forecast up to it reads what is announced in its window.
    private let latestAnnounced: Date?
    private let context: AppContext
    private let store: any BridgeStore
    /// Whether recent openings are kept for evidence: a server's book, asked again and again; a command's asks the
    /// store for the few it cites.
    private let keepsEvidence: Bool
    /// Each bridge's model, by the load that read it (one load reads every bridge an answer asked for at once).
    private let models = Locked<[String: Task<[String: OpeningModelDTO], any Error>]>([:])
    private let recent = Locked<[String: Task<RecentOpenings?, any Error>]>([:])
    /// The rules, read again after `rulesSeconds` (a deviation added on another host changes no history version).
    private let rules = Locked<(readAt: Date, task: Task<RuleCalendar, any Error>)?>(nil)
    static let rulesSeconds: TimeInterval = 30
    private let forecaster = Locked<(readAt: Date, nowcaster: Nowcaster)?>(nil)
    /// Evidence by moment and window (a server answers many forecasts for the same minute).
    private let evidence = Locked<[String: Task<NowcastEvidence, any Error>]>([:])

    init(context: AppContext, store: any BridgeStore, keepsEvidence: Bool) async throws {
        self.context = context
        self.store = store
        self.keepsEvidence = keepsEvidence
        storedBridges = try await store.bridges()
        catalog = BridgeCatalog(bridges: storedBridges.isEmpty ? BridgeCatalog.seattle.bridges : storedBridges)
        let latest = try await store.latestOpening()
        hasHistory = latest != nil
        // Only a source that announces openings stores planned ones, so elsewhere the latest stored is the latest
        // that happened.
        latestOpening = context.configuration.provider == .ndw && hasHistory
            ? try await store.events(matching: EventQuery(limit: 1, newestFirst: true, happened: true)).first?.openedAt
            : latest
        // Only a source that announces openings stores planned ones (asking another store would scan its events:
        // no index leads to the planned ones).
        latestAnnounced = context.configuration.provider == .ndw
            ? try await store.events(matching: EventQuery(limit: 1, newestFirst: true, status: .planned)).first?.openedAt
            : nil
    }

    /// `bridgeID`'s current model (`nil` when the store has none), read once.
    package func model(_ bridgeID: String) async throws -> OpeningModelDTO? {
        try await models([bridgeID]).first
    }

    /// The current models of `bridgeIDs` that the store has, those not yet read in one read (a model out of date
    /// with the history is rebuilt once for all of them).
    package func models(_ bridgeIDs: some Sequence<String>) async throws -> [OpeningModelDTO] {
        guard hasHistory else { return [] }
        let wanted = Array(Set(bridgeIDs)).sorted()
        let (context, store) = (self.context, self.store)
        let loads: [Task<[String: OpeningModelDTO], any Error>] = models.withLock { models in
            let missing = wanted.filter { models[$0] == nil }
            if !missing.isEmpty {
                let load = Task {
                    let found = try await OpeningModels(context: context, store: store).current(bridgeIDs: missing)
                    return Dictionary(found.map { ($0.bridgeID, $0) }) { first, _ in first }
                }
                for id in missing { models[id] = load }
            }
            var seen: [Task<[String: OpeningModelDTO], any Error>] = []
            // `models[id]!`: every wanted id has a load by now (kept, or set just above).
            for id in wanted where !seen.contains(models[id]!) { seen.append(models[id]!) }
            return seen
        }
        var found: [String: OpeningModelDTO] = [:]
        for load in loads {
            do {
                found.merge(try await load.value) { first, _ in first }
            } catch {
                // Not kept: the next asker reads again (the store may be back).
                models.withLock { models in models = models.filter { $0.value != load } }
                throw error
            }
        }
        return wanted.compactMap { found[$0] }
    }

    /// `bridgeID`'s openings of the weeks a forecast cites (from `evidenceDays` before its model's last day), when
    /// this book keeps them; `nil` otherwise.
    package func recentOpenings(_ bridgeID: String) async throws -> RecentOpenings? {
        guard keepsEvidence, let last = try await model(bridgeID)?.lastDay.flatMap(LocalDay.init) else { return nil }
        let (context, store) = (self.context, self.store)
        return try await Self.once(bridgeID, in: recent) {
            let start = FloatingTimestamp(wallClockSeconds: Int64(last.number - HistoryMemory.evidenceDays) * 86_400)
            let from = context.clock.openingInstant(for: start)
            return RecentOpenings(from: from, events: try await store.events(matching: EventQuery(bridgeID: bridgeID,
                                                                                                  openedFrom: from)))
        }
    }

    /// The history's first opening that happened, read once.
    private func first() async throws -> Date? {
        let store = self.store
        let task = firstOpening.withLock { task -> Task<Date?, any Error> in
            if let task { return task }
            let made = Task { try await store.events(matching: EventQuery(limit: 1, happened: true)).first?.openedAt }
            task = made
            return made
        }
        do {
            return try await task.value
        } catch {
            firstOpening.withLock { if $0 == task { $0 = nil } }
            throw error
        }
    }

    /// The rules forecasts know (`AppContext.ruleCalendar`), read at most every `rulesSeconds`.
    package func ruleCalendar() async throws -> RuleCalendar { try await rulesRead().rules }

    /// The rules and when they were read.
    private func rulesRead() async throws -> (readAt: Date, rules: RuleCalendar) {
        let (context, store, catalog) = (self.context, self.store, self.catalog)
        let now = Date()
        let (readAt, task) = rules.withLock { state -> (Date, Task<RuleCalendar, any Error>) in
            if let state, now.timeIntervalSince(state.readAt) < Self.rulesSeconds { return (state.readAt, state.task) }
            let task = Task { try await context.ruleCalendar(store: store, catalog: catalog) }
            state = (now, task)
            return (now, task)
        }
        do {
            return (readAt, try await task.value)
        } catch {
            rules.withLock { state in if state?.task == task { state = nil } }
            throw error
        }
    }

    /// The forecaster of this history's rules (made again when the rules are read again).
    package func nowcaster() async throws -> Nowcaster {
        let (readAt, rules) = try await rulesRead()
        if let made = forecaster.withLock({ $0 }), made.readAt == readAt { return made.nowcaster }
        // Every bridge's model: the river's links and the openings still to come upstream.
        let made = Nowcaster(rules: rules, catalog: catalog, models: try await models(storedBridges.map(\.id)))
        forecaster.withLock { $0 = (readAt, made) }
        return made
    }

    /// What the store knew before `instant`: every opening of the four hours before it (fragments merged), those open
    /// at it, and those announced in the `windowMinutes` after it. Complete when the history (or the live state
    /// feed, polled lately) reaches `instant`: a moment beyond what is known gets the slots' forecast, not a guess.
    /// Only what started before `instant` is evidence, so a past moment is answered as it would have been then.
    package func evidence(at instant: Date, windowMinutes: Int) async throws -> NowcastEvidence {
        guard hasHistory, let latest = latestOpening else { return .unknown }
        let lookback = instant.addingTimeInterval(-Double(NowcastEvidence.lookbackMinutes) * 60)
        // Past the history's latest opening with no state feed to say what happened since, or before its first two
        // hours: nothing to read (a forecast for next week asks the store nothing).
        let feedOn = context.configuration.provider == .live && context.configuration.live.stateURL != nil
        let reaches = latest >= instant || feedOn
        // Within the lookback of the latest opening, an opening may be under way at the moment (the newest stored,
        // not yet closed then): read, though what came after the latest is not known.
        let nearby = latest >= lookback
        guard reaches || nearby, let first = try await first(), first <= lookback else {
            guard let announced = latestAnnounced, announced >= instant else { return .unknown }
            // What is announced still counts.
            let planned = try await store.events(matching: EventQuery(
                openedFrom: instant, openedBefore: instant.addingTimeInterval(Double(max(windowMinutes, 1)) * 60),
                status: .planned))
            return NowcastEvidence(seen: [], announced: planned.map { ($0.bridgeID, $0.openedAt.timeIntervalSince(instant) / 60) },
                                   isComplete: false)
        }
        let key = "\(Int64(instant.timeIntervalSince1970.rounded(.down))) \(windowMinutes)"
        let (context, store) = (self.context, self.store)
        let task = evidence.withLock { tasks -> Task<NowcastEvidence, any Error> in
            if let task = tasks[key] { return task }
            if tasks.count >= 256 { tasks.removeAll() }
            let task = Task { try await Self.loadEvidence(at: instant, windowMinutes: windowMinutes, latest: latest,
                                                           context: context, store: store) }
            tasks[key] = task
            return task
        }
        do {
            return try await task.value
        } catch {
            evidence.withLock { tasks in if tasks[key] == task { tasks[key] = nil } }
            throw error
        }
    }

    private static func loadEvidence(at instant: Date, windowMinutes: Int, latest: Date?, context: AppContext,
                                     store: any BridgeStore) async throws -> NowcastEvidence
    {
        let lookback = instant.addingTimeInterval(-Double(NowcastEvidence.lookbackMinutes) * 60)
        let events = try await store.events(matching: EventQuery(
            openedFrom: lookback, openedBefore: instant.addingTimeInterval(Double(max(windowMinutes, 1)) * 60)))
        let gap = context.configuration.mergeGap
        var seen: [NowcastEvidence.Seen] = []
        var openFor: [String: Double] = [:]
        var announced: [(bridgeID: String, minutesAhead: Double)] = []
        var lastEnd: [String: Date] = [:]
        for event in events.sorted(by: { ($0.bridgeID, $0.openedAt) < ($1.bridgeID, $1.openedAt) }) {
            if event.status == .planned {
                if event.openedAt >= instant {
                    announced.append((event.bridgeID, event.openedAt.timeIntervalSince(instant) / 60))
                }
                continue
            }
            guard event.status.happened, event.openedAt < instant else { continue }
            // A fragment of the opening before it (closer than the merge gap) is that opening.
            let end = event.closedAt ?? event.openedAt
            if let previous = lastEnd[event.bridgeID], event.openedAt.timeIntervalSince(previous) <= gap {
                lastEnd[event.bridgeID] = max(previous, end)
            } else {
                seen.append(.init(bridgeID: event.bridgeID, minutesAgo: instant.timeIntervalSince(event.openedAt) / 60))
                lastEnd[event.bridgeID] = end
            }
            // Open at the moment: closed after it, or not closed yet (what closed after the moment is not known then).
            if event.closedAt.map({ $0 > instant }) ?? true {
                openFor[event.bridgeID] = instant.timeIntervalSince(event.openedAt) / 60
            }
        }
        return NowcastEvidence(seen: seen, openFor: openFor, announced: announced,
                               isComplete: try await knows(until: instant, latest: latest, context: context, store: store))
    }

    /// Whether what the store holds reaches `instant`: its newest opening is not older, or the live state feed was
    /// polled well lately.
    private static func knows(until instant: Date, latest: Date?, context: AppContext, store: any BridgeStore) async throws
        -> Bool
    {
        if let latest, latest >= instant { return true }
        guard context.configuration.provider == .live, context.configuration.live.stateURL != nil,
              let polled = try await store.liveFeedState()?.lastGoodPollAt else { return false }
        let fresh = LiveStateTracker.Settings(pollSeconds: context.configuration.live.statePollSeconds).unknownAfter
        return polled >= instant.addingTimeInterval(-fresh)
    }

    /// The value of `id` in `tasks`, loaded by the first asker while the others await it; a failed load is not kept.
    private static func once<Value: Sendable>(_ id: String, in tasks: borrowing Locked<[String: Task<Value, any Error>]>,
                                              load: @escaping @Sendable () async throws -> Value) async throws -> Value {
        let task = tasks.withLock { tasks in
            if let task = tasks[id] { return task }
            let task = Task { try await load() }
            tasks[id] = task
            return task
        }
        do {
            return try await task.value
        } catch {
            tasks.withLock { tasks in if tasks[id] == task { tasks[id] = nil } }
            throw error
        }
    }
}

/// A bridge's openings from `from` on, oldest first: every stored one, so a window within them is answered here.
package struct RecentOpenings: Sendable {
    package let from: Date
    package let events: [BridgeEventDTO]

    /// The openings that started in `[start, end)`, oldest first; `nil` when the window begins before `from`.
    package func events(from start: Date, before end: Date) -> [BridgeEventDTO]? {
        guard start >= from else { return nil }
        let first = events.partitioningIndex { $0.openedAt >= start }
        let last = events[first...].partitioningIndex { $0.openedAt >= end }
        return Array(events[first..<last])
    }
}

/// A store's `ForecastBook` for its current history, made once per `HistoryKey` however many requests ask at the same
/// moment (one load, every asker awaiting it); a failed load is not kept. A server shares one, which keeps evidence;
/// a command makes its own, which does not.
package final class HistoryMemory: Sendable {
    private let books = VersionedMemo<ForecastBook>()
    private let keepsEvidence: Bool

    /// `keepsEvidence`: whether each bridge's recent openings are kept for the forecasts that cite them.
    package init(keepsEvidence: Bool = false) { self.keepsEvidence = keepsEvidence }

    /// The book of `key`'s history over `store`.
    package func book(_ key: HistoryKey, context: AppContext, store: any BridgeStore) async throws -> ForecastBook {
        let keepsEvidence = self.keepsEvidence
        return try await books.value(for: key) {
            try await ForecastBook(context: context, store: store, keepsEvidence: keepsEvidence)
        }
    }

    /// How many days before a model's last day a book keeps openings: the five similar slots a forecast cites, and
    /// a week and a day either side for its window.
    static let evidenceDays = 5 * 7 + 8
}

/// Where answers find the book of a store's current history: a memory (a server's shared one, or one of this
/// command's own) and what says which history the store holds now (by default its version, asked each time).
package struct HistoryBooks: Sendable {
    package let context: AppContext
    package let store: any BridgeStore
    package let memory: HistoryMemory
    private let key: @Sendable () async throws -> HistoryKey

    package init(context: AppContext, store: any BridgeStore, memory: HistoryMemory = HistoryMemory(),
                 key: (@Sendable () async throws -> HistoryKey)? = nil) {
        self.context = context
        self.store = store
        self.memory = memory
        self.key = key ?? { HistoryKey(version: try await store.historyVersion()) }
    }

    /// The book of the store's current history.
    package func book() async throws -> ForecastBook {
        try await memory.book(try await key(), context: context, store: store)
    }

    /// The book of the store's current history, or `store-empty` (exit 66) when it holds no opening, so an answer
    /// never says "no model" about a store that has nothing yet.
    package func bookWithHistory(for question: String) async throws -> ForecastBook {
        let book = try await book()
        guard book.hasHistory else { throw context.storeEmpty(for: question) }
        return book
    }

    /// The catalog bridge named by an id or a name (as `AppContext.bridge(named:in:)` resolves it).
    package func bridge(named text: String) async throws -> BridgeInfoDTO {
        try context.bridge(named: text, in: try await book().catalog)
    }
}

/// One value per `HistoryKey`: the latest key's, loaded once by whoever asks first while the others wait for it.
final class VersionedMemo<Value: Sendable>: Sendable {
    private let state = Locked<(key: HistoryKey, task: Task<Value, any Error>)?>(nil)

    func value(for key: HistoryKey, load: @escaping @Sendable () async throws -> Value) async throws -> Value {
        let task: Task<Value, any Error> = state.withLock { state in
            if let state, state.key == key { return state.task }
            let task = Task { try await load() }
            state = (key, task)
            return task
        }
        do {
            return try await task.value
        } catch {
            // Not kept: the next asker loads again (the store may be back).
            state.withLock { state in
                if let current = state, current.key == key, current.task == task { state = nil }
            }
            throw error
        }
    }
}

extension Collection {
    /// The first index whose element satisfies `belongs` (which must hold for a suffix), by binary search.
    func partitioningIndex(where belongs: (Element) -> Bool) -> Index {
        var low = startIndex
        var count = self.count
        while count > 0 {
            let half = count / 2
            let middle = index(low, offsetBy: half)
            if belongs(self[middle]) {
                count = half
            } else {
                low = index(after: middle)
                count -= half + 1
            }
        }
        return low
    }
}
