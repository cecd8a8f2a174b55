import BridgetContext
import BridgetCore
import BridgetDTOs
import BridgetNetworking
import BridgetPersistence
import Foundation

/// What a store holds, for `doctor` and `config show`. Open it `forReading`, so a store on a read-only disk is
/// checked as it is.
package struct StoreReport: StoreAnswers {
    package let context: AppContext
    package let store: any BridgeStore

    package init(context: AppContext, store: any BridgeStore) {
        self.context = context
        self.store = store
    }

    /// A store's health: SQLite's (or PostgreSQL's) integrity check, its events, its last sync and its source.
    package struct Health: Sendable {
        package let integrity: String
        package let events: Int
        package let lastRun: SyncRunRecord?
        package let recorded: RecordedSource?
    }

    package func health() async throws -> Health {
        Health(integrity: try await store.integrityCheck(), events: try await store.eventCount(bridgeID: nil),
               lastRun: try await store.syncRuns(limit: 1).first, recorded: try await store.recordedSource())
    }

    /// The source the store records holding, as its identity's text; nil when it records none.
    package func recordedSource() async throws -> String? { try await store.recordedSource()?.identity.description }

    /// The configured live state feed (none when off), and what the store keeps of its last polls; a store that
    /// cannot be opened keeps nothing (that is the store check's finding).
    package static func liveState(_ context: AppContext) async throws
        -> (source: (any BridgeStateSource)?, kept: LiveFeedState?)
    {
        let store = try? await context.assembly.makeStore(forReading: true)
        guard let source = try await context.assembly.makeStateSource(store: store) else { return (nil, nil) }
        return (source, try? await store?.liveFeedState())
    }
}
