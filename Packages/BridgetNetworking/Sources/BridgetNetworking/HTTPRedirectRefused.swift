import Foundation

/// A redirect a transport did not follow under its request's `HTTPRequest.RedirectRule`: the exchange fails with this
/// error rather than hand back the 3xx. It names origins only (scheme, host, port): never a path, a query or a
/// credential of either URL.
public struct HTTPRedirectRefused: Error, Sendable, Equatable, CustomStringConvertible {
    /// Why the redirect was not followed.
    public enum Reason: Sendable, Equatable {
        /// The request follows redirects on its own origin only (`sameOriginOnly`).
        case leavesOrigin
        /// The target's host is, or resolves to, a special-purpose address: that address and its block's name.
        case specialPurpose(address: String, block: String)
        /// The target is not an http or https URL with a host.
        case unsupportedTarget(scheme: String)
        /// The target's host name could not be resolved (in time), so it could not be checked.
        case unresolved(String)
    }

    /// The origin the request was sent to, as `scheme://host[:port]`.
    public let from: String
    /// The origin the server pointed to, as `scheme://host[:port]`.
    public let to: String
    public let reason: Reason

    /// A refusal of the redirect from `request` to `target`, naming their origins only.
    public init(from request: URL, to target: URL, reason: Reason) {
        from = Self.origin(request)
        to = Self.origin(target)
        self.reason = reason
    }

    /// The name in log lines and metrics.
    public var name: String { "redirect-refused" }

    public var description: String {
        let what = "\(from) redirected to \(to)"
        return switch reason {
        case .leavesOrigin: "\(what), another origin; this request follows redirects on its own origin only"
        case .specialPurpose(let address, let block):
            "\(what), which is \(address), a special-purpose address (\(block)) that a redirect may not lead to"
        case .unsupportedTarget(let scheme):
            "\(what), which is not an http(s) URL with a host (scheme '\(Self.clean(scheme, limit: 20))'); not followed"
        case .unresolved(let reason): "\(what), whose host could not be checked: \(Self.clean(reason, limit: 120))"
        }
    }

    /// `scheme://host[:port]` of a URL, without user, password, path, query or fragment, cleaned for a log line.
    static func origin(_ url: URL) -> String {
        let scheme = url.scheme?.lowercased() ?? "?"
        var host = url.host ?? ""
        if host.contains(":"), !host.hasPrefix("[") { host = "[\(host)]" }
        return clean("\(scheme)://\(host)" + (url.port.map { ":\($0)" } ?? ""), limit: 120)
    }

    /// Text from outside for a log line: control characters dropped, cut to `limit` characters.
    static func clean(_ text: String, limit: Int) -> String {
        let kept = String(String.UnicodeScalarView(text.unicodeScalars.filter {
            !CharacterSet.controlCharacters.contains($0)
        }))
        return kept.count > limit ? String(kept.prefix(limit)) + "…" : kept
    }
}
