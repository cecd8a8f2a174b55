import BridgetCaching
import BridgetCore
import BridgetDTOs
import BridgetNetworking
import BridgetPersistence
import BridgetSQLite
import BridgetTestSupport
import Foundation
import SocrataFixtureServer
import Testing

/// What a hostile network did to a sync (the hardening review), each through real HTTP on 127.0.0.1: the fixture
/// server, and a proxy in front of it that breaks responses on the wire.
@Suite("Hostile network")
struct HostileNetworkTests {
    /// A live provider on `baseURL` (the fixture's own, or a proxy's in front of it). Its timeout is a hang detector:
    /// a request that times out is sent again and takes the next injected fault, so on a loaded machine a short one
    /// would move every fault onto the wrong request (the test of the deadline gives its own).
    private func provider(_ fixture: LiveFixture, baseURL: URL? = nil, pageSize: Int = 100, cache: DiskCache? = nil,
                          policy: CachePolicy = .networkFirst, token: String? = nil, timeout: TimeInterval = TestTime.seconds(60),
                          attempts: Int = 4) throws -> LiveProvider {
        LiveProvider(client: fixture.client(cache: cache, policy: policy, token: token, timeout: timeout, attempts: attempts),
                     query: try SocrataQuery(baseURL: baseURL ?? fixture.baseURL, dataset: fixture.server.datasetID), pageSize: pageSize)
    }

    /// The requests the fixture answered, in order (what took which injected fault, when a test fails).
    static func said(_ fixture: LiveFixture) -> String {
        fixture.server.requests.map { request in
            let query = request.query.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "&")
            return "\(request.path)?\(query) → \(request.status)"
        }.joined(separator: "; ")
    }

    private func expectExact(_ store: SQLiteBridgeStore, _ fixture: LiveFixture) async throws {
        let stored = try await store.allEvents()
        #expect(stored.count == fixture.expected.events.count)
        #expect(Set(stored.map(\.key)) == Set(fixture.expected.events.map(\.key)))
    }

    // MARK: 1. Short pages

    @Test("a server that caps $limit at 60 while the client asks 5,000 still gives every row, and the next sync is exact")
    func cappedLimit() async throws {
        let fixture = try await LiveFixture.start(rows: 700)
        defer { Task { await fixture.stop() } }
        fixture.server.capLimit(at: 60)
        let provider = try provider(fixture, pageSize: 5_000)
        let store = try fixture.store()
        let report = try await fixture.pipeline(provider: provider, store: store).run(full: false)
        #expect(report.fetched == 700)
        #expect(report.pages == 12) // 11 pages of 60 and one of 40: none of them ended the walk
        try await expectExact(store, fixture)
        let again = try await fixture.pipeline(provider: provider, store: store).run(full: false)
        #expect(again.sourceUnchanged)
        try await expectExact(store, fixture)
    }

    @Test("one page cut short on the first attempt only: the walk goes on and the count is exact")
    func oneShortPage() async throws {
        let fixture = try await LiveFixture.start(rows: 500)
        defer { Task { await fixture.stop() } }
        fixture.server.inject([.pass, .pass, .shortPage(7)]) // change check, page 0, then page 1 cut to 7 rows
        let store = try fixture.store()
        let report = try await fixture.pipeline(provider: try provider(fixture), store: store).run(full: true)
        #expect(report.fetched == 500)
        try await expectExact(store, fixture)
    }

    @Test("an empty page before the end, cached with its ETag, is asked for again unconditionally: the sync is exact")
    func emptyPageIsNotRevalidated() async throws {
        let fixture = try await LiveFixture.start(rows: 300)
        defer { Task { await fixture.stop() } }
        // The change check, page 0 empty (cached with the page's ETag), the count, page 0 empty again, the count.
        fixture.server.inject([.pass, .shortPage(0), .pass, .shortPage(0)])
        let store = try fixture.store()
        let report = try await fixture.pipeline(provider: try provider(fixture, cache: try fixture.cache()), store: store)
            .run(full: true)
        #expect(report.fetched == 300)
        try await expectExact(store, fixture)
        let pageZero = fixture.server.requests.filter { $0.query["$offset"] == "0" }
        #expect(pageZero.count == 3, "\(Self.said(fixture))")
        #expect(pageZero.dropFirst().allSatisfy { $0.headers["if-none-match"] == nil })
    }

    @Test("a walk that keeps ending early fails, records no fingerprint, and the next sync fetches everything")
    func walkEndingEarlyIsNotComplete() async throws {
        let fixture = try await LiveFixture.start(rows: 300)
        defer { Task { await fixture.stop() } }
        // The change check, then page 0 empty four times with the count between: the walk resumes three times.
        fixture.server.inject([.pass] + Array(repeating: [FixtureFault.shortPage(0), .pass], count: 4).flatMap { $0 })
        let store = try fixture.store()
        let provider = try provider(fixture, cache: try fixture.cache())
        await #expect(throws: FeedError.self) {
            try await fixture.pipeline(provider: provider, store: store).run(full: false)
        }
        let run = try #require(try await store.syncRuns(limit: 1).first)
        #expect(run.status == .failed, "\(Self.said(fixture))")
        #expect(run.error?.contains("reached 0 rows, but the server counts 300") == true, "\(run.error ?? "")")
        #expect(try await store.lastSucceededRun(provider: "live") == nil)
        let next = try await fixture.pipeline(provider: provider, store: store).run(full: false)
        #expect(!next.sourceUnchanged && next.fetched == 300)
        try await expectExact(store, fixture)
    }

    // MARK: 2. A failed change check under stale-if-error

    @Test("stale-if-error never answers the change check from the cache: a failed check fetches pages and says so")
    func changeCheckIsNeverStale() async throws {
        let fixture = try await LiveFixture.start(rows: 300)
        defer { Task { await fixture.stop() } }
        let cache = try fixture.cache()
        let provider = try provider(fixture, cache: cache, policy: .staleIfError, attempts: 2)
        let store = try fixture.store()
        _ = try await fixture.pipeline(provider: provider, store: store).run(full: false)
        fixture.server.append([FixtureDataset.row(BridgeCatalog.seattle.bridges[2], open: "2026-03-01T10:00:00.000",
                                                  close: "2026-03-01T10:05:00.000", minutes: "5")])
        fixture.server.inject([.status(503), .status(503)]) // the change check fails twice: both its attempts
        let report = try await fixture.pipeline(provider: provider, store: store).run(full: false)
        #expect(!report.sourceUnchanged)
        #expect(report.inserted == 1)
        #expect(report.warnings.contains { $0.contains("the change check failed, so every page is fetched instead") })
        #expect(try await store.lastSucceededRun(provider: "live")?.fingerprint == nil)
    }

    // MARK: 5. The token and other origins

    @Test("a redirect to another origin on this machine is refused: nothing, the token least of all, goes there")
    func tokenStaysWithItsOrigin() async throws {
        let fixture = try await LiveFixture.start(rows: 200)
        defer { Task { await fixture.stop() } }
        let elsewhere = WireFaultProxy(upstream: fixture.baseURL) // another port: another origin, and a loopback one
        let other = try elsewhere.start()
        defer { elsewhere.stop() }
        fixture.server.inject([.pass, .redirect(port: other.port ?? 0)]) // page 0 moves to the other origin
        let store = try fixture.store()
        let token = "s3cret-token-\(UUID().uuidString)"
        let provider = try provider(fixture, token: token)
        do {
            _ = try await fixture.pipeline(provider: provider, store: store).run(full: true)
            Issue.record("expected network.redirect-refused")
        } catch let error as FeedError {
            #expect(error.code == "network.redirect-refused", "\(error)")
            #expect(error.description.contains("loopback") && !error.description.contains(token), "\(error.description)")
        }
        #expect(elsewhere.requests.isEmpty, "no request reached the other origin")
        #expect(fixture.server.requests.first?.headers["x-app-token"] == token) // its own origin still gets it
        #expect(try await store.eventCount(bridgeID: nil) == 0)
    }

    // MARK: 6. Body size while receiving

    @Test("a declared Content-Length over the limit is refused before the body is read")
    func declaredLengthIsRefused() async throws {
        let fixture = try await LiveFixture.start(rows: 100)
        defer { Task { await fixture.stop() } }
        let (proxy, front) = try Self.proxy(in: fixture)
        defer { proxy.stop() }
        proxy.inject([.declaredLength(10_000_000_000)])
        let client = fixture.client(cache: nil, timeout: 120, maxBytes: 2_000_000)
        let started = ContinuousClock.now
        do {
            _ = try await client.get(try SocrataQuery(baseURL: front, dataset: fixture.server.datasetID).changeCheckURL)
            Issue.record("expected network.too-large")
        } catch let error as FeedError {
            #expect(error.code == "network.too-large")
            #expect(error.description.contains("declared a body of 10000000000 bytes"), "\(error.description)")
        }
        // "declared": refused on the response's head, before any of the body was taken in (the message says so; the
        // time is a hang detector: reading ten gigabytes would take far longer).
        #expect(ContinuousClock.now - started < TestTime.duration(.seconds(120)))
        #expect(proxy.requests.count <= 1) // not retried
    }

    // MARK: 7. The timeout is a deadline

    @Test("a body dripped a byte at a time ends at the deadline and is retried")
    func dripIsADeadline() async throws {
        let fixture = try await LiveFixture.start(rows: 200)
        defer { Task { await fixture.stop() } }
        let (proxy, front) = try Self.proxy(in: fixture)
        defer { proxy.stop() }
        // The change check's body (about 50 bytes) at 4 bytes a second: 12 s without a deadline, while each byte
        // comes well within the session's idle timeout.
        proxy.inject([.drip(interval: TestTime.seconds(0.25))])
        let store = try fixture.store()
        let started = ContinuousClock.now
        let report = try await fixture.pipeline(provider: try provider(fixture, baseURL: front, timeout: TestTime.seconds(2)), store: store)
            .run(full: true)
        #expect(report.fetched == 200)
        try await expectExact(store, fixture)
        // The client gave up on the dripped answer at its deadline, long before the last byte: the proxy's write
        // failed part way. (Its entry is logged when it stops writing; elapsed time under a loaded machine says less.)
        let deadline = ContinuousClock.now + TestTime.duration(.seconds(120))
        while !proxy.requests.contains(where: { $0.fault != nil }), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        let dripped = try #require(proxy.requests.first { $0.fault == .drip(interval: TestTime.seconds(0.25)) })
        #expect(!dripped.completed)
        #expect(ContinuousClock.now - started < TestTime.duration(.seconds(120))) // a hang detector
    }

    // MARK: 9. Cut-off bodies are retried

    static let cutOff: [WireFault] = [.cutBody, .closeMidBody]

    @Test("a body cut short is retried and the sync is exact", arguments: cutOff)
    func cutBodyOnce(_ fault: WireFault) async throws {
        let fixture = try await LiveFixture.start(rows: 300)
        defer { Task { await fixture.stop() } }
        let (proxy, front) = try Self.proxy(in: fixture)
        defer { proxy.stop() }
        let store = try fixture.store()
        let provider = try provider(fixture, baseURL: front)
        proxy.inject([fault, fault]) // the change check, then its retry
        let report = try await fixture.pipeline(provider: provider, store: store).run(full: true)
        #expect(report.fetched == 300)
        #expect(proxy.requests.prefix(2).allSatisfy { $0.fault == fault })
        try await expectExact(store, fixture)
    }

    @Test("a body cut short every time fails with a clear error and leaves the store as it was", arguments: cutOff)
    func cutBodyAlways(_ fault: WireFault) async throws {
        let fixture = try await LiveFixture.start(rows: 300)
        defer { Task { await fixture.stop() } }
        let (proxy, front) = try Self.proxy(in: fixture)
        defer { proxy.stop() }
        let store = try fixture.store()
        let provider = try provider(fixture, baseURL: front, attempts: 3)
        _ = try await fixture.pipeline(provider: provider, store: store).run(full: false)
        let before = try await store.allEvents()
        fixture.server.append([FixtureDataset.row(BridgeCatalog.seattle.bridges[0], open: "2026-02-01T10:00:00.000",
                                                  close: "2026-02-01T10:04:00.000", minutes: "4")])
        proxy.inject(Array(repeating: fault, count: 6)) // every attempt of the change check, then of page 0
        do {
            _ = try await fixture.pipeline(provider: provider, store: store).run(full: false)
            Issue.record("expected the sync to fail")
        } catch let error as FeedError {
            #expect(error.description.contains("gave up on \(front.absoluteString)/resource/\(fixture.server.datasetID).json"), "\(error.description)")
            #expect(error.description.contains("after 3 attempts"))
        }
        #expect(try await store.allEvents() == before)
        #expect(try await store.syncRuns(limit: 1).first?.status == .failed)
    }

    @Test("an empty 200 body is retried once and fails clearly when it never mends")
    func emptyBody() async throws {
        let fixture = try await LiveFixture.start(rows: 200)
        defer { Task { await fixture.stop() } }
        let store = try fixture.store()
        fixture.server.inject([.pass, .emptyBody]) // page 0 empty once
        let report = try await fixture.pipeline(provider: try provider(fixture, attempts: 2), store: store).run(full: true)
        #expect(report.fetched == 200)
        try await expectExact(store, fixture)

        let client = fixture.client(cache: nil, attempts: 2)
        fixture.server.inject([.emptyBody, .emptyBody])
        do {
            _ = try await client.get(try fixture.query.changeCheckURL)
            Issue.record("expected the request to fail")
        } catch let error as FeedError {
            #expect(error.code == "network.malformed-body")
            #expect(error.description.contains("sent an empty body"), "\(error.description)")
        }
    }

    @Test("a host name that does not resolve is tried twice, after one short wait, and fails as a transport failure")
    func unresolvedHost() async throws {
        let sleeps = SleepRecorder()
        let client = FeedClient(
            transport: URLSessionTransport(timeout: 30), cache: nil,
            settings: FeedClient.Settings(timeout: 30, retry: RetryPolicy(maxAttempts: 5, baseDelay: 0.2, maxDelay: 30)),
            sleep: { seconds in
                sleeps.record(seconds)
                try await Task.sleep(for: .seconds(seconds))
            })
        let url = try #require(URL(string: "http://bridget-test.invalid/resource/gm8h-9449.json")) // RFC 6761
        do {
            _ = try await client.get(url)
            Issue.record("expected the request to fail")
        } catch let error as FeedError {
            #expect(FeedClient.isUnresolvedHost(error) && error.code == "network.transport", "\(error)")
            #expect(error.description.hasPrefix("http://bridget-test.invalid/resource/gm8h-9449.json: "), "\(error)")
            let shown = try #require(ErrorPresentation(error))
            #expect(shown.message.hasPrefix("could not resolve the host bridget-test.invalid: "), "\(shown.message)")
            #expect(shown.hint?.contains("DNS") == true && shown.hint?.contains("app token") == false && shown.exitCode == 69)
        }
        #expect(await client.networkRequests == 2)
        #expect(sleeps.all.count == 1 && sleeps.all.allSatisfy { $0 <= 0.2 }, "\(sleeps.all)")
    }

    /// The proxy's first request once it has finished answering it (its log entry is written at the end).
    private static func firstRequest(_ proxy: WireFaultProxy) async -> WireFaultProxy.LoggedRequest? {
        let deadline = ContinuousClock.now + TestTime.duration(.seconds(120)) // a hang detector
        while proxy.requests.isEmpty, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(20)) }
        return proxy.requests.first
    }

    /// A wire-fault proxy in front of the fixture's server, started; stop it when done.
    private static func proxy(in fixture: LiveFixture) throws -> (WireFaultProxy, URL) {
        let proxy = WireFaultProxy(upstream: fixture.baseURL)
        return (proxy, try proxy.start())
    }
}
