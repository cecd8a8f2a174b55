import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The addresses that are not a server on the internet: the IANA special-purpose address registries (IPv4 and IPv6,
/// RFC 6890) and the blocks of the address architecture (multicast, site-local). Loopback, private-use and
/// link-local (the cloud metadata address 169.254.169.254 among them) are the operator's own network; the rest
/// (documentation, benchmarking, NAT64, 6to4, Teredo, multicast, reserved, broadcast …) is nobody's server at all.
///
/// An IPv4-mapped IPv6 address (`::ffff:127.0.0.1`) is judged by its IPv4 address.
public enum SpecialPurposeAddress {
    /// What a block is, for a client deciding where it may connect.
    public enum Kind: Sendable, Equatable {
        /// 127.0.0.0/8 and ::1.
        case loopback
        /// Private-use, shared (CGNAT), unique-local and site-local blocks.
        case privateNetwork
        /// 169.254.0.0/16 and fe80::/10.
        case linkLocal
        /// A block no request should go to (documentation, benchmarking, multicast, reserved …).
        case forbidden
    }

    /// One block of the registries: its prefix, what it is, and its name.
    public struct Block: Sendable, Equatable {
        /// The prefix's bytes in network order (4 for IPv4, 16 for IPv6).
        public let prefix: [UInt8]
        /// The prefix length in bits.
        public let length: Int
        public let kind: Kind
        /// The registry's name for the block ("link-local", "documentation (TEST-NET-1)", …).
        public let name: String

        init(_ cidr: String, _ kind: Kind, _ name: String) {
            let parts = cidr.split(separator: "/")
            prefix = SpecialPurposeAddress.bytes(String(parts[0])) ?? []
            length = Int(parts[1]) ?? 0
            self.kind = kind
            self.name = name
        }

        /// Whether the address bytes (of the same family) fall in the block.
        public func contains(_ bytes: [UInt8]) -> Bool {
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

    /// Every block; an address in none is global. Where blocks nest, the longest prefix names the address.
    public static let blocks: [Block] = [
        // IPv4 (RFC 6890 and the IANA IPv4 Special-Purpose Address Registry).
        Block("0.0.0.0/8", .forbidden, "\"this network\""),
        Block("10.0.0.0/8", .privateNetwork, "private-use"),
        Block("100.64.0.0/10", .privateNetwork, "shared address space"),
        Block("127.0.0.0/8", .loopback, "loopback"),
        Block("169.254.0.0/16", .linkLocal, "link-local"),
        Block("172.16.0.0/12", .privateNetwork, "private-use"),
        Block("192.0.0.0/24", .forbidden, "IETF protocol assignments"),
        Block("192.0.2.0/24", .forbidden, "documentation (TEST-NET-1)"),
        Block("192.31.196.0/24", .forbidden, "AS112-v4"),
        Block("192.52.193.0/24", .forbidden, "AMT"),
        Block("192.88.99.0/24", .forbidden, "6to4 relay anycast"),
        Block("192.168.0.0/16", .privateNetwork, "private-use"),
        Block("192.175.48.0/24", .forbidden, "direct delegation AS112 service"),
        Block("198.18.0.0/15", .forbidden, "benchmarking"),
        Block("198.51.100.0/24", .forbidden, "documentation (TEST-NET-2)"),
        Block("203.0.113.0/24", .forbidden, "documentation (TEST-NET-3)"),
        Block("224.0.0.0/4", .forbidden, "multicast"),
        Block("240.0.0.0/4", .forbidden, "reserved"),
        Block("255.255.255.255/32", .forbidden, "limited broadcast"),
        // IPv6 (RFC 6890 and the IANA IPv6 Special-Purpose Address Registry).
        Block("::1/128", .loopback, "loopback"),
        Block("::/128", .forbidden, "unspecified"),
        Block("::/96", .forbidden, "IPv4-compatible (deprecated)"),
        Block("64:ff9b::/96", .forbidden, "IPv4-IPv6 translation (NAT64)"),
        Block("64:ff9b:1::/48", .forbidden, "local-use IPv4-IPv6 translation"),
        Block("100::/64", .forbidden, "discard-only"),
        Block("2001::/23", .forbidden, "IETF protocol assignments (Teredo, ORCHID …)"),
        Block("2001:db8::/32", .forbidden, "documentation"),
        Block("2002::/16", .forbidden, "6to4"),
        Block("2620:4f:8000::/48", .forbidden, "direct delegation AS112 service"),
        Block("3fff::/20", .forbidden, "documentation"),
        Block("5f00::/16", .forbidden, "segment routing (SRv6) SIDs"),
        Block("fc00::/7", .privateNetwork, "unique-local"),
        Block("fe80::/10", .linkLocal, "link-local unicast"),
        Block("fec0::/10", .privateNetwork, "site-local (deprecated)"),
        Block("ff00::/8", .forbidden, "multicast"),
    ]

    /// The block a numeric IPv4 or IPv6 address is in; nil for a global address and for text that is no address.
    public static func block(of address: String) -> Block? {
        guard var bytes = bytes(address) else { return nil }
        if bytes.count == 16, bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF {
            bytes = Array(bytes[12..<16]) // IPv4-mapped: the IPv4 address decides
        }
        return blocks.filter { $0.contains(bytes) }.max { $0.length < $1.length }
    }

    /// The name of the block a numeric address is in ("link-local", "private-use", …); nil for a global address and
    /// for text that is no address.
    public static func range(of address: String) -> String? { block(of: address)?.name }

    /// Whether a numeric address is in a special-purpose block (false for a global address and for a host name).
    public static func isSpecialPurpose(_ address: String) -> Bool { block(of: address) != nil }

    /// The bytes of a numeric IPv4 (4) or IPv6 (16) address in network order: dotted quad, or IPv6 text with or
    /// without brackets and zone (`[fe80::1%eth0]`); nil for anything else, a host name included.
    public static func bytes(_ address: String) -> [UInt8]? {
        var text = Substring(address)
        if text.hasPrefix("["), text.hasSuffix("]") { text = text.dropFirst().dropLast() }
        if text.contains(":"), let zone = text.firstIndex(of: "%") { text = text[..<zone] }
        let plain = String(text)
        var v4 = in_addr()
        if inet_pton(AF_INET, plain, &v4) == 1 { return withUnsafeBytes(of: v4.s_addr) { Array($0) } }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, plain, &v6) == 1 else { return nil }
        return withUnsafeBytes(of: v6) { Array($0) }
    }
}
