import BridgetDTOs
import Foundation

/// Builds SODA 2 URLs for one dataset: every value percent-encoded, SoQL string literals escaped.
public struct SocrataQuery: Sendable, Equatable {
    /// E.g. `https://data.seattle.gov`.
    public let baseURL: URL
    /// The dataset's four-by-four id, e.g. `gm8h-9449`.
    public let dataset: String

    /// Creates a query builder; throws `FeedError.invalidDatasetID` or `.invalidBaseURL` for a malformed one.
    public init(baseURL: URL, dataset: String) throws {
        guard Self.isDatasetID(dataset) else {
            throw FeedError.invalidDatasetID(dataset)
        }
        guard Self.isBaseURL(baseURL) else {
            throw FeedError.invalidBaseURL(baseURL.absoluteString)
        }
        self.baseURL = baseURL
        self.dataset = dataset
    }

    /// Whether a text is a dataset id: four lowercase letters or digits, '-', four more (`gm8h-9449`).
    ///
    /// Checked byte by byte: a regular expression's `$` also matches before a final line break.
    public static func isDatasetID(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count == 9 else { return false }
        return bytes.indices.allSatisfy { index in
            index == 4 ? bytes[index] == UInt8(ascii: "-")
                : (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(bytes[index])
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index])
        }
    }

    /// Whether a URL can be a base URL: http or https, with a host.
    public static func isBaseURL(_ url: URL) -> Bool {
        guard let scheme = url.scheme, ["http", "https"].contains(scheme), let host = url.host else { return false }
        return !host.isEmpty
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
