import Foundation

/// Hit, miss and eviction counts of a cache.
public struct CacheStatistics: Sendable, Codable, Equatable {
    public var hits = 0
    public var misses = 0
    /// Entries removed to respect the capacity.
    public var evictions = 0
    /// Entries dropped because their time to live had passed.
    public var expirations = 0
    /// Entries held now.
    public var count = 0

    /// Creates statistics.
    public init(hits: Int = 0, misses: Int = 0, evictions: Int = 0, expirations: Int = 0, count: Int = 0) {
        self.hits = hits
        self.misses = misses
        self.evictions = evictions
        self.expirations = expirations
        self.count = count
    }
}

/// The boundary to a key-value cache.
///
/// An implementation must guarantee: a value is never returned after its time to live; storing past capacity
/// evicts the least recently used entry; and the counts in `statistics()` reflect every call.
public protocol Cache<Key, Value>: Sendable {
    associatedtype Key: Hashable & Sendable
    associatedtype Value: Sendable

    /// The value for a key, if present and fresh (a read counts as a use).
    func value(forKey key: Key) async -> Value?
    /// Stores a value, with the cache's default time to live unless one is given.
    func insert(_ value: Value, forKey key: Key, timeToLive: Duration?) async
    /// Removes one entry.
    func removeValue(forKey key: Key) async
    /// Removes every entry.
    func removeAll() async
    /// Current counts.
    func statistics() async -> CacheStatistics
}

extension Cache {
    /// Stores a value with the cache's default time to live.
    public func insert(_ value: Value, forKey key: Key) async {
        await insert(value, forKey: key, timeToLive: nil)
    }
}
