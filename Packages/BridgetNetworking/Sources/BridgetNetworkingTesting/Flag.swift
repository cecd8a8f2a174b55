import Synchronization

/// A flag one task sets and another polls: whether a cancelled consumer has finished.
final class Flag: Sendable {
    private let value = Mutex(false)

    /// Whether the flag is set.
    var isSet: Bool { value.withLock { $0 } }

    /// Sets the flag.
    func set() { value.withLock { $0 = true } }
}
