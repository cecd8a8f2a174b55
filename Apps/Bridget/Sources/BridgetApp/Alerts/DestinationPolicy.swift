import BridgetDTOs
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Where alert messages may go: `https` to an address on the internet; where the configuration allows it
/// (`alerts.allow_private`), also loopback, private and link-local addresses, over `http` or `https`; never an address
/// of the IANA special-purpose registries that is not one of those (documentation, benchmarking, NAT64, 6to4, Teredo,
/// multicast, reserved …), whatever the configuration says. Checked when an alert is saved and again before every
/// attempt, on the addresses the name resolves to then; the attempt connects to the address that passed
/// (`Checked.address`), so a name that resolves differently a moment later (DNS rebinding) is never asked again.
package struct DestinationPolicy: Sendable {
    package let allowPrivate: Bool
    /// Turns a host into its numeric addresses: the system's resolver, or a test's.
    package let resolver: @Sendable (String) throws -> [String]
    /// How long a name may take to resolve.
    package static let resolutionTimeout: TimeInterval = 5

    package init(allowPrivate: Bool, resolver: @escaping @Sendable (String) throws -> [String] = DestinationPolicy.resolve) {
        self.allowPrivate = allowPrivate
        self.resolver = resolver
    }

    /// What is wrong with a destination, for a person.
    package struct Refusal: Error, CustomStringConvertible, Equatable {
        package let description: String
        /// The host's name did not resolve (now): not a refusal of the destination itself.
        package var isResolution = false
    }

    /// The kinds of address that matter here.
    package enum AddressKind: Equatable, Sendable {
        case loopback, privateNetwork, linkLocal, forbidden, global
    }

    /// A destination that passed: its URL, its host as the URL names it (for TLS's server name and the `Host`
    /// header) and the numeric address every address of the host passed as, which is the one to connect to.
    package struct Checked: Sendable, Equatable {
        package let url: URL
        package let host: String
        package let address: String

        package init(url: URL, host: String, address: String) {
            self.url = url
            self.host = host
            self.address = address
        }
    }

    /// Checks the URL's form: a valid http(s) URL with a host, no user or password in it.
    package func checkForm(_ text: String) throws -> URL {
        guard text.utf8.count <= 2_048 else { throw Refusal(description: "a destination URL is at most 2,048 bytes") }
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), let host = url.host, !host.isEmpty
        else { throw Refusal(description: "'\(Self.redacted(text))' is not an http(s) URL with a host") }
        guard scheme == "https" || scheme == "http" else {
            throw Refusal(description: "\(ConfigValueType.escaped(scheme, limit: 20)) is not a scheme alerts post to; use https")
        }
        guard url.user == nil, url.password == nil else {
            throw Refusal(description: "a destination URL must not carry a user or password; sign a webhook with --secret-env")
        }
        return url
    }

    /// Checks the URL and every address its host resolves to now; the address to connect to. The name is resolved
    /// off Swift's cooperative threads (a resolver can block for seconds) and given `resolutionTimeout` at most.
    package func check(_ text: String) async throws -> Checked {
        let url = try checkForm(text)
        let host = url.host!.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        let addresses = try await Self.offPool(within: Self.resolutionTimeout, host: host) { [resolver] in
            try resolver(host)
        }
        guard let first = addresses.first else { throw Refusal(description: "\(host) has no address") }
        for address in addresses {
            let kind = Self.kind(address)
            switch kind {
            case .forbidden:
                throw Refusal(description: "\(host) is \(address), an address alerts never post to "
                              + "(\(Self.rangeName(address) ?? "special-purpose"))")
            case .loopback, .privateNetwork, .linkLocal:
                guard allowPrivate else {
                    throw Refusal(description: "\(host) is \(address), a loopback, private or link-local address; alerts "
                                  + "post to one only where alerts.allow_private is true")
                }
            case .global:
                guard url.scheme?.lowercased() == "https" else {
                    throw Refusal(description: "plain http goes only to loopback or private addresses (where "
                                  + "alerts.allow_private is true); use https for \(host)")
                }
            }
        }
        return Checked(url: url, host: host, address: first)
    }

    /// Runs a blocking resolution on a thread of its own; gives up (a resolution refusal) after `timeout`, leaving
    /// the thread to finish alone.
    static func offPool(within timeout: TimeInterval, host: String,
                        _ work: @escaping @Sendable () throws -> [String]) async throws -> [String] {
        let answered = Locked(false)
        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<[String], any Error>) in
            let once: @Sendable (Result<[String], any Error>) -> Void = { result in
                if answered.withLock({ answered in defer { answered = true }; return !answered }) {
                    continuation.resume(with: result)
                }
            }
            DispatchQueue.global().async { once(Result { try work() }) }
            DispatchQueue.global().asyncAfter(deadline: .now() + timeout) {
                once(.failure(Refusal(description: "\(ConfigValueType.escaped(host, limit: 80)) did not resolve within "
                                      + String(format: "%g", timeout) + " s", isResolution: true)))
            }
        }
    }

    /// The numeric addresses a host name resolves to (the name itself when it is one), with the system's resolver.
    @Sendable package static func resolve(_ host: String) throws -> [String] {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, nil, &hints, &list)
        guard status == 0, let first = list else {
            throw Refusal(description: "\(ConfigValueType.escaped(host, limit: 80)) does not resolve: "
                          + String(cString: gai_strerror(status)), isResolution: true)
        }
        defer { freeaddrinfo(first) }
        var addresses: [String] = []
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let current = entry {
            var buffer = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            if getnameinfo(current.pointee.ai_addr, current.pointee.ai_addrlen, &buffer, socklen_t(buffer.count), nil, 0,
                           NI_NUMERICHOST) == 0 {
                let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                if !addresses.contains(text) { addresses.append(text) }
            }
            entry = current.pointee.ai_next
        }
        return addresses
    }

    /// One block of the IANA special-purpose address registries (IPv4 and IPv6), or of the address architecture
    /// (multicast, site-local), with what it is here.
    package struct SpecialRange: Sendable {
        package let prefix: [UInt8]
        package let length: Int
        package let kind: AddressKind
        package let name: String

        init(_ text: String, _ kind: AddressKind, _ name: String) {
            let parts = text.split(separator: "/")
            prefix = DestinationPolicy.bytes(String(parts[0]))!
            length = Int(parts[1])!
            self.kind = kind
            self.name = name
        }

        func contains(_ bytes: [UInt8]) -> Bool {
            guard bytes.count == prefix.count else { return false }
            var remaining = length
            for index in prefix.indices where remaining > 0 {
                let bits = min(remaining, 8)
                let mask = UInt8(truncatingIfNeeded: 0xFF << (8 - bits))
                guard bytes[index] & mask == prefix[index] & mask else { return false }
                remaining -= bits
            }
            return true
        }
    }

    /// Every block an address is refused in (or allowed in only where `alerts.allow_private` is true), most specific
    /// first; an address in none is global. IPv4-mapped IPv6 addresses are read as their IPv4 address.
    package static let specialRanges: [SpecialRange] = [
        // IPv4 (RFC 6890 and the IANA IPv4 Special-Purpose Address Registry).
        SpecialRange("0.0.0.0/8", .forbidden, "\"this network\""),
        SpecialRange("10.0.0.0/8", .privateNetwork, "private-use"),
        SpecialRange("100.64.0.0/10", .privateNetwork, "shared address space"),
        SpecialRange("127.0.0.0/8", .loopback, "loopback"),
        SpecialRange("169.254.0.0/16", .linkLocal, "link-local"),
        SpecialRange("172.16.0.0/12", .privateNetwork, "private-use"),
        SpecialRange("192.0.0.0/24", .forbidden, "IETF protocol assignments"),
        SpecialRange("192.0.2.0/24", .forbidden, "documentation (TEST-NET-1)"),
        SpecialRange("192.31.196.0/24", .forbidden, "AS112-v4"),
        SpecialRange("192.52.193.0/24", .forbidden, "AMT"),
        SpecialRange("192.88.99.0/24", .forbidden, "6to4 relay anycast"),
        SpecialRange("192.168.0.0/16", .privateNetwork, "private-use"),
        SpecialRange("192.175.48.0/24", .forbidden, "direct delegation AS112 service"),
        SpecialRange("198.18.0.0/15", .forbidden, "benchmarking"),
        SpecialRange("198.51.100.0/24", .forbidden, "documentation (TEST-NET-2)"),
        SpecialRange("203.0.113.0/24", .forbidden, "documentation (TEST-NET-3)"),
        SpecialRange("224.0.0.0/4", .forbidden, "multicast"),
        SpecialRange("240.0.0.0/4", .forbidden, "reserved (and broadcast)"),
        // IPv6 (RFC 6890 and the IANA IPv6 Special-Purpose Address Registry).
        SpecialRange("::1/128", .loopback, "loopback"),
        SpecialRange("::/128", .forbidden, "unspecified"),
        SpecialRange("::/96", .forbidden, "IPv4-compatible (deprecated)"),
        SpecialRange("64:ff9b::/96", .forbidden, "IPv4-IPv6 translation (NAT64)"),
        SpecialRange("64:ff9b:1::/48", .forbidden, "local-use IPv4-IPv6 translation"),
        SpecialRange("100::/64", .forbidden, "discard-only"),
        SpecialRange("2001::/23", .forbidden, "IETF protocol assignments (Teredo, ORCHID …)"),
        SpecialRange("2001:db8::/32", .forbidden, "documentation"),
        SpecialRange("2002::/16", .forbidden, "6to4"),
        SpecialRange("3fff::/20", .forbidden, "documentation"),
        SpecialRange("5f00::/16", .forbidden, "segment routing (SRv6) SIDs"),
        SpecialRange("fc00::/7", .privateNetwork, "unique-local"),
        SpecialRange("fe80::/10", .linkLocal, "link-local unicast"),
        SpecialRange("fec0::/10", .privateNetwork, "site-local (deprecated)"),
        SpecialRange("ff00::/8", .forbidden, "multicast"),
    ]

    /// What kind of address a numeric IPv4 or IPv6 text is; anything else is forbidden.
    package static func kind(_ address: String) -> AddressKind {
        guard let bytes = bytes(address) else { return .forbidden }
        return range(of: bytes)?.kind ?? .global
    }

    /// The name of the special-purpose block an address is in, if any.
    package static func rangeName(_ address: String) -> String? { bytes(address).flatMap(range(of:))?.name }

    private static func range(of bytes: [UInt8]) -> SpecialRange? {
        var bytes = bytes
        if bytes.count == 16, bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF {
            bytes = Array(bytes[12..<16]) // IPv4-mapped
        }
        // The longest prefix that holds the address.
        return specialRanges.filter { $0.contains(bytes) }.max { $0.length < $1.length }
    }

    /// The bytes of a numeric IPv4 (4) or IPv6 (16) address, in network order.
    static func bytes(_ address: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, address, &v4) == 1 { return withUnsafeBytes(of: v4.s_addr) { Array($0) } }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, address, &v6) == 1 else { return nil }
        return withUnsafeBytes(of: v6) { Array($0) }
    }

    /// A URL as logs and answers show it: scheme, host and port, never the path or query (a webhook's path can be
    /// its secret, an ntfy topic its only key).
    package static func redacted(_ text: String) -> String {
        guard let url = URL(string: text), let scheme = url.scheme, let host = url.host else { return "(a URL)" }
        return "\(scheme)://\(ConfigValueType.escaped(host, limit: 80))" + (url.port.map { ":\($0)" } ?? "")
            + ((url.path.isEmpty || url.path == "/") ? "" : "/…")
    }
}
