import Foundation

extension HTTPRequest {
    /// Which redirects a request follows. The origin a request is sent to is the operator's choice, whatever its
    /// address (a feed on 127.0.0.1 included), so a redirect that stays on it (same scheme, host and port) is always
    /// followed; the rule decides the redirects that leave it, each hop judged against the request's own origin.
    public enum RedirectRule: Sendable, Equatable {
        /// No redirect to another origin: for a feed whose answers have no reason to move (the city's state feed).
        case sameOriginOnly
        /// A redirect to another http(s) origin, unless its host is a special-purpose address
        /// (`SpecialPurposeAddress`: loopback, private, link-local with the cloud metadata address, …) or a name that
        /// resolves to one (`localhost` among them): a server's answer does not steer the client into the operator's
        /// network.
        case anyOriginButSpecialPurpose

        /// Why a redirect from a request to `request` on to `target` is refused, or nil when it is followed.
        /// `resolve` turns a host name into its numeric addresses; it is asked only about a name on another origin,
        /// and may block (call this off Swift's cooperative threads when it does).
        ///
        /// The check is of the name as resolved now: a connection that resolves it again later may meet other
        /// addresses (DNS rebinding), which only a client connecting to the checked address itself rules out.
        public func refusal(from request: URL, to target: URL, resolve: (String) throws -> [String])
            -> HTTPRedirectRefused?
        {
            if Self.sameOrigin(request, target) { return nil }
            func refused(_ reason: HTTPRedirectRefused.Reason) -> HTTPRedirectRefused {
                HTTPRedirectRefused(from: request, to: target, reason: reason)
            }
            let scheme = target.scheme?.lowercased() ?? ""
            guard scheme == "http" || scheme == "https", var host = target.host?.lowercased(), !host.isEmpty else {
                return refused(.unsupportedTarget(scheme: scheme))
            }
            switch self {
            case .sameOriginOnly:
                return refused(.leavesOrigin)
            case .anyOriginButSpecialPurpose:
                host = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
                if host.hasSuffix(".") { host.removeLast() }
                if SpecialPurposeAddress.bytes(host) != nil {
                    return SpecialPurposeAddress.block(of: host).map {
                        refused(.specialPurpose(address: host, block: $0.name))
                    }
                }
                let addresses: [String]
                do {
                    addresses = try resolve(host)
                } catch {
                    return refused(.unresolved("\(error)"))
                }
                guard !addresses.isEmpty else { return refused(.unresolved("\(host) has no address")) }
                for address in addresses {
                    guard SpecialPurposeAddress.bytes(address) != nil else {
                        return refused(.unresolved("\(host) resolved to '\(address)', not a numeric address"))
                    }
                    if let block = SpecialPurposeAddress.block(of: address) {
                        return refused(.specialPurpose(address: address, block: block.name))
                    }
                }
                return nil
            }
        }

        /// Same scheme, host and port (the scheme's default port when none is written).
        static func sameOrigin(_ first: URL, _ second: URL) -> Bool {
            func origin(_ url: URL) -> (String, String, Int) {
                let scheme = url.scheme?.lowercased() ?? ""
                return (scheme, url.host?.lowercased() ?? "", url.port ?? (scheme == "https" ? 443 : 80))
            }
            return origin(first) == origin(second)
        }
    }
}
