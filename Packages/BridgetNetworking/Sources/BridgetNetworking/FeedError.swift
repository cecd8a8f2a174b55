import Foundation

/// Why a feed could not be read: the facts of the failure (the URL or file, the status, the server's own message,
/// the counts), in a sentence `description` gives. What a user should do about it, and with which exit status, is for
/// the application to say: it knows its configuration keys and commands, this package does not.
///
/// Every case has a stable `code` (`network.http-404`, `network.malformed-body`, …) that an application can show or
/// use as a problem type.
public indirect enum FeedError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
    // MARK: HTTP

    /// The server answered with a status that is not a success: the URL, the status, its standard reason phrase,
    /// the server's own message from the body when there was one, and the `Retry-After` delay when it sent one.
    case httpStatus(url: String, status: Int, reason: String, serverMessage: String?, retryAfter: TimeInterval?)
    /// A 200 whose `Content-Type` is not JSON (often an HTML maintenance or login page), with the server's message
    /// read from the body when there was one.
    case wrongContentType(url: String, contentType: String, serverMessage: String?)
    /// A 200 with nothing in its body.
    case emptyBody(url: String)
    /// A body that is not what the request asks for (`url` is the request, or for a change check its resource).
    case malformedBody(url: String, problem: BodyProblem)
    /// A body larger than the client's limit, refused on its declared length or while it arrived.
    case tooLarge(url: String, limit: Int, declaredLength: Int64?)
    /// No answer within the deadline.
    case timeout(url: String)
    /// A transport failure another attempt may mend (refused, reset or dropped connections, a body cut short), with
    /// the system's description and `URLError` code.
    case connection(url: String, reason: String, errorCode: Int)
    /// A transport failure another attempt cannot mend (a bad URL, a refused certificate), with the system's
    /// description and `URLError` code.
    case transport(url: String, reason: String, errorCode: Int)
    /// A redirect the request's rule does not follow (to a special-purpose address, or off the origin of a request
    /// that stays on it); not retried: the server will point there again.
    case redirectRefused(url: String, refusal: HTTPRedirectRefused)
    /// Every attempt failed: how many there were and the last failure (`nil` when none was recorded).
    case gaveUp(url: String, attempts: Int, last: FeedError?)

    // MARK: Cache

    /// Under the cache-only policy, nothing is cached for the URL.
    case notCached(url: String)
    /// The cached provider found no cached page of the dataset in the cache folder.
    case nothingCached(folder: String, dataset: String)

    // MARK: Paging

    /// A page identical to the one before: the server ignores `$offset`, and paging would never end.
    case pagingRepeated(url: String)
    /// Paging met an empty page before the rows the server counts, again after every resumption.
    case pagingIncomplete(resource: String, reached: Int, expected: Int, emptyPage: String, times: Int)

    // MARK: Sources

    /// Not a Socrata dataset id (four-by-four such as `gm8h-9449`).
    case invalidDatasetID(String)
    /// Not an http(s) URL with a host.
    case invalidBaseURL(String)
    /// A provider given a URL to read but no HTTP client to read it with.
    case noHTTPClient(url: String)
    /// A feed file that does not exist or is not a regular file (a folder, a device).
    case feedFileMissing(path: String)
    /// A feed file larger than the limit, refused before it is read.
    case feedFileTooLarge(path: String, size: Int, limit: Int)
    /// A feed file that exists but cannot be read.
    case feedFileUnreadable(path: String)
    /// A feed (file or URL) that is not a gzip file that can be opened within the limit.
    case notGzip(origin: String, detail: String)
    /// A feed that is not the document expected (not DATEX II, not a situation publication, …).
    case badFeed(origin: String, detail: String)

    /// What is wrong with a body.
    public enum BodyProblem: Sendable, Equatable {
        /// Not valid JSON (cut off or garbled); the body's size.
        case notJSON(bytes: Int)
        /// Not a JSON array of rows, with the reader's reason.
        case notRows(detail: String)
        /// A change check that is not a one-row array.
        case notChangeCheck
        /// A row count that is not `[{"n": count}]`.
        case notRowCount
    }

    /// A stable machine-readable code, e.g. `network.http-404`. A `gaveUp` carries its last failure's code.
    public var code: String {
        switch self {
        case .httpStatus(_, let status, _, _, _): "network.http-\(status)"
        case .wrongContentType: "network.content-type"
        case .emptyBody, .malformedBody: "network.malformed-body"
        case .tooLarge: "network.too-large"
        case .timeout: "network.timeout"
        case .connection: "network.connection"
        case .transport: "network.transport"
        case .redirectRefused: "network.redirect-refused"
        case .gaveUp(_, _, let last): last?.code ?? "network.gave-up"
        case .notCached: "network.not-cached"
        case .nothingCached: "network.nothing-cached"
        case .pagingRepeated: "network.paging"
        case .pagingIncomplete: "network.incomplete"
        case .invalidDatasetID: "network.invalid-dataset"
        case .invalidBaseURL: "network.invalid-base-url"
        case .noHTTPClient: "network.no-client"
        case .feedFileMissing: "network.feed-file-missing"
        case .feedFileTooLarge: "network.feed-file-too-large"
        case .feedFileUnreadable: "network.feed-file-unreadable"
        case .notGzip: "network.not-gzip"
        case .badFeed: "network.bad-feed"
        }
    }

    public var description: String {
        switch self {
        case .httpStatus(let url, let status, let reason, let serverMessage, _):
            "\(url) answered \(status) \(reason)" + (serverMessage.map { ": \($0)" } ?? "")
        case .wrongContentType(let url, let contentType, let serverMessage):
            "\(url) answered 200 with Content-Type '\(contentType)', not JSON: \(serverMessage ?? "(empty body)")"
        case .emptyBody(let url):
            "\(url) sent an empty body"
        case .malformedBody(let url, .notJSON(let bytes)):
            "\(url) sent a body that is not valid JSON (\(bytes) bytes)"
        case .malformedBody(let url, .notRows(let detail)):
            "\(url) is not an array of rows: \(detail)"
        case .malformedBody(let url, .notChangeCheck):
            "the change check of \(url) is not a one-row array"
        case .malformedBody(let url, .notRowCount):
            "the row count at \(url) is not [{\"n\": count}]"
        case .tooLarge(let url, let limit, let declaredLength):
            "\(url) \(declaredLength.map { "declared a body of \($0) bytes" } ?? "sent a body"), over the limit of "
                + "\(limit) bytes"
        case .timeout(let url):
            "\(url) did not answer in time"
        case .connection(let url, let reason, let errorCode), .transport(let url, let reason, let errorCode):
            "\(url): \(reason) (\(errorCode))"
        case .redirectRefused(let url, let refusal):
            "\(url): \(refusal)"
        case .gaveUp(let url, let attempts, let last):
            "gave up on \(url) after \(attempts) attempts; last: \(last?.description ?? "no response")"
        case .notCached(let url):
            "cache-only: nothing is cached for \(url)"
        case .nothingCached(let folder, let dataset):
            "the cache at \(folder) holds no pages of dataset \(dataset)"
        case .pagingRepeated(let url):
            "\(url) returned the same page as the previous offset"
        case .pagingIncomplete(let resource, let reached, let expected, let emptyPage, let times):
            "paging \(resource) reached \(reached) rows, but the server counts \(expected) in the range; "
                + "\(emptyPage) was empty \(times) times"
        case .invalidDatasetID(let dataset):
            "'\(dataset)' is not a Socrata dataset id (four-by-four such as gm8h-9449)"
        case .invalidBaseURL(let url):
            "'\(url)' is not an http(s) URL"
        case .noHTTPClient(let url):
            "the NDW provider has no HTTP client for \(url)"
        case .feedFileMissing(let path):
            "the NDW feed file \(path) is missing or not a regular file"
        case .feedFileTooLarge(let path, let size, let limit):
            "the NDW feed file \(path) has \(size) bytes, over the limit of \(limit) bytes"
        case .feedFileUnreadable(let path):
            "cannot read the NDW feed file \(path)"
        case .notGzip(let origin, let detail):
            "\(origin) is not a readable gzip file: \(detail)"
        case .badFeed(let origin, let detail):
            "\(origin): \(detail)"
        }
    }

    public var errorDescription: String? { description }

    /// The delay the server asked for before another attempt (`Retry-After`), when it sent one.
    public var retryAfter: TimeInterval? {
        guard case .httpStatus(_, _, _, _, let retryAfter) = self else { return nil }
        return retryAfter
    }

    /// Whether the failure may mend on another attempt: a body cut short or garbled on the way (a proxy, a dropped
    /// connection the server reported as complete) is usually whole the next time.
    var isDamagedBody: Bool {
        switch self {
        case .emptyBody, .malformedBody: true
        default: false
        }
    }
}
