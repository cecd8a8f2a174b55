import Foundation
import HTTPTypes
import OpenAPIRuntime
import OpenAPIURLSession
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A Bridget server, as an app uses it: the generated `client` for every operation of Docs/openapi.yaml, and the two
/// things generated code leaves awkward, the change stream (`changes(bridges:after:)`) and pages of events followed
/// to the end (`eventPages(_:)`).
///
/// ```swift
/// let bridget = BridgetAPI(serverURL: URL(string: "https://bridget.example")!)
/// let now = try await bridget.client.getBridgesStatus().ok.body.json
/// ```
public struct BridgetAPI: Sendable {
    /// The generated client: one method per operation (`getStatus`, `getBridgeForecast`, `listEvents`, …).
    public let client: Client
    /// The server's base URL (`https://bridget.example`, `http://127.0.0.1:8080`).
    public let serverURL: URL
    private let session: URLSession
    private let token: String?

    /// A client of the server at `serverURL`; `token` is the bearer token writes need (`serve.token_env`), sent with
    /// every request when given.
    public init(serverURL: URL, token: String? = nil, session: URLSession = .shared) {
        self.serverURL = serverURL
        self.session = session
        self.token = token
        client = Client(serverURL: serverURL, configuration: Configuration(dateTranscoder: BridgetDates()), transport: URLSessionTransport(configuration: .init(session: session)),
                        middlewares: token.map { [BearerToken(token: $0)] } ?? [])
    }

    /// Every page of events `query` asks for, in its order, each fetched when the one before it has been taken:
    /// `next` is followed until the last page. The query goes with the first request only; the next pages' cursors
    /// carry it.
    public func eventPages(_ query: EventQuery) -> EventPages {
        EventPages(client: client, query: query)
    }

    /// The change log as it grows: each change to a stored opening (and each bulk write's summary) as the server
    /// stores it, of `bridges` (ids or names; every bridge when empty), after the change numbered `after` (now, when
    /// `nil`). A connection that drops is opened again with `Last-Event-ID`, so no change is missed or repeated;
    /// `reconnectDelay` caps the wait the server's `retry` asks for. The sequence ends when the task iterating it is
    /// cancelled, and throws after `maximumAttempts` connections in a row fail.
    public func changes(bridges: [String] = [], after: Int64? = nil, reconnectDelay: Duration = .seconds(3),
                        maximumAttempts: Int = 10) -> ChangeStream {
        ChangeStream(serverURL: serverURL, session: session, token: token, bridges: bridges, after: after,
                     reconnectDelay: reconnectDelay, maximumAttempts: maximumAttempts)
    }
}

/// Sends `Authorization: Bearer <token>` with every request.
struct BearerToken: ClientMiddleware {
    let token: String

    func intercept(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
                   next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?))
        async throws -> (HTTPResponse, HTTPBody?)
    {
        var request = request
        request.headerFields[.authorization] = "Bearer \(token)"
        return try await next(request, body, baseURL)
    }
}

/// What went wrong talking to a server, beyond what the generated client says.
public enum BridgetClientError: Error, Sendable, CustomStringConvertible {
    /// The server answered a status the operation does not expect here, with its problem's detail when it sent one.
    case status(Int, detail: String?)
    /// An answer that is not what the contract says (a page without its events, a stream event that is not JSON).
    case malformed(String)
    /// The change stream failed this many times in a row.
    case streamFailed(attempts: Int, last: String)

    public var description: String {
        switch self {
        case .status(let code, let detail): "the server answered \(code)" + (detail.map { ": \($0)" } ?? "")
        case .malformed(let what): "a malformed answer: \(what)"
        case .streamFailed(let attempts, let last): "the change stream failed \(attempts) times in a row; last: \(last)"
        }
    }
}
