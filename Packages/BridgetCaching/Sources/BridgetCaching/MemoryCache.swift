import Foundation

/// An in-memory LRU cache with a capacity and a per-entry time to live, timed by an injected clock.
///
/// Recency is kept in a doubly linked list threaded through the entries by key, so reads, inserts and evictions
/// are O(1).
public actor MemoryCache<Key: Hashable & Sendable, Value: Sendable, C: Clock>: Cache where C.Duration == Duration {
    private struct Entry {
        var value: Value
        var expires: C.Instant
        var newer: Key?
        var older: Key?
    }

    /// Maximum number of entries.
    public let capacity: Int
    /// Time to live of entries inserted without their own.
    public let defaultTimeToLive: Duration
    private let clock: C
    private var entries: [Key: Entry] = [:]
    private var newest: Key?
    private var oldest: Key?
    private var counts = CacheStatistics()

    /// Creates a cache; `capacity` is at least 1.
    public init(capacity: Int, defaultTimeToLive: Duration, clock: C) {
        self.capacity = max(1, capacity)
        self.defaultTimeToLive = defaultTimeToLive
        self.clock = clock
    }

    public func value(forKey key: Key) -> Value? {
        guard let entry = entries[key] else {
            counts.misses += 1
            return nil
        }
        guard clock.now < entry.expires else {
            unlink(key)
            entries[key] = nil
            counts.expirations += 1
            counts.misses += 1
            return nil
        }
        counts.hits += 1
        unlink(key)
        linkAsNewest(key, entry)
        return entry.value
    }

    public func insert(_ value: Value, forKey key: Key, timeToLive: Duration?) {
        let expires = clock.now.advanced(by: timeToLive ?? defaultTimeToLive)
        if entries[key] != nil { unlink(key) }
        linkAsNewest(key, Entry(value: value, expires: expires))
        while entries.count > capacity, let victim = oldest {
            unlink(victim)
            entries[victim] = nil
            counts.evictions += 1
        }
    }

    public func removeValue(forKey key: Key) {
        guard entries[key] != nil else { return }
        unlink(key)
        entries[key] = nil
    }

    public func removeAll() {
        entries.removeAll()
        newest = nil
        oldest = nil
    }

    public func statistics() -> CacheStatistics {
        var result = counts
        result.count = entries.count
        return result
    }

    private func linkAsNewest(_ key: Key, _ entry: Entry) {
        var entry = entry
        entry.older = newest
        entry.newer = nil
        if let previous = newest { entries[previous]?.newer = key }
        entries[key] = entry
        newest = key
        if oldest == nil { oldest = key }
    }

    private func unlink(_ key: Key) {
        guard let entry = entries[key] else { return }
        if let newer = entry.newer { entries[newer]?.older = entry.older } else { newest = entry.older }
        if let older = entry.older { entries[older]?.newer = entry.newer } else { oldest = entry.newer }
        entries[key]?.newer = nil
        entries[key]?.older = nil
    }
}

extension MemoryCache where C == ContinuousClock {
    /// A cache timed by the system's continuous clock.
    public init(capacity: Int, defaultTimeToLive: Duration) {
        self.init(capacity: capacity, defaultTimeToLive: defaultTimeToLive, clock: ContinuousClock())
    }
}
