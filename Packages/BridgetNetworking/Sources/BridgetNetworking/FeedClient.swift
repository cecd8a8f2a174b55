import BridgetCaching
import BridgetDTOs
import Foundation
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Fetches a feed politely over HTTP and checks what comes back: Socrata's JSON pages, or another source's files
/// (`Settings.body`).
///
/// - Cache: follows a `CachePolicy` over an optional `DiskCache`; sends `If-None-Match`/`If-Modified-Since` with a
///   cached entry's validators and reuses its body on 304 (an optimisation only: a 304 without a usable cached body
///   is refetched unconditionally).
/// - Retries: 202, 408, 429, 5xx, a 200 whose body is not JSON (cut off, empty), and every transport failure not
///   known to be permanent (timeouts, refused or dropped connections, bodies cut short), with `RetryPolicy` backoff
///   and `Retry-After`. A host name that does not resolve is tried once more after the first, shortest wait, then
///   thrown as `FeedError.transport` (`isUnresolvedHost`): no server is there to be busy. Never retried:
///   400/401/403/404 and other 4xx, a wrong `Content-Type`, a body over the size limit, and the permanent transport
///   failures (`permanentTransportFailures`: a bad URL, an unsupported scheme, a refused TLS certificate,
///   cancellation), nor a redirect the transport refused (`FeedError.redirectRefused`: the requests follow
///   `HTTPRequest.RedirectRule.anyOriginButSpecialPurpose`). Waiting is cancellable, so Ctrl-C stops a fetch
///   promptly.
/// - Limits: `timeout` is a deadline for each exchange (connect, headers and body), `maximumBodyBytes` holds while
///   the body arrives; both are the transport's (`HTTPTransport`).
/// - Checks: status, a JSON `Content-Type`, the body size limit, and that the body parses as JSON; each failure is a
///   distinct `FeedError` naming the URL, the status and the server's message.
/// - Deduplication: concurrent identical requests share one network call.
/// The app token travels only in the `X-App-Token` header, to the configured origin only (a redirect elsewhere
/// drops it): never in a URL, a cache key, a message or a file.
public actor FeedClient {
    /// Settings of a client.
    public struct Settings: Sendable {
        public var timeout: TimeInterval
        public var maximumBodyBytes: Int
        public var retry: RetryPolicy
        public var cachePolicy: CachePolicy
        public var appToken: String?
        /// What a body must be: JSON (Socrata's pages: a JSON content type and a body that parses), or any
        /// non-empty body (a file such as NDW's gzip feed, which its provider checks).
        public var body: BodyKind

        /// What a body must be.
        public enum BodyKind: Sendable, Equatable {
            case json
            case any
        }

        /// Creates settings.
        public init(timeout: TimeInterval = 30, maximumBodyBytes: Int = 5_000_000, retry: RetryPolicy = RetryPolicy(),
                    cachePolicy: CachePolicy = .networkFirst, appToken: String? = nil, body: BodyKind = .json) {
            self.timeout = timeout
            self.maximumBodyBytes = maximumBodyBytes
            self.retry = retry
            self.cachePolicy = cachePolicy
            self.appToken = appToken.flatMap { $0.isEmpty ? nil : $0 }
            self.body = body
        }
    }

    private let transport: any HTTPTransport
    private let cache: (any ResponseCache)?
    /// First level in front of the response cache for `cache-first`: recent bodies, without re-reading and
    /// re-checksumming files.
    private let memory: (any Cache<String, Data>)?
    private let settings: Settings
    private let sleep: @Sendable (TimeInterval) async throws -> Void
    private let warn: @Sendable (String) -> Void
    private var random: SeededGenerator
    private var inFlight: [String: SharedFetch] = [:]
    /// Network exchanges made so far (retries and 304s included).
    public private(set) var networkRequests = 0

    /// Creates a client. `sleep` and `seed` are injectable so tests run fast and reproducibly.
    public init(
        transport: any HTTPTransport, cache: (any ResponseCache)?, settings: Settings, seed: UInt64 = 0x5EED,
        sleep: @escaping @Sendable (TimeInterval) async throws -> Void = { try await Task.sleep(for: .seconds($0)) },
        warn: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.transport = transport
        self.cache = cache
        self.settings = settings
        if case .cacheFirst(let maxAge) = settings.cachePolicy {
            memory = MemoryCache<String, Data, ContinuousClock>(capacity: 64, defaultTimeToLive: .seconds(maxAge))
        } else {
            memory = nil
        }
        self.sleep = sleep
        self.warn = warn
        self.random = SeededGenerator(seed: seed)
    }

    /// How current an answer must be.
    public enum Freshness: String, Sendable {
        /// As the cache policy says.
        case policy
        /// From the server, even under cache-first (a 304 to the cached validators is fine), and never a stale copy
        /// under stale-if-error: for answers that must be current, such as the change check.
        case current
        /// From the server, unconditionally (no cached validators sent), and never a stale copy: for a response the
        /// cache may hold wrongly, such as a page that came back cut short with its ETag.
        case reloaded
    }

    /// The JSON body at `url`, as current as `freshness` asks. Identical concurrent calls share one fetch; it is
    /// cancelled only when every caller waiting on it is.
    public func get(_ url: URL, freshness: Freshness = .policy) async throws -> Data {
        let key = url.absoluteString + " (\(freshness.rawValue))"
        let shared: SharedFetch
        if let running = inFlight[key] {
            shared = running
        } else {
            shared = SharedFetch(Task { try await self.fetch(url, freshness: freshness) })
            inFlight[key] = shared
        }
        shared.join()
        defer { if inFlight[key] === shared { inFlight[key] = nil } }
        return try await withTaskCancellationHandler { try await shared.task.value } onCancel: { shared.leave() }
    }

    /// One unconditional attempt, no cache, no retry: for reachability checks.
    public func probe(_ url: URL) async throws -> HTTPResponse {
        networkRequests += 1
        return try await transport.send(request(url, headers: baseHeaders))
    }

    /// The request for `url`, with the client's limits and the token marked as a credential.
    private func request(_ url: URL, headers: [String: String]) -> HTTPRequest {
        HTTPRequest(url: url, headers: headers, timeout: settings.timeout, maximumBodyBytes: settings.maximumBodyBytes,
                    credentialHeaders: ["X-App-Token"])
    }

    private var baseHeaders: [String: String] {
        var headers = ["Accept": settings.body == .json ? "application/json" : "*/*", "User-Agent": "bridget"]
        if let token = settings.appToken { headers["X-App-Token"] = token }
        return headers
    }

    private func fetch(_ url: URL, freshness: Freshness) async throws -> Data {
        let key = url.absoluteString
        let revalidate = freshness != .policy
        if !revalidate, let recent = await memory?.value(forKey: key) { return recent }
        let cached = await cache?.response(forKey: key)
        switch settings.cachePolicy {
        case .cacheOnly:
            guard let cached else {
                throw FeedError.notCached(url: key)
            }
            return cached.body
        case .cacheFirst(let maxAge):
            let age = cached.map { Date().timeIntervalSince($0.metadata.fetchedAt) } ?? .infinity
            if !revalidate, let cached, age <= maxAge {
                // Remembered only for what is left of its freshness.
                await memory?.insert(cached.body, forKey: key, timeToLive: .seconds(max(0, maxAge - age)))
                return cached.body
            }
        case .networkFirst, .staleIfError:
            break
        }
        do {
            let body = try await fetchFromNetwork(url, cached: freshness == .reloaded ? nil : cached)
            await memory?.insert(body, forKey: key)
            return body
        } catch where settings.cachePolicy == .staleIfError && !revalidate
            && (error is FeedError || error is CacheError)
        {
            // Whatever failed on the way (the server, the network, storing the answer), the copy held is served.
            guard let cached else { throw error }
            warn("serving the cached copy of \(key) from \(cached.metadata.fetchedAt) because: \(error)")
            return cached.body
        }
    }

    private func fetchFromNetwork(_ url: URL, cached: CachedResponse?) async throws -> Data {
        let key = url.absoluteString
        var validators = cached
        var lastError: FeedError?
        var unresolved = 0
        for attempt in 1...settings.retry.maxAttempts {
            try Task.checkCancellation()
            var headers = baseHeaders
            if let metadata = validators?.metadata {
                if let etag = metadata.etag { headers["If-None-Match"] = etag }
                if let lastModified = metadata.lastModified { headers["If-Modified-Since"] = lastModified }
            }
            networkRequests += 1
            let response: HTTPResponse
            do {
                response = try await transport.send(request(url, headers: headers))
            } catch let error as HTTPBodyTooLarge {
                throw Self.tooLarge(error, url: key)
            } catch let error as HTTPRedirectRefused {
                throw FeedError.redirectRefused(url: key, refusal: error)
            } catch let error as URLError {
                if error.code == .cancelled || Task.isCancelled { throw CancellationError() }
                guard !Self.permanentTransportFailures.contains(error.code) else {
                    throw Self.permanentError(error, url: key)
                }
                if Self.unresolvedHostFailures.contains(error.code) {
                    // Backing off for half a minute and then blaming an overloaded server would mislead: the name is
                    // wrong, or this machine has no network or no resolver.
                    unresolved += 1
                    guard unresolved < RetryPolicy.unresolvedHostAttempts, attempt < settings.retry.maxAttempts else {
                        throw Self.permanentError(error, url: key)
                    }
                    try await wait(afterAttempt: 1, retryAfter: nil)
                    continue
                }
                lastError = Self.transportError(error, url: key)
                if attempt < settings.retry.maxAttempts { try await wait(afterAttempt: attempt, retryAfter: nil) }
                continue
            }
            switch response.status {
            case 200:
                let body: Data
                do {
                    body = try check(response, url: key)
                } catch let error as FeedError where error.isDamagedBody {
                    // A body cut short or garbled on the way (a proxy, a dropped connection the server reported as
                    // complete) is usually whole the next time.
                    lastError = error
                    if attempt < settings.retry.maxAttempts { try await wait(afterAttempt: attempt, retryAfter: nil) }
                    continue
                }
                if let cache {
                    try await cache.store(body, forKey: key, etag: response.header("ETag"),
                                          lastModified: response.header("Last-Modified"),
                                          contentType: response.header("Content-Type"))
                }
                return body
            case 304:
                if let validators {
                    try? await cache?.refresh(validators.metadata)
                    return validators.body
                }
                // A 304 we cannot use: ask again without validators.
                validators = nil
                lastError = Self.statusError(response, url: key)
            case 202, 408, 429, 500...599:
                let error = Self.statusError(response, url: key)
                lastError = error
                if attempt < settings.retry.maxAttempts {
                    try await wait(afterAttempt: attempt, retryAfter: error.retryAfter)
                }
            default:
                throw Self.statusError(response, url: key)
            }
        }
        throw FeedError.gaveUp(url: key, attempts: settings.retry.maxAttempts, last: lastError)
    }

    private func wait(afterAttempt attempt: Int, retryAfter: TimeInterval?) async throws {
        let seconds = settings.retry.delay(afterAttempt: attempt, retryAfter: retryAfter, random: random.nextUnit())
        if seconds > 0 { try await sleep(seconds) }
        try Task.checkCancellation()
    }

    private func check(_ response: HTTPResponse, url: String) throws -> Data {
        if settings.body == .any {
            guard !response.body.isEmpty else { throw FeedError.emptyBody(url: url) }
            return response.body
        }
        let type = response.header("Content-Type") ?? ""
        let mediaType = type.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        guard mediaType == "application/json" else {
            throw FeedError.wrongContentType(url: url, contentType: type,
                                             serverMessage: SocrataErrorBody.message(from: response.body))
        }
        guard response.body.count <= settings.maximumBodyBytes else {
            // A transport keeps to the limit while receiving; this guards one that does not.
            throw Self.tooLarge(HTTPBodyTooLarge(limit: settings.maximumBodyBytes, declaredLength: nil), url: url)
        }
        // A structural check in one pass: a cut-off or garbled body must not reach the cache.
        guard JSONSyntax.isValid(response.body) else {
            throw response.body.isEmpty ? FeedError.emptyBody(url: url)
                : FeedError.malformedBody(url: url, problem: .notJSON(bytes: response.body.count))
        }
        return response.body
    }

    /// A status that is not a success as an error, with the server's message and its `Retry-After` delay (a day
    /// at most; `RetryPolicy.maxDelay` caps the wait itself).
    static func statusError(_ response: HTTPResponse, url: String, now: Date = Date()) -> FeedError {
        .httpStatus(url: url, status: response.status,
                    reason: HTTPURLResponse.localizedString(forStatusCode: response.status),
                    serverMessage: SocrataErrorBody.message(from: response.body),
                    retryAfter: RetryAfter.seconds(response.header("Retry-After"), now: now, limit: 86_400))
    }

    /// Transport failures that another attempt cannot mend: the request itself is wrong, the server's identity was
    /// refused, or the user cancelled. Every other failure (timeouts, refused, reset or dropped connections, a body
    /// cut short, libcurl's unclassified -1) is retried.
    static let permanentTransportFailures: Set<URLError.Code> = [
        .badURL, .unsupportedURL, .cancelled, .userCancelledAuthentication, .userAuthenticationRequired,
        .serverCertificateHasBadDate, .serverCertificateUntrusted, .serverCertificateHasUnknownRoot,
        .serverCertificateNotYetValid, .clientCertificateRejected, .clientCertificateRequired,
        .appTransportSecurityRequiresSecureConnection, .fileDoesNotExist, .fileIsDirectory,
        .noPermissionsToReadFile, .dataLengthExceedsMaximum, .httpTooManyRedirects, .redirectToNonExistentLocation,
    ]

    /// Transport failures that say the host name did not resolve (libcurl's "Could not resolve host" is
    /// `cannotFindHost`): retried once at most, then thrown as `FeedError.transport`.
    public static let unresolvedHostFailures: Set<URLError.Code> = [.cannotFindHost, .dnsLookupFailed]

    /// Whether `error` is a host name that did not resolve, as a fetch throws it after its one retry.
    public static func isUnresolvedHost(_ error: FeedError) -> Bool {
        guard case .transport(_, _, let code) = error, let known = URLError.Code(rawValue: code) else { return false }
        return unresolvedHostFailures.contains(known)
    }

    /// A retryable transport failure as an error.
    static func transportError(_ error: URLError, url: String) -> FeedError {
        switch error.code {
        case .timedOut: .timeout(url: url)
        default: .connection(url: url, reason: error.localizedDescription, errorCode: error.code.rawValue)
        }
    }

    static func tooLarge(_ error: HTTPBodyTooLarge, url: String) -> FeedError {
        .tooLarge(url: url, limit: error.limit, declaredLength: error.declaredLength)
    }

    /// A transport failure another attempt cannot mend (cancellation is thrown as `CancellationError` before this).
    static func permanentError(_ error: URLError, url: String) -> FeedError {
        .transport(url: url, reason: error.localizedDescription, errorCode: error.code.rawValue)
    }
}

/// One fetch shared by identical concurrent requests, with a count of the callers still waiting on it.
final class SharedFetch: Sendable {
    let task: Task<Data, any Error>
    private let waiters = Mutex(0)

    init(_ task: Task<Data, any Error>) { self.task = task }

    func join() { waiters.withLock { $0 += 1 } }

    /// A waiting caller was cancelled; the fetch is cancelled when none is left waiting.
    func leave() {
        if waiters.withLock({ count -> Int in
            count -= 1
            return count
        }) <= 0 {
            task.cancel()
        }
    }
}
