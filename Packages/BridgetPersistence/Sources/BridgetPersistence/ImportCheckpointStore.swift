import BridgetDTOs
import Foundation

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

/// Where an import of a file keeps how far it got, committed with each batch of its events.
///
/// An implementation must guarantee: `upsertEvents(_:checkpoint:)` keeps every promise of `upsertEvents(_:)` and
/// saves the checkpoint, with the batch's counts added to its `counts`, in the batch's transaction (both or neither);
/// `importCheckpoint(source:)` returns the last checkpoint saved for that source until it is removed.
public protocol ImportCheckpointStore: EventStore {
    /// Inserts new events, updates changed ones, leaves identical ones; one transaction for the batch, which also
    /// saves `checkpoint` when given (all of it or none of it), with this batch's counts added to its `counts`.
    func upsertEvents(_ events: [BridgeEventDTO], checkpoint: ImportCheckpoint?) async throws -> UpsertCounts
    /// The checkpoint of an unfinished import of this file, if any.
    func importCheckpoint(source: String) async throws -> ImportCheckpoint?
    /// Forgets an import's checkpoint (when it finished, or to start over).
    func removeImportCheckpoint(source: String) async throws
    /// Does the part of writing `events` that needs no store (encoding them as the store sends them), so that a
    /// bulk writer can do it for the next batch while the store writes this one. Never fails: what cannot be
    /// staged is written as `upsertEvents(_:checkpoint:)` writes it, with its errors.
    func stageEvents(_ events: [BridgeEventDTO]) -> StagedEvents
    /// `upsertEvents(_:checkpoint:)` of staged events: the same outcome, the same errors.
    func upsertEvents(_ staged: StagedEvents, checkpoint: ImportCheckpoint?) async throws -> UpsertCounts
}

/// Events with what a store prepared to write them (`ImportCheckpointStore.stageEvents`): the store's own encoding,
/// or nothing.
public struct StagedEvents: Sendable {
    public let events: [BridgeEventDTO]
    /// The store's encoding of them, read only by the store that staged them.
    public let payload: (any Sendable)?

    public init(events: [BridgeEventDTO], payload: (any Sendable)? = nil) {
        self.events = events
        self.payload = payload
    }
}

extension ImportCheckpointStore {
    /// Nothing to stage: the events are written as they are.
    public func stageEvents(_ events: [BridgeEventDTO]) -> StagedEvents { StagedEvents(events: events) }

    public func upsertEvents(_ staged: StagedEvents, checkpoint: ImportCheckpoint?) async throws -> UpsertCounts {
        try await upsertEvents(staged.events, checkpoint: checkpoint)
    }

    /// Inserts new events, updates changed ones, leaves identical ones; one transaction for the batch.
    public func upsertEvents(_ events: [BridgeEventDTO]) async throws -> UpsertCounts {
        try await upsertEvents(events, checkpoint: nil)
    }
}
