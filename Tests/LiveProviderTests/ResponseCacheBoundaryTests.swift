import BridgetCaching
import BridgetNetworking
import Foundation
import SocrataFixtureServer
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
        let settings = FeedClient.Settings(timeout: 10, retry: RetryPolicy(maxAttempts: 2, baseDelay: 0.01),
                                           cachePolicy: .staleIfError)
        let client = FeedClient(transport: URLSessionTransport(timeout: 10), cache: cache, settings: settings)
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
}
