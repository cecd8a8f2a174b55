@testable import BridgetNetworking
import Foundation
import Synchronization
import Testing

/// Redirects through real HTTP servers on 127.0.0.1: the transport follows its request's `RedirectRule`, and the feed
/// client and the state feed name a refusal. Every local server is loopback, so a redirect from one to another is
/// the case the rule exists for: a server's answer pointing into the operator's own network.
@Suite("Redirects through real servers")
struct RedirectTests {
    /// A hang detector, not a speed bound.
    static let timeout: TimeInterval = 60

    /// Another origin on this machine that must never be reached, and the origin that points there.
    static func pair(location: @escaping @Sendable (URL) -> String) async throws
        -> (origin: LocalHTTPServer, originURL: URL, elsewhere: LocalHTTPServer, elsewhereURL: URL)
    {
        let (elsewhere, elsewhereURL) = try await LocalHTTPServer.started { _ in
            .init(status: 200, headers: ["Content-Type": "application/json"], body: Data("[]".utf8))
        }
        let target = location(elsewhereURL)
        let (origin, originURL) = try await LocalHTTPServer.started { _ in .init(status: 302, headers: ["Location": target]) }
        return (origin, originURL, elsewhere, elsewhereURL)
    }

    static func request(_ url: URL, rule: HTTPRequest.RedirectRule) -> HTTPRequest {
        HTTPRequest(url: url, headers: ["X-App-Token": "t0ken"], timeout: timeout, credentialHeaders: ["X-App-Token"],
                    redirectRule: rule)
    }

    @Test("a redirect on the request's own origin (127.0.0.1) is followed under both rules, with its credential")
    func sameOriginIsFollowed() async throws {
        let (server, url) = try await LocalHTTPServer.started { path in
            path == "/old" ? .init(status: 302, headers: ["Location": "/new?page=2"])
                : .init(status: 200, body: Data("moved here".utf8))
        }
        defer { Task { await server.stop() } }
        let transport = URLSessionTransport()
        for rule in [HTTPRequest.RedirectRule.sameOriginOnly, .anyOriginButSpecialPurpose] {
            let response = try await transport.send(Self.request(url.appendingPathComponent("old"), rule: rule))
            #expect(response.status == 200)
            #expect(response.body == Data("moved here".utf8))
        }
        #expect(server.requests.map(\.path) == ["/old", "/new", "/old", "/new"])
        #expect(server.requests.allSatisfy { $0.headers["x-app-token"] == "t0ken" })
    }

    @Test("a redirect to another local port is refused under both rules, and nothing reaches that port",
          arguments: [HTTPRequest.RedirectRule.sameOriginOnly, .anyOriginButSpecialPurpose], ["127.0.0.1", "localhost"])
    func otherLocalPortIsRefused(rule: HTTPRequest.RedirectRule, host: String) async throws {
        let servers = try await Self.pair { "http://\(host):\($0.port ?? 0)/GetBridgeData?secret=1" }
        defer { Task { await servers.origin.stop(); await servers.elsewhere.stop() } }
        let port = servers.elsewhereURL.port ?? 0
        do {
            let response = try await URLSessionTransport().send(Self.request(servers.originURL.appendingPathComponent("feed"),
                                                                             rule: rule))
            Issue.record("the redirect was answered with \(response.status), not refused")
        } catch let refusal as HTTPRedirectRefused {
            #expect(refusal.from == "http://127.0.0.1:\(servers.originURL.port ?? 0)")
            #expect(refusal.to == "http://\(host):\(port)")
            switch rule {
            case .sameOriginOnly: #expect(refusal.reason == .leavesOrigin)
            case .anyOriginButSpecialPurpose:
                #expect(refusal.reason == .specialPurpose(address: "127.0.0.1", block: "loopback"))
            }
            #expect(!refusal.description.contains("secret"))
        }
        #expect(servers.origin.requests.count == 1)
        #expect(servers.elsewhere.requests.isEmpty)
    }

    @Test("a redirect to a name is judged by the addresses it resolves to: the cloud metadata address is refused unasked")
    func nameResolvingToMetadataIsRefused() async throws {
        let servers = try await Self.pair { "http://metadata.test:\($0.port ?? 0)/latest/meta-data/" }
        defer { Task { await servers.origin.stop(); await servers.elsewhere.stop() } }
        let resolver = SpecialPurposeAddressTests.TableResolver(["metadata.test": ["169.254.169.254"]])
        let transport = URLSessionTransport { try resolver.resolve($0) }
        await #expect(throws: HTTPRedirectRefused.self) {
            _ = try await transport.send(Self.request(servers.originURL, rule: .anyOriginButSpecialPurpose))
        }
        do {
            _ = try await transport.send(Self.request(servers.originURL, rule: .anyOriginButSpecialPurpose))
        } catch let refusal as HTTPRedirectRefused {
            #expect(refusal.reason == .specialPurpose(address: "169.254.169.254", block: "link-local"))
        }
        #expect(resolver.asked.withLock { $0 } == ["metadata.test", "metadata.test"])
        #expect(servers.elsewhere.requests.isEmpty)
    }

    @Test("a redirect to another origin that passes is followed, without the credential headers")
    func otherOriginDropsCredentials() async throws {
        // The test's resolver calls localhost public, so the rule lets the redirect pass and libcurl connects to it.
        let servers = try await Self.pair { "http://localhost:\($0.port ?? 0)/moved" }
        defer { Task { await servers.origin.stop(); await servers.elsewhere.stop() } }
        let transport = URLSessionTransport { _ in ["93.184.215.14"] }
        let response = try await transport.send(Self.request(servers.originURL, rule: .anyOriginButSpecialPurpose))
        #expect(response.status == 200)
        #expect(servers.origin.requests.first?.headers["x-app-token"] == "t0ken")
        let moved = try #require(servers.elsewhere.requests.first)
        #expect(moved.path == "/moved")
        #expect(moved.headers["x-app-token"] == nil)
    }

    @Test("a name that resolves past the request's deadline ends the exchange, and nothing reaches it")
    func slowResolutionEnds() async throws {
        let servers = try await Self.pair { "http://localhost:\($0.port ?? 0)/" }
        defer { Task { await servers.origin.stop(); await servers.elsewhere.stop() } }
        let transport = URLSessionTransport { _ in
            Thread.sleep(forTimeInterval: 8) // a resolver that hangs
            return ["93.184.215.14"]
        }
        let request = HTTPRequest(url: servers.originURL, timeout: 2)
        do {
            let response = try await transport.send(request)
            Issue.record("answered \(response.status)")
        } catch let refusal as HTTPRedirectRefused {
            guard case .unresolved = refusal.reason else { Issue.record("\(refusal)"); return }
        } catch let error as URLError {
            #expect(error.code == .timedOut) // the machine was too slow for the resolution's own bound
        }
        #expect(servers.elsewhere.requests.isEmpty)
    }

    @Test("a redirect that comes too late to be answered ends the exchange as timed out, and nothing reaches its target")
    func lateRedirectTimesOut() async throws {
        let (elsewhere, elsewhereURL) = try await LocalHTTPServer.started { _ in .init(status: 200) }
        let target = "http://localhost:\(elsewhereURL.port ?? 0)/"
        let (origin, originURL) = try await LocalHTTPServer.started { _ in
            .init(status: 302, headers: ["Location": target], delay: .milliseconds(1_700))
        }
        defer { Task { await origin.stop(); await elsewhere.stop() } }
        // The rule would follow it (the test's resolver calls localhost public); the answer is due 1.5 s in.
        let transport = URLSessionTransport { _ in ["93.184.215.14"] }
        do {
            let response = try await transport.send(HTTPRequest(url: originURL, timeout: 2))
            Issue.record("answered \(response.status)")
        } catch let error as URLError {
            #expect(error.code == .timedOut)
        }
        #expect(origin.requests.count == 1)
        #expect(elsewhere.requests.isEmpty)
    }

    @Test("the feed client names a refused redirect and does not retry it")
    func feedClientNamesTheRefusal() async throws {
        let servers = try await Self.pair { "http://127.0.0.1:\($0.port ?? 0)/resource/gm8h-9449.json" }
        defer { Task { await servers.origin.stop(); await servers.elsewhere.stop() } }
        let client = FeedClient(transport: URLSessionTransport(), cache: nil,
                                settings: .init(timeout: Self.timeout, retry: RetryPolicy(maxAttempts: 4)), sleep: { _ in })
        let url = servers.originURL.appendingPathComponent("resource/gm8h-9449.json")
        do {
            _ = try await client.get(url)
            Issue.record("the redirect was followed")
        } catch let error as FeedError {
            #expect(error.code == "network.redirect-refused")
            guard case .redirectRefused(let failed, let refusal) = error else { Issue.record("\(error)"); return }
            #expect(failed == url.absoluteString)
            #expect(refusal.reason == .specialPurpose(address: "127.0.0.1", block: "loopback"))
            #expect(error.description.contains("special-purpose address (loopback)"))
        }
        #expect(await client.networkRequests == 1)
        #expect(servers.origin.requests.count == 1)
        #expect(servers.elsewhere.requests.isEmpty)
    }
}
