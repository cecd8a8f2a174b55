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
/// - every write of events logs each opening it inserts, updates, replaces or withdraws, **in the same transaction**
///   as the write (a write that fails or rolls back logs nothing; one that commits logs all of it), and nothing for
///   an event left as it was: one entry per change, except that a write with more than
///   `BulkChangeTally.itemizedLimit` changes to older openings (`BulkChangeTally.isItemized` says which are not)
///   logs those as one `bulk` summary, after the write's other entries, so a backfill costs O(batches), not O(rows);
/// - sequence numbers grow in the order the changes commit, across every process sharing the store, so a reader
///   that has seen up to `n` and reads `changes(after: n)` later misses nothing committed since;
/// - `pruneChanges(recordedBefore:)` removes older changes but always keeps the newest, so `newest` survives;
///   removing events (`deleteEvents`, retention) is not a change of an opening and is not logged;
/// - `changeWakeups()` wakes a reader soon after a write commits: at once for a write through this process, as soon
///   as the store can tell for another process or host. Its first wake-up says it listens: every commit after that
///   one wakes it. A wake-up may come when nothing changed, and a reader still reads on a timer: wake-ups make a
///   reader prompt, the log keeps it complete.
public protocol ChangeLogStore: Sendable {
    /// Entries after `sequence`, oldest first, only of `bridgeIDs` when given (a summary when it counts any of them),
    /// at most `limit`.
    func changes(after sequence: Int64, bridgeIDs: [String]?, limit: Int) async throws -> [ChangeLogEntryDTO]
    /// The numbers the log holds now.
    func changeLogBounds() async throws -> ChangeLogBounds
    /// Removes changes recorded before `cutoff`, the newest one excepted; returns how many.
    func pruneChanges(recordedBefore cutoff: Date) async throws -> Int
    /// Removes the announced (planned) openings of source records at `bridgeIDs` whose record id is not in
    /// `current`: what a source that sends its announcements whole (a snapshot) no longer lists. Each is logged as
    /// `withdrawn` in the same transaction; returns how many. Openings that happened are never withdrawn.
    func withdrawAnnouncements(bridgeIDs: [String], keeping current: Set<String>) async throws -> Int
    /// A wake-up soon after each commit that may have grown the log, for as long as the stream is consumed (cancel
    /// the consuming task to stop); the first once the store listens. A stream that ends without one means the store
    /// cannot tell: read on a timer.
    func changeWakeups() -> AsyncStream<Void>
}

extension ChangeLogStore {
    /// No wake-ups: readers read the log on their timer.
    public func changeWakeups() -> AsyncStream<Void> { AsyncStream { $0.finish() } }
}

/// Which changes of one write the log keeps one by one, and the tally of the others: a write's changes to openings
/// of the last day, to announced or live openings, and its replacements and withdrawals are what status, the stream
/// and alerts act on, and always have entries of their own; the rest are itemized too while they are few (at most
/// `itemizedLimit`), and summarised as one `bulk` entry when they are more.
public struct BulkChangeTally: Sendable {
    /// How far back an opening still matters now: the horizon of `status` and of the stream's readers.
    public static let recentWindow: TimeInterval = 24 * 3600
    /// The most changes to older openings one write logs one by one.
    public static let itemizedLimit = 100

    /// Openings at or after this instant are recent.
    public let recentFrom: Date
    /// Changes tallied, by kind (indexed as `OpeningChangeKind.allCases`).
    private var byKind = [Int](repeating: 0, count: OpeningChangeKind.allCases.count)
    /// The bridges tallied, in the order first seen (a write touches a handful).
    private var bridges: [String] = []
    private var first = Double.infinity
    private var last = -Double.infinity
    /// Changes tallied, every kind together.
    public private(set) var count = 0

    /// A tally for a write at `now`.
    public init(now: Date) {
        recentFrom = now.addingTimeInterval(-Self.recentWindow)
    }

    /// Whether a change always has an entry of its own.
    public func isItemized(_ kind: OpeningChangeKind, status: OpeningStatus, openedAt: Date, closedAt: Date?) -> Bool {
        switch kind {
        case .announced, .replaced, .withdrawn: return true
        case .new, .closed, .updated: break
        }
        return status != .observed || openedAt >= recentFrom || (closedAt.map { $0 >= recentFrom } ?? false)
    }

    /// What a writer does with a change to an older opening, so that a write's entries stay in the order of its
    /// changes while they are few.
    public enum Step: Sendable, Equatable {
        /// Log it as an entry of its own now, and say its number (`logged(_:)`).
        case logEntry
        /// The write has just become a bulk one: remove the entries logged for older openings so far (these
        /// numbers); from now on they are tallied for the summary.
        case retract([Int64])
        /// Tallied: the summary will count it.
        case tallied
    }

    /// Counts a change that is not itemized by itself (`isItemized`) and says what to do with it.
    public mutating func add(_ kind: OpeningChangeKind, bridgeID: String, openedAt: Date) -> Step {
        tally(kind, bridgeID: bridgeID, openedAt: openedAt)
        if count <= Self.itemizedLimit { return .logEntry }
        if count == Self.itemizedLimit + 1 {
            defer { loggedSequences = [] }
            return .retract(loggedSequences)
        }
        return .tallied
    }

    /// The number of the entry a writer logged for a change `add` told it to log.
    public mutating func logged(_ sequence: Int64) { loggedSequences.append(sequence) }

    private var loggedSequences: [Int64] = []

    private mutating func tally(_ kind: OpeningChangeKind, bridgeID: String, openedAt: Date) {
        count += 1
        byKind[Self.index(kind)] += 1
        if !bridges.contains(bridgeID) { bridges.append(bridgeID) }
        let seconds = openedAt.timeIntervalSince1970
        if seconds < first { first = seconds }
        if seconds > last { last = seconds }
    }

    /// Whether the tallied changes go in as one summary (more than `itemizedLimit`), not one entry each.
    public var summarises: Bool { count > Self.itemizedLimit }

    /// The summary as a store keeps it (`StoredBulkChange`), with the history version the write leaves.
    public func stored(historyVersion: Int64) -> StoredBulkChange {
        var counts: [String: Int] = [:]
        for (index, kind) in OpeningChangeKind.allCases.enumerated() where byKind[index] > 0 {
            counts[kind.rawValue] = byKind[index]
        }
        return StoredBulkChange(counts: counts, bridgeIDs: bridges.sorted(),
                                openedFromMS: Int64((first * 1000).rounded(.down)),
                                openedThroughMS: Int64((last * 1000).rounded(.down)), historyVersion: historyVersion)
    }

    private static func index(_ kind: OpeningChangeKind) -> Int {
        switch kind {
        case .new: 0
        case .announced: 1
        case .closed: 2
        case .updated: 3
        case .replaced: 4
        case .withdrawn: 5
        }
    }
}

/// A `bulk` entry's summary as the stores keep it: JSON in the log's `summary` column.
public struct StoredBulkChange: Sendable, Codable, Equatable {
    public let counts: [String: Int]
    public let bridgeIDs: [String]
    public let openedFromMS: Int64
    public let openedThroughMS: Int64
    public let historyVersion: Int64

    public init(counts: [String: Int], bridgeIDs: [String], openedFromMS: Int64, openedThroughMS: Int64,
                historyVersion: Int64) {
        self.counts = counts
        self.bridgeIDs = bridgeIDs
        self.openedFromMS = openedFromMS
        self.openedThroughMS = openedThroughMS
        self.historyVersion = historyVersion
    }

    /// The JSON kept in the log.
    public func json() throws -> String { String(decoding: try JSONEncoder.sorted.encode(self), as: UTF8.self) }

    /// The entry a reader gets; a summary that does not read back whole is a damaged log, said as such.
    public static func entry(json: String, sequence: Int64, recordedAt: Date) throws -> BulkChangeDTO {
        guard let stored = try? JSONDecoder().decode(Self.self, from: Data(json.utf8)) else {
            throw StoreError.corruptEvent(detail: "an unreadable bulk summary at change \(sequence) of the change log")
        }
        var counts: [OpeningChangeKind: Int] = [:]
        for (name, count) in stored.counts {
            guard let kind = OpeningChangeKind(rawValue: name), count >= 0 else {
                throw StoreError.corruptEvent(detail: "a bulk summary counting '\(name)' at change \(sequence)")
            }
            counts[kind] = count
        }
        return BulkChangeDTO(sequence: sequence, recordedAt: recordedAt, counts: counts, bridgeIDs: stored.bridgeIDs,
                             openedFrom: Date(timeIntervalSince1970: Double(stored.openedFromMS) / 1000),
                             openedThrough: Date(timeIntervalSince1970: Double(stored.openedThroughMS) / 1000),
                             historyVersion: stored.historyVersion)
    }
}

extension JSONEncoder {
    /// An encoder with sorted keys: a change's JSON is the same text for the same change in every store.
    package static var sorted: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }
}
