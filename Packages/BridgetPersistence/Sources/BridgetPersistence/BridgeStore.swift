import BridgetDTOs
import Foundation

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

/// The whole store boundary, every kind of data Bridget keeps: what a command that needs all of it asks for.
///
/// Each part is a protocol of its own, which a type can implement (or a test fake) alone. An implementation of the
/// whole must keep every part's promises, the catalog's over the others included: an event, an opening model or a
/// traffic flow that names a bridge not in the catalog is refused, and its whole batch with it. Every store has a
/// sync lock (`SyncLocking`), so one sync writes at a time whatever the store and however many processes share it.
public protocol BridgeStore:
    BridgeCatalogStore, EventStore, ImportCheckpointStore, SyncRunStore, OpeningModelStore, RouteStore,
    TrafficFlowStore, KeptAnswerStore, StoreHealth, SyncLocking, ChangeLogStore, AlertStore, LiveStateStore,
    SourceIdentityStore
{
    /// Per bridge of the catalog, by numeric id: its stored openings and the latest of them (none: 0 and nil).
    func bridgeActivity() async throws -> [BridgeActivity]

    /// Checks that the store can answer now and is still the store it was opened as, cheaply enough for every
    /// readiness probe: throws what keeps it from answering (its file deleted, replaced or cut short; the database
    /// unreachable). It changes nothing.
    func checkReadiness() async throws
}

extension BridgeStore {
    /// A store with nothing of its own to look at is ready when it answers a query.
    public func checkReadiness() async throws { _ = try await historyVersion() }
}
