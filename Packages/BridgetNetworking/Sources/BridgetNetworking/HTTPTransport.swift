import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A GET request as the transport sends it.
public struct HTTPRequest: Sendable, Equatable {
    public let url: URL
    /// Header fields; names as given.
    public let headers: [String: String]
    /// Seconds before the request times out.
    public let timeout: TimeInterval

    /// Creates a request.
    public init(url: URL, headers: [String: String] = [:], timeout: TimeInterval) {
        self.url = url
        self.headers = headers
        self.timeout = timeout
    }
}

/// A response as the transport received it (bodies already decompressed).
public struct HTTPResponse: Sendable, Equatable {
    public let status: Int
    /// Header fields with lower-cased names.
    public let headers: [String: String]
    public let body: Data

    /// Creates a response; header names are lower-cased.
    public init(status: Int, headers: [String: String], body: Data) {
        self.status = status
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
        self.body = body
    }

    /// A header's value, by case-insensitive name.
    public func header(_ name: String) -> String? { headers[name.lowercased()] }
}

/// The boundary to HTTP, so tests, another API version or another city's feed plug in without touching paging.
///
/// An implementation must guarantee: it performs exactly one network exchange per call (no hidden cache, no
/// retries: those are the client's), hands back 304 and error statuses as responses rather than errors, and
/// throws `URLError` for transport failures (`.timedOut` for a timeout).
public protocol HTTPTransport: Sendable {
    /// Sends one GET request.
    func send(_ request: HTTPRequest) async throws -> HTTPResponse
}

/// HTTP through Foundation's `URLSession` (libcurl on Linux), with no URL cache: conditional requests are the
/// client's own, so behaviour never depends on a hidden cache.
public struct URLSessionTransport: HTTPTransport {
    private let session: URLSession

    /// Creates a transport over an ephemeral session whose requests time out after `timeout` seconds.
    ///
    /// The timeout is set on the session too: on Linux a request's own `timeoutInterval` alone did not end a
    /// request the server never answered.
    public init(timeout: TimeInterval = 60) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        session = URLSession(configuration: configuration)
    }

    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        var urlRequest = URLRequest(url: request.url, cachePolicy: .reloadIgnoringLocalCacheData,
                                    timeoutInterval: request.timeout)
        urlRequest.httpMethod = "GET"
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await session.data(for: urlRequest)
        guard let http = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
        var headers: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            headers[String(describing: name)] = String(describing: value)
        }
        return HTTPResponse(status: http.statusCode, headers: headers, body: data)
    }
}
