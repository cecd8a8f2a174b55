import BridgetDTOs

/// Where the bridge catalog is kept: the bridges that events, opening models and traffic flows name.
///
/// An implementation must guarantee: `upsertBridges` inserts or replaces bridges by id, and `bridges()` returns
/// every stored bridge once, as it was last saved, in numeric id order. A store that keeps the catalog beside other
/// data refuses an event, an opening model or a traffic flow that names a bridge not in the catalog, and its whole
/// batch with it.
public protocol BridgeCatalogStore: Sendable {
    /// Inserts or replaces bridges by id.
    func upsertBridges(_ bridges: [BridgeInfoDTO]) async throws
    /// All stored bridges, by numeric id.
    func bridges() async throws -> [BridgeInfoDTO]
}
