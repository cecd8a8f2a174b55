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

/// How much a bridge has opened, as stored.
public struct BridgeActivity: Sendable, Codable, Equatable {
    public let bridge: BridgeInfoDTO
    /// Stored openings.
    public let openings: Int
    /// The latest stored opening, if any.
    public let lastOpening: Date?

    /// Creates an activity summary.
    public init(bridge: BridgeInfoDTO, openings: Int, lastOpening: Date?) {
        self.bridge = bridge
        self.openings = openings
        self.lastOpening = lastOpening
    }
}

/// How far an import of one file got: saved in the same transaction as each batch, so an import stopped at any
/// moment resumes after the last batch it committed.
public struct ImportCheckpoint: Sendable, Codable, Equatable {
    /// The file's absolute path.
    public var source: String
    /// What identifies the file's content (size, modification time, a checksum of its head): a changed file starts over.
    public var identity: String
    /// Bytes of the file consumed by committed batches.
    public var offset: Int64
    /// The line reached, for messages.
    public var line: Int
    /// Rows read so far.
    public var rowsRead: Int
    /// What the committed batches did.
    public var counts: UpsertCounts
    /// Rows rejected so far, by reason.
    public var rejections: RejectionCounts

    /// Creates a checkpoint.
    public init(source: String, identity: String, offset: Int64 = 0, line: Int = 1, rowsRead: Int = 0,
                counts: UpsertCounts = .init(), rejections: RejectionCounts = .init()) {
        self.source = source
        self.identity = identity
        self.offset = offset
        self.line = line
        self.rowsRead = rowsRead
        self.counts = counts
        self.rejections = rejections
    }
}

/// How a sync run ended.
public enum SyncRunStatus: String, Sendable, Codable, CaseIterable {
    case running, succeeded, failed, cancelled
}

/// One recorded sync: who ran it, when, from where, and what it did.
public struct SyncRunRecord: Sendable, Codable, Equatable {
    public var id: Int64
    public var provider: String
    public var startedAt: Date
    public var finishedAt: Date?
    public var status: SyncRunStatus
    /// The latest stored opening before the run.
    public var watermarkBefore: Date?
    /// The latest stored opening after the run.
    public var watermarkAfter: Date?
    /// Rows received.
    public var fetched: Int
    public var counts: UpsertCounts
    public var rejections: RejectionCounts
    /// The error that ended the run, if it failed.
    public var error: String?
    /// The source's change-check answer when the run started, if the source has one.
    public var fingerprint: String?

    /// Creates a record.
    public init(
        id: Int64, provider: String, startedAt: Date, finishedAt: Date? = nil, status: SyncRunStatus = .running,
        watermarkBefore: Date? = nil, watermarkAfter: Date? = nil, fetched: Int = 0, counts: UpsertCounts = .init(),
        rejections: RejectionCounts = .init(), error: String? = nil, fingerprint: String? = nil
    ) {
        self.id = id
        self.provider = provider
        self.startedAt = startedAt
        self.finishedAt = finishedAt
        self.status = status
        self.watermarkBefore = watermarkBefore
        self.watermarkAfter = watermarkAfter
        self.fetched = fetched
        self.counts = counts
        self.rejections = rejections
        self.error = error
        self.fingerprint = fingerprint
    }
}

/// The boundary to where Bridget keeps bridges, events and sync runs.
///
/// An implementation must guarantee: `upsertEvents` is idempotent on the natural key (bridge id, opening instant)
/// and applies a batch atomically (all of it or none of it); reads see only committed batches; and events are
/// returned oldest first (bridge id breaking ties) unless a query asks otherwise.
public protocol BridgeStore: Sendable {
    /// Whether the store refuses writes (opened read-only): derived data such as opening models is then built for
    /// the caller's run and not saved. False unless an implementation says otherwise.
    var isReadOnly: Bool { get }
    /// Inserts or replaces bridges by id.
    func upsertBridges(_ bridges: [BridgeInfoDTO]) async throws
    /// All stored bridges, by numeric id.
    func bridges() async throws -> [BridgeInfoDTO]
    /// Inserts new events, updates changed ones, leaves identical ones; one transaction for the batch, which also
    /// saves `checkpoint` when given (all of it or none of it), with this batch's counts added to its `counts`.
    func upsertEvents(_ events: [BridgeEventDTO], checkpoint: ImportCheckpoint?) async throws -> UpsertCounts
    /// The checkpoint of an unfinished import of this file, if any.
    func importCheckpoint(source: String) async throws -> ImportCheckpoint?
    /// Forgets an import's checkpoint (when it finished, or to start over).
    func removeImportCheckpoint(source: String) async throws
    /// Events matching a query.
    func events(matching query: EventQuery) async throws -> [BridgeEventDTO]
    /// Number of stored events, for one bridge or all.
    func eventCount(bridgeID: String?) async throws -> Int
    /// The latest stored opening instant (the sync watermark).
    func latestOpening() async throws -> Date?
    /// Per stored bridge: opening count and last opening.
    func bridgeActivity() async throws -> [BridgeActivity]
    /// Removes events that opened before an instant; returns how many.
    func deleteEvents(openedBefore: Date) async throws -> Int
    /// Records the start of a sync and returns its id.
    func startSyncRun(provider: String, startedAt: Date, watermarkBefore: Date?) async throws -> Int64
    /// Records how a sync ended.
    func finishSyncRun(_ record: SyncRunRecord) async throws
    /// The latest sync runs, newest first.
    func syncRuns(limit: Int) async throws -> [SyncRunRecord]
    /// The newest run of a provider that succeeded, if any.
    func lastSucceededRun(provider: String) async throws -> SyncRunRecord?
    /// A consistency check of the stored data: "ok", or what is wrong.
    func integrityCheck() async throws -> String
    /// Replaces every stored opening model with these, in one transaction.
    func saveOpeningModels(_ models: [OpeningModelDTO]) async throws
    /// The stored opening models of these bridges (those that have one), in one read.
    func openingModels(bridgeIDs: [String]) async throws -> [OpeningModelDTO]
    /// Inserts or replaces a route by name.
    func saveRoute(_ route: RouteDTO) async throws
    /// Every route, favourites first, then by name.
    func routes() async throws -> [RouteDTO]
    /// Removes a route; returns whether it existed.
    func removeRoute(named name: String) async throws -> Bool
    /// Every stored event in lean form, ordered by bridge id then opening (for analysis over the whole history).
    func openingRecords() async throws -> [OpeningRecordDTO]
    /// A number that changes whenever stored events change (insert, update or delete), never otherwise.
    func historyVersion() async throws -> Int64
    /// Inserts or replaces traffic observations by (bridge, instant), in one transaction.
    func upsertTrafficFlows(_ flows: [TrafficFlowDTO]) async throws
    /// A bridge's traffic observations, oldest first.
    func trafficFlows(bridgeID: String) async throws -> [TrafficFlowDTO]
}

extension BridgeStore {
    public var isReadOnly: Bool { false }

    /// Inserts new events, updates changed ones, leaves identical ones; one transaction for the batch.
    public func upsertEvents(_ events: [BridgeEventDTO]) async throws -> UpsertCounts {
        try await upsertEvents(events, checkpoint: nil)
    }

    /// The stored opening model of a bridge, if any.
    public func openingModel(bridgeID: String) async throws -> OpeningModelDTO? {
        try await openingModels(bridgeIDs: [bridgeID]).first
    }

    /// The route with this name, if stored.
    public func route(named name: String) async throws -> RouteDTO? {
        try await routes().first { $0.id == name }
    }
}

extension BridgeStore {
    /// All stored events, oldest first.
    public func allEvents() async throws -> [BridgeEventDTO] { try await events(matching: EventQuery()) }
}
