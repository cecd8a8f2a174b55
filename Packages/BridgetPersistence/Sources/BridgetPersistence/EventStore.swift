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

    /// Creates a query.
    public init(
        bridgeID: String? = nil, openedFrom: Date? = nil, openedBefore: Date? = nil, limit: Int? = nil,
        newestFirst: Bool = false, after: EventKey? = nil
    ) {
        self.bridgeID = bridgeID
        self.openedFrom = openedFrom
        self.openedBefore = openedBefore
        self.limit = limit
        self.newestFirst = newestFirst
        self.after = after
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
/// - `historyVersion()` changes whenever stored events change (insert, update or delete), and never otherwise.
public protocol EventStore: Sendable {
    /// Inserts new events, updates changed ones, leaves identical ones; one transaction for the batch.
    func upsertEvents(_ events: [BridgeEventDTO]) async throws -> UpsertCounts
    /// Events matching a query.
    func events(matching query: EventQuery) async throws -> [BridgeEventDTO]
    /// Number of stored events, for one bridge or all.
    func eventCount(bridgeID: String?) async throws -> Int
    /// The latest stored opening instant (the sync watermark).
    func latestOpening() async throws -> Date?
    /// Removes events that opened before an instant; returns how many.
    func deleteEvents(openedBefore: Date) async throws -> Int
    /// Every stored event in lean form, ordered by bridge id then opening (for analysis over the whole history).
    func openingRecords() async throws -> [OpeningRecordDTO]
    /// A number that changes whenever stored events change (insert, update or delete), never otherwise: what
    /// derived data such as opening models is stamped with, to know when it is stale.
    func historyVersion() async throws -> Int64
}

extension EventStore {
    /// All stored events, oldest first.
    public func allEvents() async throws -> [BridgeEventDTO] { try await events(matching: EventQuery()) }
}
