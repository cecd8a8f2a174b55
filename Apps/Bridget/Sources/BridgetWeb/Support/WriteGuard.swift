import BridgetCore
import Foundation
import Hummingbird

/// The one guard of the writes and of the alerts (which name where messages go), Hummingbird middleware on their
/// route group (`Endpoints`, `guarded: true`): the bearer token of `serve.token_env`, then the request's body, read
/// whole within `serve.max_body_bytes` and `serve.body_timeout_seconds` before the handler runs, which takes it with
/// `request.guardedBody()`. Routes and alerts share it; neither controller knows the other.
struct WriteGuard: RouterMiddleware {
    typealias Context = WebRequestContext
    let web: WebContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        try authorize(request)
        guard request.method == .put || request.method == .post || request.method == .patch else {
            return try await next(request, context)
        }
        var read = request
        read.body = RequestBody(buffer: ByteBuffer(data: try await body(of: request)))
        return try await next(read, context)
    }

    /// Lets a write through when it carries `Authorization: Bearer <token>` with the token of `serve.token_env`,
    /// compared in constant time; else a 401 (or 403 when no token is configured, so no write can ever pass). The
    /// token is never logged or echoed.
    func authorize(_ request: Request) throws {
        let variable = web.app.configuration.serve.tokenVariable
        guard let expected = web.app.configuration.apiToken else {
            throw Problem(.webForbidden,
                          detail: "this server has no write token: set $\(variable) (serve.token_env) where it runs")
        }
        let given = request.headers[.authorization] ?? ""
        let prefix = "bearer "
        guard given.count > prefix.count, given.prefix(prefix.count).lowercased() == prefix,
              Self.constantTimeEqual(Array(given.utf8.dropFirst(prefix.count)), Array(expected.utf8))
        else {
            throw Problem(.webUnauthorized,
                          detail: "send Authorization: Bearer <the token in $\(variable)>",
                          headers: [.wwwAuthenticate: #"Bearer realm="bridget""#])
        }
    }

    /// Whether two byte strings are equal, in a time that depends on their lengths only (not on where they differ).
    static func constantTimeEqual(_ given: [UInt8], _ expected: [UInt8]) -> Bool {
        var difference = UInt8(given.count == expected.count ? 0 : 1)
        for index in 0..<max(given.count, expected.count) {
            let left = index < given.count ? given[index] : 0
            let right = index < expected.count ? expected[index] : 0
            difference |= left ^ right
        }
        return difference == 0
    }

    /// A request's body: at most `serve.max_body_bytes` (413), whole within `serve.body_timeout_seconds` (408); a
    /// client that hangs up before sending it all is a 400, not the server's failure.
    func body(of request: Request) async throws -> Data {
        let serve = web.app.configuration.serve
        let limit = serve.maximumBodyBytes
        if let length = request.headers[.contentLength].flatMap(Int.init), length > limit {
            throw Problem.tooLarge(limit)
        }
        let deadline = Duration.seconds(serve.bodyTimeout)
        let incomplete = Problem(.webIncompleteBody,
                                 detail: "the connection ended before the request's body did")
        do {
            let buffer = try await Deadline.within(deadline, progress: nil, timeout: { BodyTimeout() }) { [request] in
                var request = request
                return try await request.collectBody(upTo: limit)
            }
            if let length = request.headers[.contentLength].flatMap(Int.init), buffer.readableBytes < length {
                throw incomplete
            }
            return Data(buffer.readableBytesView)
        } catch let problem as Problem {
            throw problem
        } catch let error as any HTTPResponseError where error.status == .contentTooLarge {
            throw Problem.tooLarge(limit)
        } catch is CancellationError {
            throw CancellationError() // the server is stopping: the client is told to come back (503)
        } catch is BodyTimeout {
            throw Problem(.webRequestTimeout,
                          detail: "the request's body did not arrive within \(serve.bodyTimeout) s (serve.body_timeout_seconds)",
                          headers: [.connection: "close"])
        } catch {
            if Task.isCancelled { throw CancellationError() }
            throw incomplete
        }
    }

    /// The time to receive a body ran out.
    struct BodyTimeout: Error {}
}

extension Request {
    /// The body `WriteGuard` read (bounded and timed there): only for a handler on the guarded group.
    func guardedBody() async throws -> Data {
        var request = self
        return Data(try await request.collectBody(upTo: .max).readableBytesView)
    }
}
