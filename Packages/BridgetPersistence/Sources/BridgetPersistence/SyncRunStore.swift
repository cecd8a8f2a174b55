import BridgetDTOs
import Foundation

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

/// Where sync and import runs are recorded: when each started, how it ended, and what it did.
///
/// An implementation must guarantee: `startSyncRun` records a `running` run under a new id, greater than any
/// earlier one; `finishSyncRun` replaces that run's record with the one given; `syncRuns(limit:)` lists the latest
/// runs newest first; `lastSucceededRun(provider:)` is the newest `succeeded` run of that provider.
public protocol SyncRunStore: Sendable {
    /// Records the start of a sync and returns its id.
    func startSyncRun(provider: String, startedAt: Date, watermarkBefore: Date?) async throws -> Int64
    /// Records how a sync ended.
    func finishSyncRun(_ record: SyncRunRecord) async throws
    /// The latest sync runs, newest first.
    func syncRuns(limit: Int) async throws -> [SyncRunRecord]
    /// The newest run of a provider that succeeded, if any.
    func lastSucceededRun(provider: String) async throws -> SyncRunRecord?
}
