/// What a store says about itself as a whole: whether it takes writes, and whether its data is sound.
///
/// An implementation must guarantee: `isReadOnly` does not change over the store's life, and a store that says it
/// is read-only changes nothing (a write throws); `integrityCheck()` changes nothing and returns exactly "ok" when
/// the stored data is sound, or else says what is wrong.
public protocol StoreHealth: Sendable {
    /// Whether the store refuses writes (opened read-only): derived data such as opening models is then built for
    /// the caller's run and not saved. False unless an implementation says otherwise.
    var isReadOnly: Bool { get }
    /// A consistency check of the stored data: "ok", or what is wrong.
    func integrityCheck() async throws -> String
}

extension StoreHealth {
    /// A store takes writes unless it says otherwise.
    public var isReadOnly: Bool { false }
}
