import BridgetCaching
import Foundation
import Synchronization
import Testing

/// A clock that moves only when a test advances it.
final class ManualClock: Clock, Sendable {
    struct Instant: InstantProtocol {
        var offset: Duration
        func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        func duration(to other: Instant) -> Duration { other.offset - offset }
        static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private let current = Mutex(Instant(offset: .zero))
    var now: Instant { current.withLock { $0 } }
    var minimumResolution: Duration { .nanoseconds(1) }

    func advance(by duration: Duration) { current.withLock { $0 = $0.advanced(by: duration) } }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        advance(by: now.duration(to: deadline))
    }
}

@Suite("Memory cache")
struct MemoryCacheTests {
    @Test("least recently used entries are evicted first")
    func lruEviction() async {
        let cache: any Cache<String, Int> = MemoryCache<String, Int, ManualClock>(
            capacity: 2, defaultTimeToLive: .seconds(60), clock: ManualClock())
        await cache.insert(1, forKey: "a")
        await cache.insert(2, forKey: "b")
        #expect(await cache.value(forKey: "a") == 1) // "a" is now the most recent
        await cache.insert(3, forKey: "c") // evicts "b"
        #expect(await cache.value(forKey: "b") == nil)
        #expect(await cache.value(forKey: "a") == 1)
        #expect(await cache.value(forKey: "c") == 3)
        #expect(await cache.statistics() == CacheStatistics(hits: 3, misses: 1, evictions: 1, count: 2))
    }

    @Test("with a byte budget, the least recently used entries go until the rest fit; one over a quarter is not kept")
    func byteBudget() {
        let budget = MemoryCache<String, [UInt8], ManualClock>.ByteBudget(maximumBytes: 4_000) { key, value in
            key.utf8.count + value.count
        }
        let cache = MemoryCache<String, [UInt8], ManualClock>(capacity: 100, defaultTimeToLive: .seconds(60),
                                                              clock: ManualClock(), budget: budget)
        let body = [UInt8](repeating: 0x78, count: 899)
        for key in ["a", "b", "c", "d"] { cache.insert(body, forKey: key, timeToLive: nil) }
        #expect(cache.bytes == 3_600 && cache.value(forKey: "a") == body) // "a" is now the most recently used
        cache.insert(body, forKey: "e", timeToLive: nil) // 4,500 bytes: "b", the least recently used, goes
        #expect(cache.value(forKey: "b") == nil && cache.value(forKey: "a") != nil && cache.value(forKey: "e") != nil)
        #expect(cache.bytes == 3_600 && cache.statistics().evictions == 1)
        cache.insert([UInt8](repeating: 0x79, count: 1_500), forKey: "huge", timeToLive: nil) // over a quarter
        #expect(cache.value(forKey: "huge") == nil && cache.bytes == 3_600)
        cache.insert([1], forKey: "a", timeToLive: nil) // replacing an entry counts its new weight only
        #expect(cache.bytes == 2_702)
        cache.removeAll()
        #expect(cache.bytes == 0 && cache.statistics().count == 0)
    }

    @Test("entries expire after their time to live, by the injected clock")
    func expiry() async {
        let clock = ManualClock()
        let cache: any Cache<String, Int> = MemoryCache<String, Int, ManualClock>(
            capacity: 10, defaultTimeToLive: .seconds(60), clock: clock)
        await cache.insert(1, forKey: "short", timeToLive: .seconds(5))
        await cache.insert(2, forKey: "long")
        clock.advance(by: .seconds(5))
        #expect(await cache.value(forKey: "short") == nil)
        #expect(await cache.value(forKey: "long") == 2)
        clock.advance(by: .seconds(55))
        #expect(await cache.value(forKey: "long") == nil)
        let stats = await cache.statistics()
        #expect(stats.expirations == 2 && stats.count == 0)
    }

    @Test func replaceRemoveAndClear() async {
        let cache: any Cache<Int, String> = MemoryCache<Int, String, ManualClock>(
            capacity: 3, defaultTimeToLive: .seconds(1), clock: ManualClock())
        await cache.insert("x", forKey: 1)
        await cache.insert("y", forKey: 1)
        #expect(await cache.value(forKey: 1) == "y")
        #expect(await cache.statistics().count == 1)
        await cache.insert("z", forKey: 2)
        await cache.removeValue(forKey: 1)
        #expect(await cache.value(forKey: 1) == nil)
        await cache.removeAll()
        #expect(await cache.statistics().count == 0)
        for key in 0..<5 { await cache.insert("v\(key)", forKey: key) }
        #expect(await cache.statistics().count == 3)
        #expect(await cache.value(forKey: 4) == "v4")
        #expect(await cache.value(forKey: 1) == nil)
    }
}
