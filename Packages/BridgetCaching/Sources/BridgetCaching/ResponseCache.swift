import Foundation

/// The boundary to a cache of HTTP responses: bodies with their validators, for conditional requests and for
/// serving a copy when the network cannot (`CachePolicy`). `DiskCache` keeps them in files; another cache (in
/// memory, a database, a shared service) plugs into the HTTP client the same way.
///
/// An implementation must guarantee: a response is returned whole, as stored, or not at all (never a corrupt or cut
/// body); `store` replaces an earlier entry for the key; `refresh` marks an entry as confirmed now and is a no-op for
/// an entry no longer held; and it stays within whatever budget it has by dropping entries, not by failing a store.
public protocol ResponseCache: Sendable {
    /// The response stored under `key`, if one is held intact.
    func response(forKey key: String) async -> CachedResponse?
    /// Stores a body with its validators under `key`; returns what was recorded.
    @discardableResult
    func store(_ body: Data, forKey key: String, etag: String?, lastModified: String?, contentType: String?) async throws
        -> CachedResponseMetadata
    /// Marks an entry as confirmed fresh now (after a 304).
    func refresh(_ metadata: CachedResponseMetadata) async throws
}

extension DiskCache: ResponseCache {}
