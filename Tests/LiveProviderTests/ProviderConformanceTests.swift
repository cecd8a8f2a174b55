@testable import BridgetCLI
import BridgetNetworking
import BridgetNetworkingTesting
import Testing

/// `NetworkProcessing`'s promises (the suite the sample provider passes in its package), checked against the live
/// provider on the fixture server and against the cached provider over what a live sync left in its cache.
@Suite("Provider conformance against the fixture server")
struct LiveProviderConformanceTests {
    @Test("the live provider keeps the promise", arguments: ProviderConformance.Promise.allCases)
    func liveProvider(_ promise: ProviderConformance.Promise) async throws {
        let fixture = try await LiveFixture.start(rows: 600)
        defer { Task { await fixture.stop() } }
        try await promise.check {
            LiveProvider(client: fixture.client(cache: nil), query: try fixture.query, pageSize: 100)
        }
    }

    @Test("the cached provider, filled by a live sync, keeps the promise", arguments: ProviderConformance.Promise.allCases)
    func cachedProvider(_ promise: ProviderConformance.Promise) async throws {
        let fixture = try await LiveFixture.start(rows: 600)
        defer { Task { await fixture.stop() } }
        let cache = try fixture.cache()
        let live = LiveProvider(client: fixture.client(cache: cache), query: try fixture.query, pageSize: 100)
        _ = try await fixture.pipeline(provider: live, store: try fixture.store()).run(full: true)
        try await promise.check { CachedProvider(cache: cache, query: try fixture.query, pageSize: 100) }
    }
}
