import BridgetDTOs
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Where alert messages may go: `https`, or plain `http` only to loopback or, where the configuration allows
/// private addresses (`alerts.allow_private`), to one of those; never a private, link-local, unspecified or
/// multicast address unless allowed (an alert must not make the server call into the network it sits in). Checked
/// when an alert is saved and again, on the addresses the name resolves to then, before every attempt.
package struct DestinationPolicy: Sendable {
    package let allowPrivate: Bool

    package init(allowPrivate: Bool) { self.allowPrivate = allowPrivate }

    /// What is wrong with a destination, for a person.
    package struct Refusal: Error, CustomStringConvertible, Equatable {
        package let description: String
        /// The host's name did not resolve (now): not a refusal of the destination itself.
        package var isResolution = false
    }

    /// The kinds of address that matter here.
    package enum AddressKind: Equatable {
        case loopback, privateNetwork, linkLocal, forbidden, global
    }

    /// Checks the URL's form: a valid http(s) URL with a host, no user or password in it.
    package func checkForm(_ text: String) throws -> URL {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), let host = url.host, !host.isEmpty
        else { throw Refusal(description: "'\(Self.redacted(text))' is not an http(s) URL with a host") }
        guard scheme == "https" || scheme == "http" else {
            throw Refusal(description: "\(scheme) is not a scheme alerts post to; use https")
        }
        guard url.user == nil, url.password == nil else {
            throw Refusal(description: "a destination URL must not carry a user or password; use --secret-env for a webhook")
        }
        return url
    }

    /// Checks the URL and the addresses its host resolves to now.
    package func check(_ text: String) throws -> URL {
        let url = try checkForm(text)
        let host = url.host!.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        let addresses = try Self.resolve(host)
        guard !addresses.isEmpty else {
            throw Refusal(description: "\(host) has no address")
        }
        let kinds = addresses.map(Self.kind)
        for (address, kind) in zip(addresses, kinds) {
            switch kind {
            case .forbidden:
                throw Refusal(description: "\(host) is \(address), an address alerts never post to")
            case .privateNetwork, .linkLocal:
                guard allowPrivate else {
                    throw Refusal(description: "\(host) is \(address), a private or link-local address; alerts post to "
                                  + "one only where alerts.allow_private is true")
                }
            case .loopback, .global: break
            }
        }
        if url.scheme?.lowercased() == "http" {
            let plainAllowed = kinds.allSatisfy { $0 == .loopback || (allowPrivate && ($0 == .privateNetwork || $0 == .linkLocal)) }
            guard plainAllowed else {
                throw Refusal(description: "plain http goes only to loopback (or a private address where "
                              + "alerts.allow_private is true); use https for \(host)")
            }
        }
        return url
    }

    /// The numeric addresses a host name resolves to (the name itself when it is one).
    static func resolve(_ host: String) throws -> [String] {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, nil, &hints, &list)
        guard status == 0, let first = list else {
            throw Refusal(description: "\(host) does not resolve: \(String(cString: gai_strerror(status)))",
                          isResolution: true)
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

    /// What kind of address a numeric IPv4 or IPv6 text is.
    package static func kind(_ address: String) -> AddressKind {
        var v4 = in_addr()
        if inet_pton(AF_INET, address, &v4) == 1 {
            let bytes = withUnsafeBytes(of: v4.s_addr) { Array($0) } // network order
            return kind(v4: bytes)
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, address, &v6) == 1 else { return .forbidden }
        let bytes = withUnsafeBytes(of: v6) { Array($0) }
        if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF {
            return kind(v4: Array(bytes[12..<16])) // IPv4-mapped
        }
        if bytes[0..<15].allSatisfy({ $0 == 0 }) { return bytes[15] == 1 ? .loopback : .forbidden } // ::1, ::
        if bytes[0] == 0xFF { return .forbidden } // multicast
        if bytes[0] == 0xFE && bytes[1] & 0xC0 == 0x80 { return .linkLocal } // fe80::/10
        if bytes[0] & 0xFE == 0xFC { return .privateNetwork } // fc00::/7
        return .global
    }

    private static func kind(v4 bytes: [UInt8]) -> AddressKind {
        switch (bytes[0], bytes[1]) {
        case (127, _): return .loopback
        case (0, _): return .forbidden
        case (10, _), (192, 168): return .privateNetwork
        case (172, 16...31): return .privateNetwork
        case (100, 64...127): return .privateNetwork // shared address space (carrier-grade NAT)
        case (169, 254): return .linkLocal
        case (224...255, _): return .forbidden // multicast, reserved, broadcast
        default: return .global
        }
    }

    /// A URL as logs and answers show it: scheme, host and port, never the path or query (a webhook's path can be
    /// its secret, an ntfy topic its only key).
    package static func redacted(_ text: String) -> String {
        guard let url = URL(string: text), let scheme = url.scheme, let host = url.host else { return "(a URL)" }
        return "\(scheme)://\(host)" + (url.port.map { ":\($0)" } ?? "") + ((url.path.isEmpty || url.path == "/") ? "" : "/…")
    }
}
