import BridgetDTOs

/// Where the opening models built from the history are kept, so a prediction reads a small table, not the history.
///
/// An implementation must guarantee: `saveOpeningModels` replaces every stored model with those given, in one
/// transaction; `openingModels(bridgeIDs:)` returns them exactly as saved (every slot and month factor), once each,
/// for those of the bridges that have one, ordered by bridge id.
public protocol OpeningModelStore: Sendable {
    /// Replaces every stored opening model with these, in one transaction.
    func saveOpeningModels(_ models: [OpeningModelDTO]) async throws
    /// The stored opening models of these bridges (those that have one), in one read.
    func openingModels(bridgeIDs: [String]) async throws -> [OpeningModelDTO]
}

extension OpeningModelStore {
    /// The stored opening model of a bridge, if any.
    public func openingModel(bridgeID: String) async throws -> OpeningModelDTO? {
        try await openingModels(bridgeIDs: [bridgeID]).first
    }
}
