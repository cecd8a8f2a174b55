import BridgetDTOs
import Foundation

/// What an upsert did to each event of a batch.
public struct UpsertCounts: Sendable, Codable, Equatable {
    /// New events.
    public var inserted: Int
    /// Existing events whose fields changed.
    public var updated: Int
    /// Existing events that were already identical.
    public var unchanged: Int

    /// Creates counts.
    public init(inserted: Int = 0, updated: Int = 0, unchanged: Int = 0) {
        self.inserted = inserted
        self.updated = updated
        self.unchanged = unchanged
    }

    /// Adds another batch's counts.
    public static func + (lhs: UpsertCounts, rhs: UpsertCounts) -> UpsertCounts {
        UpsertCounts(inserted: lhs.inserted + rhs.inserted, updated: lhs.updated + rhs.updated,
                     unchanged: lhs.unchanged + rhs.unchanged)
    }
}

/// A filter over stored events; every field is optional.
public struct EventQuery: Sendable, Equatable {
    /// Only this bridge.
    public var bridgeID: String?
    /// Openings at or after this instant.
    public var openedFrom: Date?
    /// Openings strictly before this instant.
    public var openedBefore: Date?
    /// At most this many events.
    public var limit: Int?
    /// Newest first instead of oldest first.
    public var newestFirst: Bool
    /// Only events after this key in the order of the results (a cursor: pass the last key of the previous page).
    public var after: EventKey?
    /// Only openings of this status; `nil` for every status.
    public var status: OpeningStatus?
    /// Only openings that happened (observed or live), not announced ones. Ignored when `status` is given.
    public var happened: Bool

    /// Creates a query.
    public init(
        bridgeID: String? = nil, openedFrom: Date? = nil, openedBefore: Date? = nil, limit: Int? = nil,
        newestFirst: Bool = false, after: EventKey? = nil, status: OpeningStatus? = nil, happened: Bool = false
    ) {
        self.bridgeID = bridgeID
        self.openedFrom = openedFrom
        self.openedBefore = openedBefore
        self.limit = limit
        self.newestFirst = newestFirst
        self.after = after
        self.status = status
        self.happened = happened
    }
}

/// Where bridge openings are kept: batches upserted on their natural key, read back in a stable order, paged by key.
///
/// An implementation must guarantee:
/// - `upsertEvents` is idempotent on the natural key (bridge id, opening instant): an event not yet stored is
///   inserted, one stored with other fields is updated, one stored as it is is left, and each is counted as such;
/// - a batch is applied atomically, all of it or none of it, and reads see only whole batches;
/// - events come oldest first, bridge id breaking ties (newest first when a query asks, both keys reversed), and
///   `EventQuery.after` continues strictly after a key in that order, so a cursor walks every event once;
/// - an event with a `recordID` is one version of a source's record: one stored with the same record id and a higher
///   `recordVersion` (any version beats none) wins, and the incoming one is left and counted unchanged; otherwise
///   it replaces every stored event of that record, also at another opening instant (an announced opening that
///   moved, or a planned one now under way), so a record is stored once. A replacement at another instant counts
///   as one update, not an insert (the store still holds one opening for the record): each incoming event is
///   counted exactly once. Events without a record id are keyed on (bridge id, opening instant) alone;
/// - status, record id, record version and live window round-trip, and a change to any of them is an update;
/// - a published opening (status `observed`, no record id) replaces every stored `live` opening of its bridge that
///   it matches (`LiveMatch`: overlapping, or within `LiveMatch.slack` of each other): the live ones are removed and
///   the published one is counted once as updated and logged `replaced`, in the batch's transaction. A `live`
///   opening that matches a stored published one is left and counted unchanged (the record has already come);
/// - `historyVersion()` changes whenever stored events change (insert, update or delete), and never otherwise.
public protocol EventStore: Sendable {
    /// Inserts new events, updates changed ones (replacing a record's earlier versions), leaves identical ones and
    /// outdated versions; one transaction for the batch.
    func upsertEvents(_ events: [BridgeEventDTO]) async throws -> UpsertCounts
    /// Events matching a query.
    func events(matching query: EventQuery) async throws -> [BridgeEventDTO]
    /// Number of stored events, for one bridge or all.
    func eventCount(bridgeID: String?) async throws -> Int
    /// The latest stored opening instant (the sync watermark).
    func latestOpening() async throws -> Date?
    /// Removes events that opened before an instant; returns how many.
    func deleteEvents(openedBefore: Date) async throws -> Int
    /// Folds every opening that happened (observed or live) in lean form into `initial`, page by page, ordered by bridge id then opening:
    /// what analysis reads, in memory that does not grow with the history (a store holds one page at a time, never
    /// the history). Planned openings are left out, since models learn from what happened, not from what was
    /// announced. `bridgeIDs` limits the read to those bridges (`nil`: every bridge). `update` sees each page once,
    /// in order, and must not keep it; an error it throws ends the read and is rethrown.
    func foldOpeningRecords<State: Sendable>(
        bridgeIDs: [String]?, into initial: State,
        _ update: @escaping @Sendable (inout State, [OpeningRecordDTO]) throws -> Void
    ) async throws -> State
    /// A number that changes whenever stored events change (insert, update or delete), never otherwise: what
    /// derived data such as opening models is stamped with, to know when it is stale.
    func historyVersion() async throws -> Int64
}

extension EventStore {
    /// All stored events, oldest first.
    public func allEvents() async throws -> [BridgeEventDTO] { try await events(matching: EventQuery()) }

    /// Every observed opening in lean form, ordered by bridge id then opening, held at once: for small histories
    /// and tests (analysis folds them instead).
    public func openingRecords(bridgeIDs: [String]? = nil) async throws -> [OpeningRecordDTO] {
        try await foldOpeningRecords(bridgeIDs: bridgeIDs, into: [OpeningRecordDTO]()) { records, page in
            records.append(contentsOf: page)
        }
    }
}

/// How many lean records a store hands to a fold at once: big enough that the per-page cost vanishes, small enough
/// (about 200 KB) that holding one costs nothing.
public let openingRecordPageSize = 4_096

/// A fold's pages as a store fills them: records appended one at a time, handed to `update` a full page at a time
/// (and the rest by `finish()`), one page buffer reused throughout. For implementations of `foldOpeningRecords`.
public struct OpeningRecordPages<State: Sendable> {
    private var state: State
    private var page: [OpeningRecordDTO] = []
    private let update: (inout State, [OpeningRecordDTO]) throws -> Void

    /// Pages folded into `initial` by `update`.
    public init(into initial: State, _ update: @escaping (inout State, [OpeningRecordDTO]) throws -> Void) {
        state = initial
        self.update = update
        page.reserveCapacity(openingRecordPageSize)
    }

    /// Adds a record; a full page goes to `update`.
    public mutating func append(_ record: OpeningRecordDTO) throws {
        page.append(record)
        if page.count == openingRecordPageSize { try flush() }
    }

    /// Hands the last page to `update` and returns the state.
    public mutating func finish() throws -> State {
        try flush()
        return state
    }

    private mutating func flush() throws {
        guard !page.isEmpty else { return }
        try update(&state, page)
        page.removeAll(keepingCapacity: true)
    }
}

/// When a published opening and one seen live are the same opening: same bridge, and their spans overlap or lie
/// within `slack` of each other. A live opening's times are polls (up to a poll interval late), a published one's
/// whole minutes, so the same opening differs by a minute or two; distinct openings of one bridge are rarely closer.
public enum LiveMatch {
    /// How far apart two spans may be and still be one opening.
    public static let slack: TimeInterval = 5 * 60
    /// A live opening with no closing yet is taken to last at most this long (as `status` takes it).
    public static let longestOpen: TimeInterval = 2 * 3600

    /// Whether `published` and `live` (of the same bridge) are one opening.
    public static func matches(published: (openedAt: Date, closedAt: Date?), live: (openedAt: Date, closedAt: Date?))
        -> Bool
    {
        let publishedEnd = published.closedAt ?? published.openedAt
        let liveEnd = live.closedAt ?? live.openedAt.addingTimeInterval(longestOpen)
        return live.openedAt <= publishedEnd.addingTimeInterval(slack)
            && published.openedAt <= liveEnd.addingTimeInterval(slack)
    }

    /// The range of opening instants a stored live opening matching any of `published` can have: for one read of
    /// the candidates a batch.
    public static func candidateRange(_ published: some Sequence<BridgeEventDTO>) -> ClosedRange<Date>? {
        var lower: Date?
        var upper: Date?
        for event in published {
            let end = event.closedAt ?? event.openedAt
            lower = min(lower ?? event.openedAt, event.openedAt)
            upper = max(upper ?? end, end)
        }
        guard let lower, let upper else { return nil }
        return lower.addingTimeInterval(-longestOpen - 2 * slack)...upper.addingTimeInterval(slack)
    }
}
