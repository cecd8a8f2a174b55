@testable import BridgetNetworking
import Foundation
import Synchronization
import Testing

/// The IANA special-purpose address table and the redirect rule that reads it, without a network.
@Suite("Special-purpose addresses and the redirect rule")
struct SpecialPurposeAddressTests {
    @Test("each address is named by the most specific block that holds it", arguments: [
        ("169.254.169.254", "link-local"), ("10.0.0.1", "private-use"), ("172.31.255.255", "private-use"),
        ("192.168.1.1", "private-use"), ("100.64.0.1", "shared address space"), ("127.0.0.1", "loopback"),
        ("0.0.0.0", "\"this network\""), ("255.255.255.255", "limited broadcast"), ("240.0.0.1", "reserved"),
        ("224.0.0.251", "multicast"), ("198.19.0.1", "benchmarking"), ("192.0.2.7", "documentation (TEST-NET-1)"),
        ("::1", "loopback"), ("[::1]", "loopback"), ("::", "unspecified"), ("fd12::1", "unique-local"),
        ("fe80::1", "link-local unicast"), ("fe80::1%eth0", "link-local unicast"),
        ("::ffff:127.0.0.1", "loopback"), ("::ffff:169.254.169.254", "link-local"),
        ("64:ff9b::8.8.8.8", "IPv4-IPv6 translation (NAT64)"), ("2001:db8::1", "documentation"),
        ("ff02::1", "multicast"),
    ])
    func specialPurpose(_ address: String, _ name: String) {
        #expect(SpecialPurposeAddress.range(of: address) == name, "\(address)")
        #expect(SpecialPurposeAddress.isSpecialPurpose(address))
    }

    @Test("global addresses and names are in no block", arguments: [
        "8.8.8.8", "2606:4700::1", "::ffff:8.8.8.8", "172.32.0.1", "100.128.0.1", "example.com", "localhost", "",
    ])
    func global(_ address: String) {
        #expect(SpecialPurposeAddress.range(of: address) == nil, "\(address)")
        #expect(!SpecialPurposeAddress.isSpecialPurpose(address))
    }

    @Test("the table's kinds, and every block's prefix parses")
    func table() {
        #expect(SpecialPurposeAddress.block(of: "169.254.169.254")?.kind == .linkLocal)
        #expect(SpecialPurposeAddress.block(of: "::1")?.kind == .loopback)
        #expect(SpecialPurposeAddress.block(of: "100.64.0.1")?.kind == .privateNetwork)
        #expect(SpecialPurposeAddress.block(of: "198.51.100.1")?.kind == .forbidden)
        for block in SpecialPurposeAddress.blocks {
            #expect([4, 16].contains(block.prefix.count), "\(block.name)")
            #expect((0...block.prefix.count * 8).contains(block.length), "\(block.name)")
        }
        #expect(SpecialPurposeAddress.bytes("127.1") == nil) // a name for the resolver, not a dotted quad
    }

    // MARK: The rule

    static let feed = URL(string: "https://data.example.org/resource/gm8h-9449.json?$limit=10")!

    /// A resolver from a table, which records the names it was asked.
    final class TableResolver: Sendable {
        let table: [String: [String]]
        let asked = Mutex<[String]>([])

        init(_ table: [String: [String]]) { self.table = table }

        func resolve(_ host: String) throws -> [String] {
            asked.withLock { $0.append(host) }
            guard let addresses = table[host] else { throw HostResolver.Failure(host: host, reason: "unknown name") }
            return addresses
        }
    }

    @Test("a redirect on the request's own origin is followed under both rules, whatever its address")
    func sameOrigin() {
        let resolver = TableResolver([:])
        for rule in [HTTPRequest.RedirectRule.sameOriginOnly, .anyOriginButSpecialPurpose] {
            #expect(rule.refusal(from: Self.feed, to: URL(string: "https://DATA.example.org:443/moved?x=1")!,
                                 resolve: resolver.resolve) == nil)
            #expect(rule.refusal(from: URL(string: "http://127.0.0.1:8080/a")!, to: URL(string: "http://127.0.0.1:8080/b")!,
                                 resolve: resolver.resolve) == nil)
        }
        #expect(resolver.asked.withLock { $0 }.isEmpty)
    }

    @Test("same-origin-only refuses every other origin, a change of scheme or port included")
    func sameOriginOnly() {
        for target in ["https://cdn.example.net/x", "http://data.example.org/resource", "https://data.example.org:8443/"] {
            let refusal = HTTPRequest.RedirectRule.sameOriginOnly.refusal(from: Self.feed, to: URL(string: target)!) { _ in
                ["93.184.215.14"]
            }
            #expect(refusal?.reason == .leavesOrigin, "\(target)")
        }
    }

    @Test("the default rule refuses special-purpose literals and names that resolve to one, and follows the rest")
    func defaultRule() {
        let rule = HTTPRequest.RedirectRule.anyOriginButSpecialPurpose
        let resolver = TableResolver([
            "mirror.example.net": ["93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c"],
            "internal.example.net": ["93.184.215.14", "10.1.2.3"],
            "rebind.example.net": ["::ffff:169.254.169.254"],
        ])
        func reason(_ target: String) -> HTTPRedirectRefused.Reason? {
            rule.refusal(from: Self.feed, to: URL(string: target)!, resolve: resolver.resolve)?.reason
        }
        #expect(reason("http://169.254.169.254/latest/meta-data/") == .specialPurpose(address: "169.254.169.254",
                                                                                      block: "link-local"))
        #expect(reason("http://[::1]:9000/") == .specialPurpose(address: "::1", block: "loopback"))
        #expect(reason("http://[::ffff:127.0.0.1]/") == .specialPurpose(address: "::ffff:127.0.0.1", block: "loopback"))
        #expect(reason("https://internal.example.net/x") == .specialPurpose(address: "10.1.2.3", block: "private-use"))
        #expect(reason("https://rebind.example.net/x") == .specialPurpose(address: "::ffff:169.254.169.254",
                                                                          block: "link-local"))
        #expect(reason("https://mirror.example.net/feed.json") == nil)
        #expect(reason("https://8.8.8.8/") == nil)
        #expect(reason("ftp://mirror.example.net/feed") == .unsupportedTarget(scheme: "ftp"))
        if case .unresolved? = reason("https://nowhere.example.net/") {} else { Issue.record("an unknown name is refused") }
        #expect(resolver.asked.withLock { $0 } == ["internal.example.net", "rebind.example.net", "mirror.example.net",
                                                   "nowhere.example.net"])
    }

    @Test("through the system's resolver, localhost and the numeric spellings of 127.0.0.1 are loopback")
    func systemResolver() throws {
        for host in ["localhost", "LOCALHOST.", "api.localhost", "2130706433", "127.1", "0x7f.0.0.1"] {
            let refusal = HTTPRequest.RedirectRule.anyOriginButSpecialPurpose.refusal(
                from: Self.feed, to: URL(string: "http://\(host):8080/")!) { try HostResolver.addresses(of: $0) }
            guard case .specialPurpose(_, "loopback")? = refusal?.reason else {
                Issue.record("\(host): \(String(describing: refusal))")
                continue
            }
        }
        #expect(try HostResolver.addresses(of: "localhost") == ["127.0.0.1", "::1"])
    }

    @Test("a refusal names origins only: no path, query, user or password of either URL")
    func refusalNamesOriginsOnly() {
        let from = URL(string: "https://user:pw-secret@data.example.org/resource/x.json?token=abc123")!
        let to = URL(string: "http://admin:hunter2@169.254.169.254:8080/latest/meta-data?key=s3cret#frag")!
        let refusal = HTTPRequest.RedirectRule.anyOriginButSpecialPurpose.refusal(from: from, to: to) { _ in [] }
        let text = refusal?.description ?? ""
        #expect(refusal?.from == "https://data.example.org")
        #expect(refusal?.to == "http://169.254.169.254:8080")
        #expect(text.contains("link-local"))
        for secret in ["pw-secret", "abc123", "hunter2", "s3cret", "latest", "resource", "user", "admin", "frag"] {
            #expect(!text.contains(secret), "\(secret) in: \(text)")
        }
    }
}
