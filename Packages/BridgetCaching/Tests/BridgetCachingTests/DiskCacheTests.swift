import BridgetCaching
import Foundation
import Synchronization
import Testing

@Suite("Disk cache")
struct DiskCacheTests {
    func folder() -> String { NSTemporaryDirectory() + "bridget-cache-" + UUID().uuidString }

    @Test("a stored body comes back with its validators, and survives a new instance")
    func roundTrip() async throws {
        let path = folder()
        let cache = try DiskCache(directory: path, maximumBytes: 1_000_000)
        let body = Data(#"[{"entityid":"3"}]"#.utf8)
        try await cache.store(body, forKey: "https://x/resource/a.json?$limit=1", etag: "W/\"1\"",
                              lastModified: "Mon, 01 Jun 2026 12:00:00 GMT", contentType: "application/json")
        let again = try DiskCache(directory: path, maximumBytes: 1_000_000)
        let cached = try #require(await again.response(forKey: "https://x/resource/a.json?$limit=1"))
        #expect(cached.body == body)
        #expect(cached.metadata.etag == "W/\"1\"" && cached.metadata.size == body.count)
        #expect(await again.response(forKey: "https://x/other") == nil)
        let files = try FileManager.default.contentsOfDirectory(atPath: path)
        #expect(!files.contains { $0.hasPrefix(".tmp-") })
        let stats = await again.statistics()
        #expect(stats.hits == 1 && stats.misses == 1)
    }

    @Test("a truncated or altered body is discarded, never served", arguments: ["truncate", "alter", "garbage-meta"])
    func corruptEntries(_ damage: String) async throws {
        let path = folder()
        let cache = try DiskCache(directory: path, maximumBytes: 1_000_000)
        try await cache.store(Data(repeating: 65, count: 1_000), forKey: "k", etag: nil, lastModified: nil, contentType: nil)
        let files = try FileManager.default.contentsOfDirectory(atPath: path)
        let body = path + "/" + files.first { $0.hasSuffix(".body") }!
        let meta = path + "/" + files.first { $0.hasSuffix(".meta") }!
        switch damage {
        case "truncate": try Data(repeating: 65, count: 400).write(to: URL(fileURLWithPath: body))
        case "alter": try Data(repeating: 66, count: 1_000).write(to: URL(fileURLWithPath: body))
        default: try Data("{not json".utf8).write(to: URL(fileURLWithPath: meta))
        }
        #expect(await cache.response(forKey: "k") == nil)
        #expect(await cache.statistics().discarded == 1)
        #expect(try FileManager.default.contentsOfDirectory(atPath: path).filter { !$0.hasPrefix(".") }.isEmpty)
    }

    @Test("the size budget evicts the entries fetched longest ago")
    func budget() async throws {
        let clock = Mutex(Date(timeIntervalSince1970: 0))
        let cache = try DiskCache(directory: folder(), maximumBytes: 2_500, now: { clock.withLock { $0 } })
        for index in 0..<4 {
            clock.withLock { $0 = Date(timeIntervalSince1970: Double(index)) }
            try await cache.store(Data(repeating: 1, count: 1_000), forKey: "k\(index)", etag: nil, lastModified: nil,
                                  contentType: nil)
        }
        for (key, kept) in [("k0", false), ("k1", false), ("k2", true), ("k3", true)] {
            #expect((await cache.response(forKey: key) != nil) == kept, "\(key)")
        }
        let stats = await cache.statistics()
        #expect(stats.entries == 2 && stats.bytes == 2_000 && stats.evictions == 2)
        #expect(await cache.clear() == 2)
        #expect(await cache.statistics().entries == 0)
    }

    @Test("entries another instance stored count at the next full count, and go oldest first")
    func budgetAcrossInstances() async throws {
        let path = folder()
        let clock = Mutex(Date(timeIntervalSince1970: 0))
        let first = try DiskCache(directory: path, maximumBytes: 2_500, now: { clock.withLock { $0 } })
        let second = try DiskCache(directory: path, maximumBytes: 2_500, now: { clock.withLock { $0 } })
        func store(_ cache: DiskCache, _ key: String, at time: Double) async throws {
            clock.withLock { $0 = Date(timeIntervalSince1970: time) }
            try await cache.store(Data(repeating: 1, count: 1_000), forKey: key, etag: nil, lastModified: nil,
                                  contentType: nil)
        }
        try await store(first, "a0", at: 0)
        try await store(second, "b0", at: 1) // like another process: `first` has not counted it yet
        try await store(first, "a1", at: 2)
        try await store(first, "a2", at: 3) // past the budget by its own count: a full count sees b0 too
        for (key, kept) in [("a0", false), ("b0", false), ("a1", true), ("a2", true)] {
            #expect((await first.response(forKey: key) != nil) == kept, "\(key)")
        }
        #expect(await first.statistics().bytes == 2_000)
        #expect(await first.statistics().evictions == 2)
    }

    @Test("a body larger than the whole budget is not kept and evicts nothing")
    func oversizedBody() async throws {
        let cache = try DiskCache(directory: folder(), maximumBytes: 1_000)
        try await cache.store(Data(repeating: 1, count: 600), forKey: "small", etag: nil, lastModified: nil, contentType: nil)
        try await cache.store(Data(repeating: 2, count: 5_000), forKey: "huge", etag: nil, lastModified: nil, contentType: nil)
        #expect(await cache.response(forKey: "huge") == nil)
        #expect(await cache.response(forKey: "small")?.body.count == 600)
        #expect(await cache.statistics().evictions == 0)
    }

    @Test func unwritableFolder() {
        let blocker = folder()
        #expect(FileManager.default.createFile(atPath: blocker, contents: Data("x".utf8)))
        let error = #expect(throws: CacheError.self) { try DiskCache(directory: blocker + "/cache", maximumBytes: 10) }
        guard case .cannotCreateFolder(let path, _) = error else {
            Issue.record("expected cannotCreateFolder, got \(String(describing: error))")
            return
        }
        #expect(path == blocker + "/cache")
        #expect(error?.code == "cache.folder")
        #expect("\(error!)".hasPrefix("cannot create the cache folder \(blocker)/cache: "))
    }
}
