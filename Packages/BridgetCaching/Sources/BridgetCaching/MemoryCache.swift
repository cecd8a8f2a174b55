import Foundation
import Synchronization

/// An in-memory LRU cache with a capacity in entries, an optional budget in bytes, and a per-entry time to live,
/// timed by an injected clock.
///
/// Recency is kept in a doubly linked list threaded through the entries by key, so reads, inserts and evictions are
/// O(1). The state is behind one lock, not an actor: a read is a few dictionary operations, cheaper than a hop to an
/// executor, and the methods can be called synchronously by code that holds the concrete type (a server's answer
/// cache on every request); the `Cache` protocol's asynchronous requirements are met by the same methods.
public final class MemoryCache<Key: Hashable & Sendable, Value: Sendable, C: Clock>: Cache, Sendable
where C.Duration == Duration {
    /// What an entry weighs, and how much may be held in all.
    public struct ByteBudget: Sendable {
        /// The most bytes held at once; the least recently used entries go past it.
        public let maximumBytes: Int
        /// An entry's weight in bytes (its key's too, if that counts).
        public let cost: @Sendable (Key, Value) -> Int

        /// Creates a budget.
        public init(maximumBytes: Int, cost: @escaping @Sendable (Key, Value) -> Int) {
            self.maximumBytes = max(1, maximumBytes)
            self.cost = cost
        }
    }

    private struct Entry {
        var value: Value
        var expires: C.Instant
        var bytes: Int
        var newer: Key?
        var older: Key?
    }

    private struct State {
        var entries: [Key: Entry] = [:]
        var newest: Key?
        var oldest: Key?
        var bytes = 0
        var counts = CacheStatistics()
    }

    /// Maximum number of entries.
    public let capacity: Int
    /// The byte budget, if any.
    public let budget: ByteBudget?
    /// Time to live of entries inserted without their own.
    public let defaultTimeToLive: Duration
    private let clock: C
    private let state = Mutex(State())

    /// Creates a cache; `capacity` is at least 1. With a `budget`, an entry weighing more than a quarter of it is not
    /// kept at all (one huge value would otherwise empty the cache).
    public init(capacity: Int, defaultTimeToLive: Duration, clock: C, budget: ByteBudget? = nil) {
        self.capacity = max(1, capacity)
        self.defaultTimeToLive = defaultTimeToLive
        self.clock = clock
        self.budget = budget
    }

    public func value(forKey key: Key) -> Value? {
        let now = clock.now
        return state.withLock { state in
            guard let entry = state.entries[key] else {
                state.counts.misses += 1
                return nil
            }
            guard now < entry.expires else {
                Self.remove(key, from: &state)
                state.counts.expirations += 1
                state.counts.misses += 1
                return nil
            }
            state.counts.hits += 1
            Self.unlink(key, in: &state)
            Self.linkAsNewest(key, entry, in: &state)
            return entry.value
        }
    }

    public func insert(_ value: Value, forKey key: Key, timeToLive: Duration?) {
        let expires = clock.now.advanced(by: timeToLive ?? defaultTimeToLive)
        let bytes = budget.map { $0.cost(key, value) } ?? 0
        state.withLock { state in
            if state.entries[key] != nil { Self.remove(key, from: &state) }
            if let budget, bytes > budget.maximumBytes / 4 { return }
            Self.linkAsNewest(key, Entry(value: value, expires: expires, bytes: bytes), in: &state)
            state.bytes += bytes
            while state.entries.count > capacity || state.bytes > (budget?.maximumBytes ?? .max), let victim = state.oldest {
                Self.remove(victim, from: &state)
                state.counts.evictions += 1
            }
        }
    }

    public func removeValue(forKey key: Key) {
        state.withLock { state in
            if state.entries[key] != nil { Self.remove(key, from: &state) }
        }
    }

    public func removeAll() {
        state.withLock { state in
            state.entries.removeAll()
            state.newest = nil
            state.oldest = nil
            state.bytes = 0
        }
    }

    public func statistics() -> CacheStatistics {
        state.withLock { state in
            var result = state.counts
            result.count = state.entries.count
            return result
        }
    }

    /// The bytes the entries weigh by the budget's cost (0 without a budget).
    public var bytes: Int { state.withLock { $0.bytes } }

    private static func remove(_ key: Key, from state: inout State) {
        guard let entry = state.entries[key] else { return }
        unlink(key, in: &state)
        state.entries[key] = nil
        state.bytes -= entry.bytes
    }

    private static func linkAsNewest(_ key: Key, _ entry: Entry, in state: inout State) {
        var entry = entry
        entry.older = state.newest
        entry.newer = nil
        if let previous = state.newest { state.entries[previous]?.newer = key }
        state.entries[key] = entry
        state.newest = key
        if state.oldest == nil { state.oldest = key }
    }

    private static func unlink(_ key: Key, in state: inout State) {
        guard let entry = state.entries[key] else { return }
        if let newer = entry.newer { state.entries[newer]?.older = entry.older } else { state.newest = entry.older }
        if let older = entry.older { state.entries[older]?.newer = entry.newer } else { state.oldest = entry.newer }
        state.entries[key]?.newer = nil
        state.entries[key]?.older = nil
    }
}

extension MemoryCache where C == ContinuousClock {
    /// A cache timed by the system's continuous clock.
    public convenience init(capacity: Int, defaultTimeToLive: Duration, budget: ByteBudget? = nil) {
        self.init(capacity: capacity, defaultTimeToLive: defaultTimeToLive, clock: ContinuousClock(), budget: budget)
    }
}
