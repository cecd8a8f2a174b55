import BridgetCore
import BridgetDTOs
import BridgetPersistence
import Foundation

/// The work a command starts on the configured store, which it opens for writing: a front end asks for the work and
/// never holds the store.
extension AppContext {
    /// A sync of the configured provider into the configured store.
    package func syncPipeline(rejects: RejectedRowLog? = nil) async throws -> SyncPipeline {
        try assembly.makeSyncPipeline(store: try await assembly.makeStore(), rejects: rejects)
    }

    /// An import into the configured store.
    package func importPipeline(rejects: RejectedRowLog? = nil) async throws -> ImportPipeline {
        assembly.makeImportPipeline(store: try await assembly.makeStore(), rejects: rejects)
    }

    /// Every bridge's opening model rebuilt from the stored history.
    package func rebuildOpeningModels() async throws -> [OpeningModelDTO] {
        try await assembly.rebuildOpeningModels(store: try await assembly.makeStore())
    }

    /// What `prune` did.
    package struct Pruned: Sendable, Equatable {
        /// Openings removed (before the cutoff), and those left.
        package let removed: Int
        package let remaining: Int
        /// Changes removed: those logged before `changesBefore` (`changes.keep_days`).
        package let changesBefore: Date
        package let changesRemoved: Int
    }

    /// Removes the openings that started before `cutoff` (rebuilding the models when any went) and the changes logged
    /// longer ago than `changes.keep_days`.
    package func prune(openingsBefore cutoff: Date?) async throws -> Pruned {
        let store = try await assembly.makeStore()
        var removed = 0
        if let cutoff {
            removed = try await assembly.makeProcessor(store: store).cleanupOldData(olderThan: cutoff)
            if removed > 0 { _ = try await assembly.rebuildOpeningModels(store: store) }
        }
        let changesBefore = Date().addingTimeInterval(-configuration.changeRetention)
        let changesRemoved = try await store.pruneChanges(recordedBefore: changesBefore)
        return Pruned(removed: removed, remaining: try await store.eventCount(bridgeID: nil),
                      changesBefore: changesBefore, changesRemoved: changesRemoved)
    }
}

extension SyncReport {
    /// The rows the run wrote, by outcome.
    package var counts: UpsertCounts { UpsertCounts(inserted: inserted, updated: updated, unchanged: unchanged) }
}

extension ImportReport {
    /// The rows the import wrote, by outcome.
    package var counts: UpsertCounts { UpsertCounts(inserted: inserted, updated: updated, unchanged: unchanged) }
}
