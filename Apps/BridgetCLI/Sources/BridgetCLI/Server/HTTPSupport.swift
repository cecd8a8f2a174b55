#if Server
import Foundation
import Hummingbird
import Logging

/// An RFC 9457 problem: thrown by a handler, written by `RequestLog`.
struct Problem: Error, Sendable {
    let status: HTTPResponse.Status
    /// The last part of the problem type URI (`https://bridget.dev/problems/<type>`, documented in Docs/OUTPUT.md).
    let type: String
    let title: String
    let detail: String
    /// More headers for the answer (`WWW-Authenticate` on a 401).
    var headers: HTTPFields = [:]

    var response: Response {
        struct Body: Encodable {
            let type: String
            let title: String
            let status: Int
            let detail: String
        }
        let body = (try? OutputWriter.json(Body(type: "https://bridget.dev/problems/" + type, title: title,
                                                status: status.code, detail: detail))) ?? "{}"
        var fields = headers
        fields[.contentType] = "application/problem+json"
        return Response(status: status, headers: fields,
                        body: ResponseBody(byteBuffer: ByteBuffer(string: body + "\n")))
    }

    /// A 400 naming the query parameter that was wrong.
    static func badParameter(_ name: String, _ detail: String) -> Problem {
        Problem(status: .badRequest, type: "bad-parameter", title: "Bad query parameter '\(name)'", detail: detail)
    }

    /// A 400 for a request body that is not what the endpoint takes.
    static func badBody(_ detail: String) -> Problem {
        Problem(status: .badRequest, type: "bad-body", title: "The request body is not valid", detail: detail)
    }

    /// A 413 for a body over `serve.max_body_bytes`.
    static func tooLarge(_ limit: Int) -> Problem {
        Problem(status: .contentTooLarge, type: "payload-too-large", title: "The request body is too large",
                detail: "a body may hold at most \(limit) bytes (serve.max_body_bytes)")
    }

    /// What any error thrown by a handler becomes: a problem of its own, an unknown route (404), or a 500 whose detail
    /// is the error's message (no hint, no secret: messages name paths and URLs, never a token).
    static func from(_ error: any Error) -> Problem {
        if let problem = error as? Problem { return problem }
        if let http = error as? HTTPError {
            return Problem(status: http.status, type: Self.type(of: http.status), title: http.status.reasonPhrase,
                           detail: http.body ?? http.status.reasonPhrase)
        }
        if let http = error as? any HTTPResponseError, http.status.code < 500 {
            if http.status == .contentTooLarge { return Problem.tooLarge(0) }
            return Problem(status: http.status, type: Self.type(of: http.status), title: http.status.reasonPhrase,
                           detail: http.status.reasonPhrase)
        }
        // A value the CLI would call a usage error is the request's fault, never a 500.
        if let error = error as? BridgetError, error.category == .validation {
            return Problem(status: .badRequest, type: "bad-parameter", title: "Bad request", detail: error.message)
        }
        return Problem(status: .internalServerError, type: "internal", title: "The server could not answer",
                       detail: ErrorPresentation(error)?.message ?? "\(error)")
    }

    /// The problem type of a status Hummingbird answers by itself (an unknown path, a method not allowed).
    static func type(of status: HTTPResponse.Status) -> String {
        switch status {
        case .notFound: "not-found"
        case .methodNotAllowed: "method-not-allowed"
        default: "http-\(status.code)"
        }
    }
}

/// Gives every response an `X-Request-Id`, turns every error into a problem, and logs one line a request.
struct RequestLog: RouterMiddleware {
    typealias Context = BasicRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        let started = ContinuousClock.now
        let id = UUID().uuidString.lowercased()
        var response: Response
        do {
            response = try await next(request, context)
        } catch {
            response = Problem.from(error).response
        }
        response.headers[.init("X-Request-Id")!] = id
        let elapsed = ContinuousClock.now - started
        let milliseconds = Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000
        let line = "\(request.method) \(request.uri.path) \(response.status.code) " + String(format: "%.1f ms", milliseconds)
        context.logger.info("\(line)", metadata: ["request": .string(id)])
        return response
    }
}
#endif
