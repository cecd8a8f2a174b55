import BridgetDTOs
import Foundation

/// Builds SODA 2 URLs for one dataset: every value percent-encoded, SoQL string literals escaped.
public struct SocrataQuery: Sendable, Equatable {
    /// E.g. `https://data.seattle.gov`.
    public let baseURL: URL
    /// The dataset's four-by-four id, e.g. `gm8h-9449`.
    public let dataset: String

    /// Creates a query builder; throws a configuration error for a malformed dataset id or base URL.
    public init(baseURL: URL, dataset: String) throws {
        guard dataset.range(of: "^[a-z0-9]{4}-[a-z0-9]{4}$", options: .regularExpression) != nil else {
            throw BridgetError.configuration(
                "dataset", "'\(dataset)' is not a Socrata dataset id (four-by-four such as gm8h-9449)")
        }
        guard let scheme = baseURL.scheme, ["http", "https"].contains(scheme), baseURL.host != nil else {
            throw BridgetError.configuration("base-url", "'\(baseURL)' is not an http(s) URL")
        }
        self.baseURL = baseURL
        self.dataset = dataset
    }

    /// The rows endpoint, `…/resource/<dataset>.json`: every row-page URL starts with it.
    public var resourcePrefix: String {
        var base = baseURL.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        return base + "/resource/" + dataset + ".json"
    }

    /// One page of rows in a stable total order (`opendatetime`, then the hidden `:id`), from `since` on.
    public func pageURL(since: FloatingTimestamp?, limit: Int, offset: Int) -> URL {
        var parameters = [("$order", "opendatetime,:id"), ("$limit", String(limit)), ("$offset", String(offset))]
        if let since { parameters.insert(("$where", "opendatetime >= " + Self.literal(since.description)), at: 0) }
        return url(parameters)
    }

    /// A one-row summary of the whole dataset: its row count and latest opening, a cheap change check.
    public var changeCheckURL: URL { url([("$select", "count(*) AS n, max(opendatetime) AS latest")]) }

    /// The number of rows a walk of `pageURL(since:…)` pages must reach (`[{"n":"…"}]`).
    public func countURL(since: FloatingTimestamp?) -> URL {
        var parameters = [("$select", "count(*) AS n")]
        if let since { parameters.append(("$where", "opendatetime >= " + Self.literal(since.description))) }
        return url(parameters)
    }

    /// A SoQL string literal: single quotes, an embedded quote doubled.
    public static func literal(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
    }

    /// Percent-encodes everything but RFC 3986's unreserved characters (so `&`, `=`, `+`, `'` and spaces too).
    public static func encode(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics.intersection(CharacterSet(charactersIn: Unicode.Scalar(0)...Unicode.Scalar(127)))
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    private func url(_ parameters: [(String, String)]) -> URL {
        let query = parameters.map { "\($0.0)=\(Self.encode($0.1))" }.joined(separator: "&")
        // Both parts are built from validated or percent-encoded text, so the URL always parses.
        return URL(string: resourcePrefix + "?" + query) ?? baseURL
    }
}
