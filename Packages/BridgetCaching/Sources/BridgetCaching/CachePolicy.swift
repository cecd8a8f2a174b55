import Foundation

/// How a client combines its cache with the network.
public enum CachePolicy: Sendable, Equatable {
    /// Serve a cached body younger than `maxAge` without asking the network; otherwise ask (conditionally).
    case cacheFirst(maxAge: TimeInterval)
    /// Always ask the network (conditionally, with the cached validators); fail if it fails.
    case networkFirst
    /// Never use the network: serve what is cached, whatever its age, or fail.
    case cacheOnly
    /// Ask the network; if it fails after every retry, serve the cached body with a warning.
    case staleIfError

    /// The policy for a configuration name; `maxAge` is used by `cache-first`.
    public init?(name: String, maxAge: TimeInterval) {
        switch name {
        case "network-first": self = .networkFirst
        case "cache-first": self = .cacheFirst(maxAge: maxAge)
        case "cache-only": self = .cacheOnly
        case "stale-if-error": self = .staleIfError
        default: return nil
        }
    }
}
