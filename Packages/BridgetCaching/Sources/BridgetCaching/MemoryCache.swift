import Foundation
import Synchronization

/// An in-memory LRU cache with a capacity in entries, an optional budget in bytes, and a per-entry time to live,
/// timed by an injected clock.
///
/// Recency is kept in a doubly linked list threaded through the entries' slots by number, so reads, inserts and
/// evictions are O(1) with one hash of the key each. The state is behind one lock, not an actor: a read is a few dictionary operations, cheaper than a hop to an
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

    /// An entry in its slot; `newer` and `older` are slot numbers (-1 for none), so moving an entry in the recency
    /// order touches no hash table.
    private struct Slot {
        var key: Key
        var value: Value
        var expires: C.Instant
        var bytes: Int
        var newer = -1
        var older = -1
    }

    private struct State {
        /// Each key's slot: the one hash lookup an operation makes.
        var index: [Key: Int] = [:]
        var slots: [Slot?] = []
        var free: [Int] = []
        var newest = -1
        var oldest = -1
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
            guard let slot = state.index[key], let entry = state.slots[slot] else {
                state.counts.misses += 1
                return nil
            }
            guard now < entry.expires else {
                Self.remove(slot, from: &state)
                state.counts.expirations += 1
                state.counts.misses += 1
                return nil
            }
            state.counts.hits += 1
            Self.unlink(slot, in: &state)
            Self.linkAsNewest(slot, in: &state)
            return entry.value
        }
    }

    public func insert(_ value: Value, forKey key: Key, timeToLive: Duration?) {
        let expires = clock.now.advanced(by: timeToLive ?? defaultTimeToLive)
        let bytes = budget.map { $0.cost(key, value) } ?? 0
        state.withLock { state in
            if let slot = state.index[key] { Self.remove(slot, from: &state) }
            if let budget, bytes > budget.maximumBytes / 4 { return }
            let entry = Slot(key: key, value: value, expires: expires, bytes: bytes)
            let slot: Int
            if let reused = state.free.popLast() {
                slot = reused
                state.slots[slot] = entry
            } else {
                slot = state.slots.count
                state.slots.append(entry)
            }
            state.index[key] = slot
            Self.linkAsNewest(slot, in: &state)
            state.bytes += bytes
            while state.index.count > capacity || state.bytes > (budget?.maximumBytes ?? .max), state.oldest >= 0 {
                Self.remove(state.oldest, from: &state)
                state.counts.evictions += 1
            }
        }
    }

    public func removeValue(forKey key: Key) {
        state.withLock { state in
            if let slot = state.index[key] { Self.remove(slot, from: &state) }
        }
    }

    public func removeAll() {
        state.withLock { state in
            state.index.removeAll()
            state.slots.removeAll()
            state.free.removeAll()
            state.newest = -1
            state.oldest = -1
            state.bytes = 0
        }
    }

    public func statistics() -> CacheStatistics {
        state.withLock { state in
            var result = state.counts
            result.count = state.index.count
            return result
        }
    }

    /// The bytes the entries weigh by the budget's cost (0 without a budget).
    public var bytes: Int { state.withLock { $0.bytes } }

    private static func remove(_ slot: Int, from state: inout State) {
        guard let entry = state.slots[slot] else { return }
        unlink(slot, in: &state)
        state.index[entry.key] = nil
        state.slots[slot] = nil
        state.free.append(slot)
        state.bytes -= entry.bytes
    }

    private static func linkAsNewest(_ slot: Int, in state: inout State) {
        state.slots[slot]?.older = state.newest
        state.slots[slot]?.newer = -1
        if state.newest >= 0 { state.slots[state.newest]?.newer = slot }
        state.newest = slot
        if state.oldest < 0 { state.oldest = slot }
    }

    private static func unlink(_ slot: Int, in state: inout State) {
        guard let entry = state.slots[slot] else { return }
        if entry.newer >= 0 { state.slots[entry.newer]?.older = entry.older } else { state.newest = entry.older }
        if entry.older >= 0 { state.slots[entry.older]?.newer = entry.newer } else { state.oldest = entry.newer }
        state.slots[slot]?.newer = -1
        state.slots[slot]?.older = -1
    }
}

extension MemoryCache where C == ContinuousClock {
    /// A cache timed by the system's continuous clock.
    public convenience init(capacity: Int, defaultTimeToLive: Duration, budget: ByteBudget? = nil) {
        self.init(capacity: capacity, defaultTimeToLive: defaultTimeToLive, clock: ContinuousClock(), budget: budget)
    }
}
