import BridgetCore
import BridgetDTOs
import BridgetNetworking
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
        // `host!`: `checkForm` refuses a URL with no host.
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

    /// The numeric addresses a host name resolves to (the name itself when it is one), with the system's resolver
    /// (`HostResolver`, as the sync's and the state feed's redirects are checked).
    @Sendable package static func resolve(_ host: String) throws -> [String] {
        do {
            return try HostResolver.addresses(of: host)
        } catch {
            throw Refusal(description: "\(ConfigValueType.escaped(host, limit: 80)) does not resolve: \(error.reason)",
                          isResolution: true)
        }
    }

    /// What kind of address a numeric IPv4 or IPv6 text is, by the special-purpose blocks every outside URL of
    /// Bridget's is judged by (`SpecialPurposeAddress`, with the sync's and the state feed's redirects); anything
    /// that is not a numeric address is forbidden.
    package static func kind(_ address: String) -> AddressKind {
        guard SpecialPurposeAddress.bytes(address) != nil else { return .forbidden }
        switch SpecialPurposeAddress.block(of: address)?.kind {
        case .loopback?: return .loopback
        case .privateNetwork?: return .privateNetwork
        case .linkLocal?: return .linkLocal
        case .forbidden?: return .forbidden
        case nil: return .global
        }
    }

    /// The name of the special-purpose block an address is in, if any.
    package static func rangeName(_ address: String) -> String? { SpecialPurposeAddress.range(of: address) }

    /// A URL as logs and answers show it: scheme, host and port, never the path or query (a webhook's path can be
    /// its secret, an ntfy topic its only key).
    package static func redacted(_ text: String) -> String {
        guard let url = URL(string: text), let scheme = url.scheme, let host = url.host else { return "(a URL)" }
        return "\(scheme)://\(ConfigValueType.escaped(host, limit: 80))" + (url.port.map { ":\($0)" } ?? "")
            + ((url.path.isEmpty || url.path == "/") ? "" : "/…")
    }
}
