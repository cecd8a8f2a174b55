import Foundation

/// A failure the fixture server can inject into a response.
public enum FixtureFault: Sendable, Equatable {
    /// This status with a Socrata error body (shape 0, 1 or 2) and, optionally, `Retry-After`.
    case status(Int, retryAfter: String? = nil, shape: Int = 0)
    /// 202 Accepted ("request processing, retry").
    case processing
    /// Answer only after this many seconds.
    case hang(TimeInterval)
    /// A `Content-Length` longer than the body actually sent.
    case truncated
    /// An HTML error page with this status.
    case html(Int)
    /// 200 with a body over any sensible page limit.
    case oversized
    /// 200 with a JSON content type and a body that is not JSON.
    case malformedJSON
    /// 200 with `Content-Type: text/html`.
    case wrongContentType
    /// No fault: the request is answered normally (to aim a later fault at a later request).
    case pass
    /// A page of rows cut to its first N rows: valid JSON, shorter than `$limit` asked.
    case shortPage(Int)
    /// 200 with a JSON content type and an empty body.
    case emptyBody
    /// 302 to the same path and query at another origin (`http://127.0.0.1:PORT`).
    case redirect(port: Int)

    /// Parses a fault plan item: `429`, `429:2` (Retry-After seconds), `500`, `503`, `202`, `hang:3`, `truncated`,
    /// `html:503`, `oversized`, `malformed`, `text`, `400:shape1`, `ok` (no fault), `short:N`, `empty`,
    /// `redirect:PORT`.
    public init?(plan text: String) {
        let parts = text.split(separator: ":", maxSplits: 1).map(String.init)
        switch (parts.first ?? "", parts.count > 1 ? parts[1] : nil) {
        case ("202", nil): self = .processing
        case ("hang", let seconds?): self = .hang(TimeInterval(seconds) ?? 5)
        case ("truncated", nil): self = .truncated
        case ("html", let status?): self = .html(Int(status) ?? 503)
        case ("oversized", nil): self = .oversized
        case ("malformed", nil): self = .malformedJSON
        case ("text", nil): self = .wrongContentType
        case ("ok", nil): self = .pass
        case ("empty", nil): self = .emptyBody
        case ("short", let rows?):
            guard let rows = Int(rows), rows >= 0 else { return nil }
            self = .shortPage(rows)
        case ("redirect", let port?):
            guard let port = Int(port), (1...65_535).contains(port) else { return nil }
            self = .redirect(port: port)
        case (let code, let extra):
            guard let status = Int(code), (300...599).contains(status) else { return nil }
            if let extra, extra.hasPrefix("shape"), let shape = Int(extra.dropFirst(5)) {
                self = .status(status, shape: shape)
            } else {
                self = .status(status, retryAfter: extra)
            }
        }
    }
}
