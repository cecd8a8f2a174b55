import BridgetDTOs
import BridgetPersistence
import Testing

/// The store boundary's conformance suite: every promise of the store protocols, checked with Swift Testing's
/// `#expect` against a store you make, so an implementation outside this package is held to what Bridget's own are.
///
/// Call it from your own `@Test`. A whole `BridgeStore` runs every part, or one test case a part:
///
/// ```swift
/// @Test(arguments: StoreConformance.Part.allCases)
/// func myStoreConforms(_ part: StoreConformance.Part) async throws {
///     try await part.check { try MyStore(path: NSTemporaryDirectory() + UUID().uuidString) }
/// }
/// ```
///
/// A store of one part runs that part's checks alone, e.g. `try await StoreConformance.checkRoutes { MyRouteStore() }`.
/// `makeStore` is called once a check and must return a new, empty, writable store each time. A broken promise is
/// recorded as a failed expectation (or a thrown error) in the calling test, at the line of the check that saw it.
public enum StoreConformance {
    /// A part of the boundary: one protocol and the checks of its promises.
    public enum Part: String, CaseIterable, Sendable, CustomStringConvertible {
        /// One protocol's promises, named after the data it keeps.
        case bridgeCatalog, events, importCheckpoints, syncRuns, openingModels, routes, trafficFlows, keptAnswers, health,
             syncLock
        /// `BridgeStore`'s own requirement: the catalog's bridges with their stored openings.
        case bridgeActivity
        /// The change log and the alerts' outbox, which the writes of events fill.
        case changeLog, alerts
        /// The change log's summaries of bulk writes.
        case bulkChanges
        /// Openings seen live, their replacement by published ones, and the live state feed's lease.
        case liveState
        /// The identity of the source whose data the store holds.
        case source

        /// The protocol whose promises this part checks.
        public var description: String {
            switch self {
            case .bridgeCatalog: "BridgeCatalogStore"
            case .events: "EventStore"
            case .importCheckpoints: "ImportCheckpointStore"
            case .syncRuns: "SyncRunStore"
            case .openingModels: "OpeningModelStore"
            case .routes: "RouteStore"
            case .trafficFlows: "TrafficFlowStore"
            case .keptAnswers: "KeptAnswerStore"
            case .health: "StoreHealth"
            case .syncLock: "SyncLocking"
            case .bridgeActivity: "BridgeStore.bridgeActivity"
            case .changeLog: "ChangeLogStore"
            case .bulkChanges: "ChangeLogStore (bulk writes)"
            case .alerts: "AlertStore"
            case .liveState: "LiveStateStore"
            case .source: "SourceIdentityStore"
            }
        }

        /// Checks this part's promises against stores from `makeStore`.
        public func check(makeStore: () async throws -> any BridgeStore) async throws {
            switch self {
            case .bridgeCatalog: try await checkBridgeCatalog { try await makeStore() }
            case .events: try await checkEvents { try await makeStore() }
            case .importCheckpoints: try await checkImportCheckpoints { try await makeStore() }
            case .syncRuns: try await checkSyncRuns { try await makeStore() }
            case .openingModels: try await checkOpeningModels { try await makeStore() }
            case .routes: try await checkRoutes { try await makeStore() }
            case .trafficFlows: try await checkTrafficFlows { try await makeStore() }
            case .keptAnswers: try await checkKeptAnswers { try await makeStore() }
            case .health: try await checkHealth { try await makeStore() }
            case .syncLock: try await checkSyncLock { try await makeStore() }
            case .bridgeActivity: try await checkBridgeActivity(makeStore: makeStore)
            case .changeLog: try await checkChangeLog(makeStore: makeStore)
            case .bulkChanges: try await checkBulkChanges(makeStore: makeStore)
            case .alerts: try await checkAlerts(makeStore: makeStore)
            case .liveState: try await checkLiveState(makeStore: makeStore)
            case .source: try await checkSource(makeStore: makeStore)
            }
        }
    }

    /// Checks every promise of a whole store, part after part.
    public static func checkAll(makeStore: () async throws -> any BridgeStore) async throws {
        for part in Part.allCases { try await part.check(makeStore: makeStore) }
    }

    /// Checks `BridgeCatalogStore`: bridges are inserted or replaced by id and listed once each by numeric id.
    public static func checkBridgeCatalog(makeStore: () async throws -> any BridgeCatalogStore) async throws {
        let store = try await makeStore()
        #expect(try await store.bridges().isEmpty)
        let seattle = BridgeCatalog.seattle.bridges
        try await store.upsertBridges(seattle.reversed())
        #expect(try await store.bridges() == seattle)
        let renamed = BridgeInfoDTO(id: "3", name: "Fremont Avenue", displayName: "Fremont Avenue Bridge",
                                    latitude: 47.6475, longitude: -122.3497, waterway: "Fremont Cut", kind: "bascule")
        try await store.upsertBridges([renamed])
        #expect(try await store.bridges() == seattle.map { $0.id == "3" ? renamed : $0 })
    }

    /// Checks `StoreHealth`: a new store takes writes and its data is sound; a whole store is ready.
    public static func checkHealth(makeStore: () async throws -> any StoreHealth) async throws {
        let store = try await makeStore()
        #expect(!store.isReadOnly)
        #expect(try await store.integrityCheck() == "ok")
        if let whole = store as? any BridgeStore { try await whole.checkReadiness() }
    }

    /// Checks `BridgeStore.bridgeActivity()`: every bridge of the catalog by numeric id, with its stored openings and
    /// the latest of them; none for an empty store.
    public static func checkBridgeActivity(makeStore: () async throws -> any BridgeStore) async throws {
        let empty = try await makeStore()
        #expect(try await empty.bridgeActivity().isEmpty)

        let store = try await makeStore()
        try await store.upsertBridges(BridgeCatalog.seattle.bridges)
        _ = try await store.upsertEvents((0..<5).map { StoreFixture.event(minute: $0) })
        let activity = try await store.bridgeActivity()
        #expect(activity.map(\.bridge.id) == ["1", "2", "3", "4", "6", "21", "29"])
        #expect(activity.first { $0.bridge.id == "3" }?.openings == 5)
        #expect(activity.first { $0.bridge.id == "3" }?.lastOpening == StoreFixture.event(minute: 4).openedAt)
        #expect(activity.first { $0.bridge.id == "1" }?.openings == 0)
    }
}
