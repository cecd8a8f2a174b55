import Foundation

/// A web origin as a browser's `Origin` header names it (RFC 6454): an http or https scheme, a host and a port,
/// nothing else. Written lowercased and without the scheme's default port, so `HTTPS://App.Example:443` and
/// `https://app.example` are one origin.
package struct WebOrigin: Sendable, Hashable {
    /// The origin as a browser sends it: `https://app.example`, `http://localhost:3000`.
    package let text: String

    /// Reads an origin; `nil` for anything else (a path, a query, credentials, another scheme, `null`).
    package init?(_ given: some StringProtocol) {
        let raw = String(given)
        guard raw.utf8.count <= 2_048, let components = URLComponents(string: raw),
              let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = components.host?.lowercased(), !host.isEmpty,
              components.user == nil, components.password == nil, components.query == nil, components.fragment == nil,
              components.path.isEmpty
        else { return nil }
        let port = components.port.flatMap { (scheme == "https" && $0 == 443) || (scheme == "http" && $0 == 80) ? nil : $0 }
        guard port.map({ (1...65_535).contains($0) }) ?? true else { return nil }
        text = scheme + "://" + host + (port.map { ":\($0)" } ?? "")
    }
}

/// Which web origins may use the API from a browser (`serve.cors`): reads from `readers` (any, when `nil`), writes
/// only from `writers`, each listed.
package struct CrossOriginSettings: Sendable, Equatable {
    /// Origins whose pages may read; `nil` for any origin.
    package var readers: Set<String>?
    /// Origins whose pages may also write.
    package var writers: Set<String>
    /// How long a browser may keep a preflight's answer, in seconds.
    package var maxAge: Int

    package init(readers: Set<String>? = nil, writers: Set<String> = [], maxAge: Int = 600) {
        self.readers = readers
        self.writers = writers
        self.maxAge = maxAge
    }

    /// The settings of the configuration values: `*` (any) or origins separated by commas.
    init(allowed: String, writers: String, maxAge: Int) {
        func origins(_ text: String) -> Set<String> { Set(text.split(separator: ",").map(String.init)) }
        self.init(readers: allowed == "*" ? nil : origins(allowed), writers: origins(writers), maxAge: maxAge)
    }

    /// Whether a page of `origin` may read.
    package func mayRead(_ origin: String) -> Bool { readers.map { $0.contains(origin) || writers.contains(origin) } ?? true }

    /// Whether a page of `origin` may write.
    package func mayWrite(_ origin: String) -> Bool { writers.contains(origin) }
}
