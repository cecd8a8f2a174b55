import Foundation
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A GET request as the transport sends it.
public struct HTTPRequest: Sendable, Equatable {
    public let url: URL
    /// Header fields; names as given.
    public let headers: [String: String]
    /// Seconds the whole exchange may take: connecting, the headers and the last byte of the body.
    public let timeout: TimeInterval
    /// The most body bytes (after decompression) the transport takes in; past it the exchange stops.
    public let maximumBodyBytes: Int
    /// Names of headers that carry a secret (an app token): they go to the request's own origin only, and are
    /// dropped from a redirect to any other scheme, host or port.
    public let credentialHeaders: Set<String>

    /// Creates a request.
    public init(url: URL, headers: [String: String] = [:], timeout: TimeInterval, maximumBodyBytes: Int = .max,
                credentialHeaders: Set<String> = []) {
        self.url = url
        self.headers = headers
        self.timeout = timeout
        self.maximumBodyBytes = max(maximumBodyBytes, 0)
        self.credentialHeaders = credentialHeaders
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

/// A body the transport refused to take in whole.
public struct HTTPBodyTooLarge: Error, Sendable, Equatable {
    /// The request's `maximumBodyBytes`.
    public let limit: Int
    /// The `Content-Length` the server declared, when that alone was over the limit (nothing was read).
    public let declaredLength: Int64?
}

/// The boundary to HTTP, so tests, another API version or another city's feed plug in without touching paging.
///
/// An implementation must guarantee: it performs exactly one network exchange per call (no hidden cache, no
/// retries: those are the client's), following redirects; hands back 304 and error statuses as responses rather
/// than errors; ends the exchange at `timeout` seconds whatever the server does (a body dripped byte by byte
/// included) with `URLError(.timedOut)`; never holds more than `maximumBodyBytes` of body (a declared
/// `Content-Length` over it is refused before reading, a body growing past it is cut off while arriving) and
/// throws `HTTPBodyTooLarge` then; sends `credentialHeaders` only to the request's own origin; and throws
/// `URLError` for every other transport failure.
public protocol HTTPTransport: Sendable {
    /// Sends one GET request.
    func send(_ request: HTTPRequest) async throws -> HTTPResponse
}

/// HTTP through Foundation's `URLSession` (libcurl on Linux), with no URL cache: conditional requests are the
/// client's own, so behaviour never depends on a hidden cache.
///
/// The body arrives through a session delegate, chunk by chunk, so the size limit holds while receiving (a small
/// gzip body that expands to a gigabyte is cut at the limit); the timeout is a deadline for the whole exchange,
/// not the session's idle timeout, which a server sending a byte every few seconds never trips.
public final class URLSessionTransport: HTTPTransport {
    private let session: URLSession
    private let exchanges: ExchangeTable

    /// Creates a transport over an ephemeral session. `timeout` is also the session's idle timeout: on Linux a
    /// request's own `timeoutInterval` alone did not end a request the server never answered.
    public init(timeout: TimeInterval = 60) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        exchanges = ExchangeTable()
        session = URLSession(configuration: configuration, delegate: exchanges, delegateQueue: nil)
    }

    deinit {
        // A session keeps its delegate until it is invalidated.
        session.finishTasksAndInvalidate()
    }

    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        var urlRequest = URLRequest(url: request.url, cachePolicy: .reloadIgnoringLocalCacheData,
                                    timeoutInterval: request.timeout)
        urlRequest.httpMethod = "GET"
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        let task = session.dataTask(with: urlRequest)
        let exchange = Exchange(request: request)
        exchanges.register(exchange, for: task.taskIdentifier)
        defer { exchanges.remove(task.taskIdentifier) }
        let deadline = Task {
            try await Task.sleep(for: .seconds(request.timeout))
            if exchange.finish(.failure(URLError(.timedOut))) { task.cancel() }
        }
        defer { deadline.cancel() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                if exchange.wait(continuation) { task.resume() }
            }
        } onCancel: {
            if exchange.finish(.failure(URLError(.cancelled))) { task.cancel() }
        }
    }
}

/// One exchange's state: the response so far, and the caller waiting for it. Finished exactly once, by the
/// task's completion, the deadline, the size limit or cancellation, whichever comes first.
private final class Exchange: Sendable {
    private struct State {
        var continuation: CheckedContinuation<HTTPResponse, any Error>?
        var outcome: Result<HTTPResponse, any Error>?
        var response: HTTPURLResponse?
        var body = Data()
        var cancelClaimed = false
    }

    let request: HTTPRequest
    private let state = Mutex(State())

    init(request: HTTPRequest) { self.request = request }

    /// Waits for the outcome; false when it is already known (the exchange was cancelled before it began).
    func wait(_ continuation: CheckedContinuation<HTTPResponse, any Error>) -> Bool {
        let known: Result<HTTPResponse, any Error>? = state.withLock { state in
            if let outcome = state.outcome { return outcome }
            state.continuation = continuation
            return nil
        }
        guard let known else { return true }
        continuation.resume(with: known)
        return false
    }

    /// Ends the exchange with `outcome` unless it has ended; true when this call ended it.
    @discardableResult
    func finish(_ outcome: Result<HTTPResponse, any Error>) -> Bool {
        let waiting: CheckedContinuation<HTTPResponse, any Error>?? = state.withLock { state in
            guard state.outcome == nil else { return .none }
            state.outcome = outcome
            defer { state.continuation = nil }
            return .some(state.continuation)
        }
        guard case .some(let continuation) = waiting else { return false }
        continuation?.resume(with: outcome)
        return true
    }

    /// The response head arrived; false when its declared length is over the limit (the exchange is finished).
    func receive(_ response: HTTPURLResponse) -> Bool {
        let declared = response.expectedContentLength
        if declared > Int64(request.maximumBodyBytes) {
            finish(.failure(HTTPBodyTooLarge(limit: request.maximumBodyBytes, declaredLength: declared)))
            return false
        }
        state.withLock { $0.response = response }
        return true
    }

    /// A piece of the body arrived: kept, or, past the limit, the exchange finished. False when the exchange had
    /// already ended (the piece is dropped, and nothing more is to be done).
    func receive(_ data: Data) -> Bool {
        let over = state.withLock { state -> Bool? in
            guard state.outcome == nil else { return nil }
            if state.body.count + data.count > request.maximumBodyBytes { return true }
            state.body.append(data)
            return false
        }
        guard let over else { return false }
        if over { finish(.failure(HTTPBodyTooLarge(limit: request.maximumBodyBytes, declaredLength: nil))) }
        return true
    }

    /// Whether the exchange has ended.
    var isFinished: Bool { state.withLock { $0.outcome != nil } }

    /// True the first time only: whoever gets it cancels the task.
    func claimCancellation() -> Bool {
        state.withLock { state in
            defer { state.cancelClaimed = true }
            return !state.cancelClaimed
        }
    }

    /// The task ended, with `error` or with the whole body.
    func complete(_ error: (any Error)?) {
        let (response, body) = state.withLock { ($0.response, $0.body) }
        if let error {
            finish(.failure(error as? URLError ?? URLError(.unknown, userInfo: [NSUnderlyingErrorKey: error])))
        } else if let response {
            var headers: [String: String] = [:]
            for (name, value) in response.allHeaderFields { headers[String(describing: name)] = String(describing: value) }
            finish(.success(HTTPResponse(status: response.statusCode, headers: headers, body: body)))
        } else {
            finish(.failure(URLError(.badServerResponse)))
        }
    }

    /// The request for a redirect: the same, less the credential headers when it leaves the request's origin.
    func redirect(_ next: URLRequest) -> URLRequest {
        guard let url = next.url, !Self.sameOrigin(url, request.url) else { return next }
        var stripped = next
        for name in request.credentialHeaders { stripped.setValue(nil, forHTTPHeaderField: name) }
        return stripped
    }

    /// Same scheme, host and port (the default port of the scheme when none is written).
    static func sameOrigin(_ first: URL, _ second: URL) -> Bool {
        func origin(_ url: URL) -> (String, String, Int) {
            let scheme = url.scheme?.lowercased() ?? ""
            return (scheme, url.host?.lowercased() ?? "", url.port ?? (scheme == "https" ? 443 : 80))
        }
        return origin(first) == origin(second)
    }
}

/// The session's delegate: routes each task's events to its exchange.
private final class ExchangeTable: NSObject, URLSessionDataDelegate, Sendable {
    private let exchanges = Mutex<[Int: Exchange]>([:])

    func register(_ exchange: Exchange, for task: Int) { exchanges.withLock { $0[task] = exchange } }

    func remove(_ task: Int) { _ = exchanges.withLock { $0.removeValue(forKey: task) } }

    private func exchange(_ task: URLSessionTask) -> Exchange? { exchanges.withLock { $0[task.taskIdentifier] } }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void) {
        guard let exchange = exchange(dataTask) else { return completionHandler(.cancel) }
        guard let http = response as? HTTPURLResponse else {
            exchange.finish(.failure(URLError(.badServerResponse)))
            return completionHandler(.cancel)
        }
        completionHandler(exchange.receive(http) ? .allow : .cancel)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        // Past the limit (or after the deadline) the pieces still arriving are dropped at once. The task is cancelled
        // from another thread: `cancel` waits for libcurl's queue, which is busy while a body streams in, and this
        // queue must go on dropping pieces meanwhile, or they pile up in it (a gzip bomb held 2 GB that way).
        guard let exchange = exchange(dataTask), exchange.receive(data) else { return }
        if exchange.isFinished, exchange.claimCancellation() {
            DispatchQueue.global().async { dataTask.cancel() }
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        exchange(task)?.complete(error)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
        guard let exchange = exchange(task) else { return completionHandler(nil) }
        completionHandler(exchange.redirect(request))
    }
}
