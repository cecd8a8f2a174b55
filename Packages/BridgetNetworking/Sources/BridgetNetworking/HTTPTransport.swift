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
    /// Which redirects are followed; one that is not ends the exchange with `HTTPRedirectRefused`.
    public let redirectRule: RedirectRule

    /// Creates a request.
    public init(url: URL, headers: [String: String] = [:], timeout: TimeInterval, maximumBodyBytes: Int = .max,
                credentialHeaders: Set<String> = [], redirectRule: RedirectRule = .anyOriginButSpecialPurpose) {
        self.url = url
        self.headers = headers
        self.timeout = timeout
        self.maximumBodyBytes = max(maximumBodyBytes, 0)
        self.credentialHeaders = credentialHeaders
        self.redirectRule = redirectRule
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
/// retries: those are the client's), following the redirects the request's `redirectRule` allows and throwing
/// `HTTPRedirectRefused` for the first it does not (before any byte goes to the refused origin); hands back 304 and
/// error statuses as responses rather than errors; ends the exchange at `timeout` seconds whatever the server does
/// (a body dripped byte by byte included) with `URLError(.timedOut)`; never holds more than `maximumBodyBytes` of
/// body (a declared `Content-Length` over it is refused before reading, a body growing past it is cut off while
/// arriving) and throws `HTTPBodyTooLarge` then; sends `credentialHeaders` only to the request's own origin; and
/// throws `URLError` for every other transport failure.
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
///
/// A redirect to another origin whose host is a name is checked on the addresses `resolve` gives for it, off the
/// session's queue, within `HostResolver`'s bound and the request's deadline.
public final class URLSessionTransport: HTTPTransport {
    private let session: URLSession
    private let exchanges: ExchangeTable

    /// Creates a transport over an ephemeral session. `timeout` is also the session's idle timeout: on Linux a
    /// request's own `timeoutInterval` alone did not end a request the server never answered. `resolve` turns a
    /// redirect's host name into the addresses its rule judges (the system's resolver, or a test's).
    public init(timeout: TimeInterval = 60,
                resolve: @escaping @Sendable (String) throws -> [String] = { try HostResolver.addresses(of: $0) }) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        exchanges = ExchangeTable(resolve: resolve)
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
        let exchange = Exchange(request: request, resolve: exchanges.resolve)
        exchanges.register(exchange, for: task.taskIdentifier)
        defer { exchanges.remove(task.taskIdentifier) }
        let deadline = Task {
            try await Task.sleep(for: .seconds(request.timeout))
            if exchange.finish(.failure(URLError(.timedOut))) { exchange.cancel(task) }
        }
        defer { deadline.cancel() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                if exchange.wait(continuation) { task.resume() }
            }
        } onCancel: {
            if exchange.finish(.failure(URLError(.cancelled))) { exchange.cancel(task) }
        }
    }
}

/// One exchange's state: the response so far, and the caller waiting for it. Finished exactly once, by the
/// task's completion, the deadline, the size limit, a refused redirect or cancellation, whichever comes first.
private final class Exchange: Sendable {
    private struct State {
        var continuation: CheckedContinuation<HTTPResponse, any Error>?
        var outcome: Result<HTTPResponse, any Error>?
        var response: HTTPURLResponse?
        var body = Data()
        var cancelClaimed = false
        /// Foundation waits for the answer to a redirect, which is being decided or given.
        var redirectPending = false
    }

    let request: HTTPRequest
    private let resolve: @Sendable (String) throws -> [String]
    /// The last moment to answer a redirect. Foundation's own timer for a transfer (the whole seconds of `timeout`,
    /// from the transfer's start, never before the exchange's) ends a task that waits for the answer, and an answer
    /// given after that, or after the task was cancelled, traps in swift-corelibs-foundation ("Received callback for
    /// HTTP redirection, but we're not waiting for it"); a margin keeps the answer clear of that timer.
    private let answerRedirectBy: DispatchTime
    private let state = Mutex(State())

    /// The longest a redirect's host name may take to resolve, within the request's deadline.
    static let resolutionLimit: TimeInterval = 5

    init(request: HTTPRequest, resolve: @escaping @Sendable (String) throws -> [String]) {
        self.request = request
        self.resolve = resolve
        answerRedirectBy = .now() + max(request.timeout.rounded(.down) - 0.5, 0)
    }

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

    /// True the first time only, and never while a redirect is being answered: whoever gets it cancels the task.
    func claimCancellation() -> Bool {
        state.withLock { state in
            guard !state.redirectPending, !state.cancelClaimed else { return false }
            state.cancelClaimed = true
            return true
        }
    }

    /// Cancels the task once, unless a redirect is being answered: then the answer's end cancels it (a task cancelled
    /// while Foundation waits for that answer must never get it).
    func cancel(_ task: URLSessionTask) {
        if claimCancellation() { task.cancel() }
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

    /// Decides whether the task follows a redirect to `next` under the request's rule, and gives Foundation the
    /// answer through `answer`: `next` (less the credential headers when it leaves the request's origin), or nil
    /// after finishing the exchange with `HTTPRedirectRefused`. A redirect on the request's origin is answered at
    /// once; one to another origin is judged off the session's queue, since its host name may take seconds to
    /// resolve. No answer is given once the exchange is over (the task is cancelled instead), nor past
    /// `answerRedirectBy` (the exchange times out).
    func redirect(to next: URLRequest, task: URLSessionTask, answer: @escaping @Sendable (URLRequest?) -> Void) {
        let began = state.withLock { state -> Bool in
            guard state.outcome == nil else { return false }
            state.redirectPending = true
            return true
        }
        guard began else { return cancel(task) }
        guard let target = next.url else {
            return decided(.failure(URLError(.redirectToNonExistentLocation)), task: task, answer: answer)
        }
        if HTTPRequest.RedirectRule.sameOrigin(request.url, target) {
            return decided(.success(next), task: task, answer: answer)
        }
        DispatchQueue.global().async { [self] in
            let refusal = request.redirectRule.refusal(from: request.url, to: target, resolve: resolveInTime)
            var stripped = next
            for name in request.credentialHeaders { stripped.setValue(nil, forHTTPHeaderField: name) }
            decided(refusal.map { .failure($0) } ?? .success(stripped), task: task, answer: answer)
        }
    }

    /// The addresses of a redirect's host name, if they come within `resolutionLimit` and a quarter of a second
    /// before the answer is due (a name still resolving then is refused as unresolved).
    private func resolveInTime(_ host: String) throws -> [String] {
        let left = Double(Int64(answerRedirectBy.uptimeNanoseconds) - Int64(DispatchTime.now().uptimeNanoseconds)) / 1e9
        return try HostResolver.addresses(of: host, within: min(Self.resolutionLimit, max(left - 0.25, 0)),
                                          resolve: resolve)
    }

    /// Gives the decision to Foundation while there is time: the request to follow, or nil (the 3xx ends the task
    /// quietly) after finishing the exchange with the refusal. Out of time, it gives none: the exchange times out
    /// and the task is cancelled.
    private func decided(_ decision: Result<URLRequest, any Error>, task: URLSessionTask,
                         answer: @Sendable (URLRequest?) -> Void) {
        guard DispatchTime.now() < answerRedirectBy else {
            finish(.failure(URLError(.timedOut)))
            state.withLock { $0.redirectPending = false }
            return cancel(task)
        }
        var follow: URLRequest?
        switch decision {
        case .success(let request): follow = request
        case .failure(let error): finish(.failure(error))
        }
        if isFinished { follow = nil }
        answer(follow)
        // A deadline or a cancellation that came while the answer was given left the task to this end: cancelling
        // it now is safe (Foundation has the answer), and needed only when the answer was to go on.
        state.withLock { $0.redirectPending = false }
        if follow != nil, isFinished { cancel(task) }
    }
}

/// The session's delegate: routes each task's events to its exchange.
private final class ExchangeTable: NSObject, URLSessionDataDelegate, Sendable {
    private let exchanges = Mutex<[Int: Exchange]>([:])
    /// Turns a redirect's host name into its addresses.
    let resolve: @Sendable (String) throws -> [String]

    init(resolve: @escaping @Sendable (String) throws -> [String]) { self.resolve = resolve }

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
        // A task whose exchange is over is cancelled, never answered (see `Exchange.redirect`).
        guard let exchange = exchange(task) else { return task.cancel() }
        exchange.redirect(to: request, task: task, answer: completionHandler)
    }
}
