import BridgetAnalysis
import BridgetContext
import BridgetCore
import BridgetDTOs
import BridgetPersistence
import Foundation

/// The history's answers the commands ask beside those the API shares: the processor's figures, the events of a
/// scope, the change log to follow, and the rows an export writes.
extension HistoryAnswers {
    /// The configured processor over this store (statistics, patterns, anomalies).
    package var processor: any BackgroundProcessing { context.assembly.makeProcessor(store: store) }

    /// The books of the store's history (the status's and the forecasts').
    package var books: HistoryBooks { HistoryBooks(context: context, store: store) }

    /// The events in `scope`, merged across bridges in time order, at most `limit`.
    package func events(in scope: HistoryScope, limit: Int?, newestFirst: Bool) async throws -> [BridgeEventDTO] {
        try await scope.events(in: store, limit: limit, newestFirst: newestFirst)
    }

    /// How many openings an export of `scope`'s bridges reads (every bridge's when it names none).
    package func eventCount(bridgeIDs: [String]) async throws -> Int {
        var total = 0
        for id in bridgeIDs.isEmpty ? [nil] : bridgeIDs.map(Optional.some) {
            total += try await store.eventCount(bridgeID: id)
        }
        return total
    }

    /// The export of this store's openings in `format`.
    package func export(as format: RowFileFormat) -> ExportPipeline { ExportPipeline(store: store, format: format) }

    /// The newest change logged: where following the changes starts.
    package func newestChange() async throws -> Int64 { try await store.changeLogBounds().newest }

    /// The changes after a number as they are logged, polled every `poll` seconds (at least 0.05).
    package func follower(poll: TimeInterval) -> ChangeFollower {
        let store = self.store
        return ChangeFollower(store: store, pollInterval: .milliseconds(Int64(max(poll, 0.05) * 1000)),
                              check: { try await store.checkReadiness() })
    }

    /// The bridges' names by id.
    package func bridgeNames() async throws -> [String: String] {
        Dictionary(try await store.bridges().map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
    }

    /// Throws what is wrong when the store can no longer be read (its file deleted or replaced).
    package func checkReadiness() async throws { try await store.checkReadiness() }
}
