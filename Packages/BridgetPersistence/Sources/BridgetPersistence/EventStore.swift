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
    /// Only observed or only planned openings; `nil` for both.
    public var status: OpeningStatus?

    /// Creates a query.
    public init(
        bridgeID: String? = nil, openedFrom: Date? = nil, openedBefore: Date? = nil, limit: Int? = nil,
        newestFirst: Bool = false, after: EventKey? = nil, status: OpeningStatus? = nil
    ) {
        self.bridgeID = bridgeID
        self.openedFrom = openedFrom
        self.openedBefore = openedBefore
        self.limit = limit
        self.newestFirst = newestFirst
        self.after = after
        self.status = status
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
/// - status, record id and record version round-trip, and a change to any of them is an update;
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
    /// Folds every observed opening in lean form into `initial`, page by page, ordered by bridge id then opening:
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
