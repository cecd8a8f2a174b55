import BridgetDTOs
import Foundation

/// The sequence numbers a change log holds now.
public struct ChangeLogBounds: Sendable, Equatable, Codable {
    /// The oldest change still kept, `nil` when the log is empty.
    public let oldest: Int64?
    /// The newest change ever logged (0 before the first): a reader that has seen it is up to date.
    public let newest: Int64

    /// Creates bounds.
    public init(oldest: Int64?, newest: Int64) {
        self.oldest = oldest
        self.newest = newest
    }

    /// Whether a reader that has seen every change up to `sequence` can go on from the log without a gap: the log
    /// still holds the change after it (or has nothing newer), and `sequence` is not from the future (another
    /// store's number, or a log that was reset).
    public func continues(after sequence: Int64) -> Bool {
        guard sequence >= 0, sequence <= newest else { return false }
        guard let oldest else { return sequence == newest }
        return sequence >= oldest - 1
    }
}

/// Where every change to a stored opening is numbered and kept for a while: what a stream of changes, `events
/// --follow` and alerts read.
///
/// An implementation must guarantee:
/// - every write of events appends one change per opening it inserts, updates, replaces or withdraws, **in the same
///   transaction** as the write (a write that fails or rolls back logs nothing; one that commits logs all of it), and
///   nothing for an event left as it was;
/// - sequence numbers grow in the order the changes commit, across every process sharing the store, so a reader
///   that has seen up to `n` and reads `changes(after: n)` later misses nothing committed since;
/// - `pruneChanges(recordedBefore:)` removes older changes but always keeps the newest, so `newest` survives;
///   removing events (`deleteEvents`, retention) is not a change of an opening and is not logged.
public protocol ChangeLogStore: Sendable {
    /// Changes after `sequence`, oldest first, only of `bridgeIDs` when given, at most `limit`.
    func changes(after sequence: Int64, bridgeIDs: [String]?, limit: Int) async throws -> [OpeningChangeDTO]
    /// The numbers the log holds now.
    func changeLogBounds() async throws -> ChangeLogBounds
    /// Removes changes recorded before `cutoff`, the newest one excepted; returns how many.
    func pruneChanges(recordedBefore cutoff: Date) async throws -> Int
    /// Removes the announced (planned) openings of source records at `bridgeIDs` whose record id is not in
    /// `current`: what a source that sends its announcements whole (a snapshot) no longer lists. Each is logged as
    /// `withdrawn` in the same transaction; returns how many. Openings that happened are never withdrawn.
    func withdrawAnnouncements(bridgeIDs: [String], keeping current: Set<String>) async throws -> Int
}
