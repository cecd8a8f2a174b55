import BridgetCaching
import BridgetCore
import BridgetDTOs
import BridgetNetworking
import BridgetPersistence
import BridgetTestSupport
import Foundation
import SocrataFixtureServer
import Testing

@Suite("Live provider against the fixture server")
struct LiveProviderTests {
    @Test("a full sync stores exactly the served rows: none missing, none twice, ties on opendatetime included")
    func fullSyncIsExact() async throws {
        let fixture = try await LiveFixture.start(rows: 1_500)
        defer { Task { await fixture.stop() } }
        let provider = LiveProvider(client: fixture.client(cache: try fixture.cache()), query: try fixture.query,
                                    pageSize: 100)
        let store = try fixture.store()
        // As a production server: Nagle's algorithm off, or a page's end may wait 40 ms for a delayed ACK.
        #expect(fixture.server.sendsWithoutDelay)
        let report = try await fixture.pipeline(provider: provider, store: store).run(full: true)
        let expected = fixture.expected
        #expect(report.fetched == fixture.dataset.records.count)
        #expect(report.inserted == expected.events.count)
        #expect(report.rejected == expected.rejected.count)
        let stored = try await store.allEvents()
        #expect(Set(stored.map(\.key)) == Set(expected.events.map(\.key)))
        #expect(stored.count == expected.events.count)
        #expect(report.pages == 15)
        let pageRequests = fixture.server.requests.filter { $0.query["$order"] != nil }
        #expect(pageRequests.allSatisfy { $0.query["$order"] == "opendatetime,:id" })
        #expect(Set(pageRequests.compactMap { $0.query["$offset"] }).count == pageRequests.count)
    }

    @Test("an unchanged dataset costs at most two small requests and inserts nothing; new rows arrive next time")
    func incrementalSync() async throws {
        let fixture = try await LiveFixture.start(rows: 800)
        defer { Task { await fixture.stop() } }
        let provider = LiveProvider(client: fixture.client(cache: try fixture.cache()), query: try fixture.query,
                                    pageSize: 200)
        let store = try fixture.store()
        _ = try await fixture.pipeline(provider: provider, store: store).run(full: false)
        let before = fixture.server.requests.count
        let second = try await fixture.pipeline(provider: provider, store: store).run(full: false)
        let made = fixture.server.requests.count - before
        #expect(made <= 2)
        #expect(second.inserted == 0 && second.updated == 0 && second.sourceUnchanged)
        #expect(fixture.server.requests.suffix(made).allSatisfy { $0.query["$select"] != nil })

        let fresh = (0..<5).map { minute in
            FixtureDataset.row(BridgeCatalog.seattle.bridges[2], open: "2026-01-0\(minute + 1)T10:00:00.000",
                               close: "2026-01-0\(minute + 1)T10:05:00.000", minutes: "5")
        }
        fixture.server.append(fresh)
        let third = try await fixture.pipeline(provider: provider, store: store).run(full: false)
        #expect(third.inserted == 5 && !third.sourceUnchanged)
        #expect(third.since != nil)
    }

    @Test("under cache-first the change check still asks the server, so new rows are not missed")
    func cacheFirstStillSeesChanges() async throws {
        let fixture = try await LiveFixture.start(rows: 300)
        defer { Task { await fixture.stop() } }
        let provider = LiveProvider(client: fixture.client(cache: try fixture.cache(), policy: .cacheFirst(maxAge: 3600)),
                                    query: try fixture.query, pageSize: 100)
        let store = try fixture.store()
        _ = try await fixture.pipeline(provider: provider, store: store).run(full: false)
        fixture.server.append([FixtureDataset.row(BridgeCatalog.seattle.bridges[2], open: "2026-03-01T10:00:00.000",
                                                  close: "2026-03-01T10:05:00.000", minutes: "5")])
        let second = try await fixture.pipeline(provider: provider, store: store).run(full: false)
        #expect(second.inserted == 1 && !second.sourceUnchanged)
    }

    static let transient: [String] = [
        "429", "429:1", "202", "500", "503", "hang:3", "truncated", "html:503", "408", "malformed", "empty",
    ]

    @Test("transient faults are retried and the sync completes", arguments: transient)
    func transientFaults(_ plan: String) async throws {
        let fixture = try await LiveFixture.start(rows: 300)
        defer { Task { await fixture.stop() } }
        let sleeps = SleepRecorder()
        // A short deadline where the fault is a wait (a hanging or truncated answer ends, and is retried, soon);
        // a roomy one otherwise, so a loaded machine's slow answer is not a second fault.
        let waits = plan.hasPrefix("hang") || plan == "truncated"
        let provider = LiveProvider(client: fixture.client(cache: nil, timeout: waits ? TestTime.seconds(2) : 120, sleeps: sleeps),
                                    query: try fixture.query, pageSize: 100)
        var fault = try #require(FixtureFault(plan: plan))
        if case .hang(let seconds) = fault { fault = .hang(TestTime.seconds(seconds)) } // longer than the deadline
        fixture.server.inject([fault])
        let store = try fixture.store()
        let report = try await fixture.pipeline(provider: provider, store: store).run(full: true)
        #expect(report.inserted == fixture.expected.events.count)
        #expect(!sleeps.all.isEmpty)
        if plan == "429:1" { #expect(sleeps.all.contains(1)) } // Retry-After honoured
    }

    static let permanent: [(String, String, String)] = [
        ("400", "network.http-400", "injected 400 (fault.injected)"),
        ("401:shape1", "network.http-401", "injected 401 (fault.injected)"),
        ("403:shape2", "network.http-403", "injected 403"),
        ("404", "network.http-404", "404"),
        ("oversized", "network.too-large", "over the limit"),
        ("text", "network.content-type", "not JSON"),
    ]

    @Test("permanent faults fail with their own error, are not retried, and leave the store as it was",
          arguments: permanent)
    func permanentFaults(_ plan: String, _ code: String, _ fragment: String) async throws {
        let fixture = try await LiveFixture.start(rows: 300)
        defer { Task { await fixture.stop() } }
        let provider = LiveProvider(client: fixture.client(cache: nil), query: try fixture.query, pageSize: 100)
        let store = try fixture.store()
        _ = try await fixture.pipeline(provider: provider, store: store).run(full: false)
        let stored = try await store.allEvents()
        fixture.server.append([FixtureDataset.row(BridgeCatalog.seattle.bridges[0], open: "2026-02-01T10:00:00.000",
                                                  close: "2026-02-01T10:04:00.000", minutes: "4")])
        // The change check passes (a failed one only means every page is fetched); the first page gets the fault.
        fixture.server.inject([.pass, try #require(FixtureFault(plan: plan))])
        let before = fixture.server.requests.count
        do {
            _ = try await fixture.pipeline(provider: provider, store: store).run(full: false)
            Issue.record("expected \(code)")
        } catch let error as FeedError {
            #expect(error.code == code)
            #expect(error.description.contains(fragment), "\(error.description)")
            #expect(error.description.contains(fixture.baseURL.absoluteString + "/resource/\(fixture.server.datasetID).json"))
        }
        #expect(fixture.server.requests.count - before == 2) // the change check, and the page: not retried
        #expect(try await store.allEvents() == stored)
        #expect(try await store.syncRuns(limit: 1).first?.status == .failed)
    }

    @Test("the next page is asked for while the current one is consumed, and every row comes once")
    func nextPageIsPrefetched() async throws {
        let fixture = try await LiveFixture.start(rows: 150)
        defer { Task { await fixture.stop() } }
        let provider = LiveProvider(client: fixture.client(cache: nil), query: try fixture.query, pageSize: 50)
        var pages = provider.eventPages(since: nil).makeAsyncIterator()
        let first = try #require(try await pages.next())
        // The consumer has not asked for page 2 yet, but the server answers its request.
        let deadline = ContinuousClock.now + TestTime.duration(.seconds(120)) // a hang detector
        while fixture.server.requests.filter({ $0.query["$offset"] == "50" }).isEmpty, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(fixture.server.requests.contains { $0.query["$offset"] == "50" })
        var rows = first.observations.map(\.source)
        while let page = try await pages.next() { rows += page.observations.map(\.source) }
        #expect(rows.count == 150)
        #expect(Set(rows.map { "\($0["entityid"] ?? "")|\($0["opendatetime"] ?? "")" }).count == 150)
        // Three full pages, then the empty page that ends the walk: nothing asked twice, nothing beyond.
        #expect(fixture.server.requests.compactMap { $0.query["$offset"] }.sorted() == ["0", "100", "150", "50"])
    }

    @Test("a server that ignores $offset is an error, not an endless sync")
    func serverIgnoringOffset() async throws {
        let fixture = try await LiveFixture.start(rows: 300)
        defer { Task { await fixture.stop() } }
        fixture.server.ignoreOffset(true)
        let provider = LiveProvider(client: fixture.client(cache: nil), query: try fixture.query, pageSize: 100)
        await #expect {
            _ = try await fixture.pipeline(provider: provider, store: try fixture.store()).run(full: true)
        } throws: { error in
            (error as? FeedError)?.code == "network.paging"
        }
        #expect(fixture.server.requests.filter { $0.query["$order"] != nil }.count == 2)
    }

    @Test("the app token is sent as a header and appears in no file, URL or message")
    func tokenStaysSecret() async throws {
        let token = "tok-\(UUID().uuidString)"
        let fixture = try await LiveFixture.start(rows: 300, token: token)
        defer { Task { await fixture.stop() } }
        let cache = try fixture.cache()
        let provider = LiveProvider(client: fixture.client(cache: cache, token: token), query: try fixture.query,
                                    pageSize: 100)
        let store = try fixture.store()
        let report = try await fixture.pipeline(provider: provider, store: store).run(full: true)
        #expect(report.inserted > 0)
        #expect(fixture.server.requests.allSatisfy { $0.headers["x-app-token"] == token })
        #expect(fixture.server.requests.allSatisfy { !$0.query.values.joined().contains(token) })
        fixture.server.inject(Array(repeating: .status(500), count: 8)) // the change check's attempts, then a page's
        do {
            _ = try await fixture.pipeline(provider: provider, store: store).run(full: true)
            Issue.record("expected a failure")
        } catch {
            #expect(!"\(error)".contains(token))
        }
        #expect(allBytes(under: fixture.folder).range(of: Data(token.utf8)) == nil)
        #expect(!(try await store.syncRuns(limit: 5)).contains { "\($0)".contains(token) })

        let anonymous = LiveProvider(client: fixture.client(cache: nil), query: try fixture.query, pageSize: 100)
        await #expect {
            _ = try await fixture.pipeline(provider: anonymous, store: try fixture.store("other")).run(full: true)
        } throws: { error in
            guard let error = error as? FeedError, case .httpStatus(_, 403, _, let serverMessage, _) = error else {
                return false
            }
            return serverMessage?.contains("You must be logged in") == true
                && ErrorPresentation(error)?.hint?.contains("app token") == true
        }
    }

    @Test("the cached provider serves what a live sync fetched, with the server stopped")
    func cachedProviderOffline() async throws {
        let fixture = try await LiveFixture.start(rows: 900)
        let cache = try fixture.cache()
        let live = LiveProvider(client: fixture.client(cache: cache), query: try fixture.query, pageSize: 200)
        let liveStore = try fixture.store("live")
        _ = try await fixture.pipeline(provider: live, store: liveStore).run(full: true)
        await fixture.stop()

        let cached = CachedProvider(cache: cache, query: try fixture.query, pageSize: 300)
        #expect(await cached.checkConnection().isReachable)
        let offlineStore = try fixture.store("offline")
        let report = try await fixture.pipeline(provider: cached, store: offlineStore).run(full: true)
        #expect(report.inserted == fixture.expected.events.count)
        #expect(Set(try await offlineStore.allEvents()) == Set(try await liveStore.allEvents()))

        let empty = CachedProvider(cache: try fixture.cache("empty"), query: try fixture.query, pageSize: 300)
        await #expect {
            _ = try await fixture.pipeline(provider: empty, store: try fixture.store("none")).run(full: true)
        } throws: { error in
            (error as? FeedError)?.code == "network.nothing-cached"
                && ErrorPresentation(error)?.description.contains("provider.kind: live") == true
        }
    }

    @Test("a cached response is revalidated with If-None-Match and reused on 304")
    func conditionalGet() async throws {
        let fixture = try await LiveFixture.start(rows: 100)
        defer { Task { await fixture.stop() } }
        let cache = try fixture.cache()
        let client = fixture.client(cache: cache)
        let url = try fixture.query.pageURL(since: nil, limit: 50, offset: 0)
        let first = try await client.get(url)
        let second = try await client.get(url)
        #expect(first == second)
        let log = fixture.server.requests
        #expect(log.map(\.status) == [200, 304])
        #expect(log[1].headers["if-none-match"]?.hasPrefix("W/\"") == true)
        #expect(log[1].headers["if-modified-since"] != nil)

        let cacheFirst = fixture.client(cache: cache, policy: .cacheFirst(maxAge: 3600))
        #expect(try await cacheFirst.get(url) == first)
        #expect(fixture.server.requests.count == 2)
        // A memory-only client under cache-first asks the network once, then answers from memory.
        let memoryOnly = fixture.client(cache: nil, policy: .cacheFirst(maxAge: 3600))
        #expect(try await memoryOnly.get(url) == first)
        #expect(try await memoryOnly.get(url) == first)
        #expect(fixture.server.requests.count == 3)
        #expect(await memoryOnly.networkRequests == 1)
    }

    @Test("stale-if-error serves the cached copy when the network fails; cache-only never asks")
    func stalePolicies() async throws {
        let fixture = try await LiveFixture.start(rows: 100)
        defer { Task { await fixture.stop() } }
        let cache = try fixture.cache()
        let url = try fixture.query.pageURL(since: nil, limit: 50, offset: 0)
        let fresh = try await fixture.client(cache: cache).get(url)
        fixture.server.inject(Array(repeating: .status(503), count: 4))
        #expect(try await fixture.client(cache: cache, policy: .staleIfError, attempts: 2).get(url) == fresh)
        let asked = fixture.server.requests.count
        #expect(try await fixture.client(cache: cache, policy: .cacheOnly).get(url) == fresh)
        #expect(fixture.server.requests.count == asked)
    }

    @Test("two identical concurrent requests share one network call")
    func inFlightDeduplication() async throws {
        let fixture = try await LiveFixture.start(rows: 100)
        defer { Task { await fixture.stop() } }
        fixture.server.inject([.hang(0.4)])
        let client = fixture.client(cache: nil)
        let url = try fixture.query.pageURL(since: nil, limit: 50, offset: 0)
        async let first = client.get(url)
        async let second = client.get(url)
        let (a, b) = try await (first, second)
        #expect(a == b)
        #expect(fixture.server.requests.count == 1)
        #expect(await client.networkRequests == 1)
    }

    @Test("cancelling a sync stops a hanging request at once, not after the server's 10-minute hang")
    func cancellationIsPrompt() async throws {
        let fixture = try await LiveFixture.start(rows: 100)
        defer { Task { await fixture.stop() } }
        fixture.server.inject([.hang(600)])
        let provider = LiveProvider(client: fixture.client(cache: nil, timeout: 600), query: try fixture.query,
                                    pageSize: 50)
        let pipeline = fixture.pipeline(provider: provider, store: try fixture.store())
        let task = Task { try await pipeline.run(full: true) }
        // Cancel only once the request is hanging on the server: a fixed sleep raced a loaded machine, where the
        // cancellation could land before the run had started.
        let deadline = ContinuousClock.now + TestTime.duration(.seconds(120))
        while fixture.server.pendingFaults > 0, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(fixture.server.pendingFaults == 0)
        try await Task.sleep(for: .milliseconds(100))
        let cancelled = ContinuousClock.now
        task.cancel()
        let report = try await task.value // an interrupted sync reports what it committed instead of throwing
        // A hang detector, not a timing: a cancellation that waited for the hang or the timeout (10 minutes each)
        // would take five times this; a prompt one on a loaded machine has taken 7 s.
        #expect(ContinuousClock.now - cancelled < TestTime.duration(.seconds(120)))
        #expect(!report.completed)
        #expect(report.fetched == 0)
    }
}
