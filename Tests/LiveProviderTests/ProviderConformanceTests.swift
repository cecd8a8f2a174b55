import BridgetContext
import BridgetCore
import BridgetNDW
import BridgetNetworking
import BridgetNetworkingTesting
import Foundation
import Testing

/// The real NDW snapshot of 2023-11-22, as the repository keeps it for the examples.
enum NDWSnapshotFile {
    static let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Config/examples/data/ndw-brugopeningen-2023-11-22.xml.gz")
}

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

    @Test("the NDW provider keeps the promise over HTTP (the same client: retries, cache, conditional GET)",
          arguments: ProviderConformance.Promise.allCases)
    func ndwProvider(_ promise: ProviderConformance.Promise) async throws {
        let fixture = try await LiveFixture.start(rows: 1)
        defer { Task { await fixture.stop() } }
        let snapshot = try Data(contentsOf: NDWSnapshotFile.url)
        fixture.server.serve(file: snapshot, at: "/brugopeningen.xml.gz")
        let url = fixture.baseURL.appendingPathComponent("brugopeningen.xml.gz")
        let cache = try fixture.cache()
        let settings = FeedClient.Settings(timeout: 120, maximumBodyBytes: 64_000_000,
                                           retry: RetryPolicy(maxAttempts: 3, baseDelay: 0.01, maxDelay: 0.1, jitter: 0),
                                           body: .any)
        try await promise.check(minimumPages: 1) {
            NDWProvider(source: .url(url), client: FeedClient(transport: URLSessionTransport(timeout: 120), cache: cache,
                                                              settings: settings))
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

    @Test("every provider kind the configuration offers, made by the composition root, keeps the promise",
          arguments: ProviderKind.allCases)
    func everyProviderKind(_ kind: ProviderKind) async throws {
        let fixture = try await LiveFixture.start(rows: 600)
        defer { Task { await fixture.stop() } }
        let cache = fixture.folder + "/cache"
        func context(_ provider: String) throws -> AppContext {
            let path = fixture.folder + "/\(UUID().uuidString).yaml"
            try """
                provider:
                \(provider)
                cache: {path: \(cache)}
                store: {path: \(fixture.folder)/store.sqlite}
                """.write(toFile: path, atomically: true, encoding: .utf8)
            return try AppContext.load(configPath: path, environment: [:], notes: { _ in })
        }
        let settings = "{base_url: \"\(fixture.baseURL.absoluteString)\", dataset: \(fixture.server.datasetID), page_size: 100}"
        let live = "  kind: live\n  live: \(settings)"
        // One arm a kind, no default: a kind added to the configuration does not compile here until it is tested.
        let (made, minimumPages): (AppContext, Int) = switch kind {
        case .sample: (try context("  kind: sample\n  sample: {days: 20, end_date: 2026-06-30, page_size: 200}"), 2)
        case .live: (try context(live), 2)
        case .cached: (try context("  kind: cached\n  live: \(settings)"), 2)
        case .ndw: (try context("  kind: ndw\n  ndw: {source: \"\(NDWSnapshotFile.url.path)\"}"), 1)
        }
        if kind == .cached { // the cache a live sync through the same settings fills
            let filler = try context(live)
            _ = try await filler.assembly.makeSyncPipeline(store: try await filler.assembly.makeStore()).run(full: true)
        }
        for promise in ProviderConformance.Promise.allCases {
            try await promise.check(minimumPages: minimumPages) { try made.assembly.makeProvider() }
        }
    }
}
