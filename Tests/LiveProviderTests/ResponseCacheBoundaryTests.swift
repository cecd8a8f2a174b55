import BridgetCaching
import BridgetNetworking
import Foundation
import SocrataFixtureServer
import Synchronization
import Testing

/// The HTTP client over the `ResponseCache` boundary, with a cache that is not the disk cache: what a project that
/// keeps responses elsewhere (in memory, in a database) plugs in.
@Suite("Response cache boundary")
struct ResponseCacheBoundaryTests {
    /// Responses kept in a dictionary.
    actor DictionaryResponseCache: ResponseCache {
        private(set) var entries: [String: CachedResponse] = [:]
        private(set) var refreshes = 0

        func response(forKey key: String) -> CachedResponse? { entries[key] }

        @discardableResult
        func store(_ body: Data, forKey key: String, etag: String?, lastModified: String?, contentType: String?)
            -> CachedResponseMetadata
        {
            let metadata = CachedResponseMetadata(key: key, etag: etag, lastModified: lastModified,
                                                  contentType: contentType, fetchedAt: Date(), size: body.count,
                                                  checksum: DiskCache.checksum(body))
            entries[key] = CachedResponse(metadata: metadata, body: body)
            return metadata
        }

        func refresh(_ metadata: CachedResponseMetadata) {
            refreshes += 1
            if let entry = entries[metadata.key] {
                entries[metadata.key] = CachedResponse(metadata: metadata.refreshed(at: Date()), body: entry.body)
            }
        }
    }

    @Test("another cache behind the boundary: stored on 200, revalidated with its ETag and reused on 304, served stale on error")
    func anotherCache() async throws {
        let fixture = try await LiveFixture.start(rows: 100)
        defer { Task { await fixture.stop() } }
        let cache = DictionaryResponseCache()
        let settings = FeedClient.Settings(timeout: 120, retry: RetryPolicy(maxAttempts: 2, baseDelay: 0.01),
                                           cachePolicy: .staleIfError)
        let client = FeedClient(transport: URLSessionTransport(timeout: 120), cache: cache, settings: settings)
        let url = try fixture.query.pageURL(since: nil, limit: 50, offset: 0)
        let first = try await client.get(url)
        #expect(await cache.entries[url.absoluteString]?.body == first)
        #expect(try await client.get(url) == first)
        let log = fixture.server.requests
        #expect(log.map(\.status) == [200, 304])
        #expect(log[1].headers["if-none-match"] == (await cache.entries[url.absoluteString]?.metadata.etag))
        #expect(await cache.refreshes == 1)
        fixture.server.inject([.status(503), .status(503)])
        #expect(try await client.get(url) == first) // both attempts failed: the stored copy, as the policy says
    }

    /// A cache holding one old answer that can store nothing more, as on a full disk.
    struct FullResponseCache: ResponseCache {
        let held: CachedResponse

        func response(forKey key: String) -> CachedResponse? { key == held.metadata.key ? held : nil }

        func store(_ body: Data, forKey key: String, etag: String?, lastModified: String?, contentType: String?)
            throws -> CachedResponseMetadata
        {
            throw CacheError.cannotWrite(folder: "/full", reason: "No space left on device")
        }

        func refresh(_ metadata: CachedResponseMetadata) {}
    }

    @Test("an answer that cannot be stored fails the fetch, or under stale-if-error serves the copy held, with a warning")
    func storingFails() async throws {
        let fixture = try await LiveFixture.start(rows: 100)
        defer { Task { await fixture.stop() } }
        let url = try fixture.query.pageURL(since: nil, limit: 50, offset: 0)
        let old = Data("[]".utf8)
        let cache = FullResponseCache(held: CachedResponse(metadata: CachedResponseMetadata(
            key: url.absoluteString, etag: nil, lastModified: nil, contentType: "application/json",
            fetchedAt: Date(timeIntervalSince1970: 0), size: old.count, checksum: DiskCache.checksum(old)), body: old))
        let networkFirst = FeedClient(transport: URLSessionTransport(timeout: 120), cache: cache,
                                      settings: FeedClient.Settings(timeout: 120, cachePolicy: .networkFirst))
        await #expect(throws: CacheError.cannotWrite(folder: "/full", reason: "No space left on device")) {
            try await networkFirst.get(url)
        }
        let warnings = Mutex<[String]>([])
        let staleIfError = FeedClient(transport: URLSessionTransport(timeout: 120), cache: cache,
                                      settings: FeedClient.Settings(timeout: 120, cachePolicy: .staleIfError),
                                      warn: { message in warnings.withLock { $0.append(message) } })
        #expect(try await staleIfError.get(url) == old)
        #expect(warnings.withLock { $0 }.first?.contains("because: cannot write to the cache folder /full") == true)
    }
}
