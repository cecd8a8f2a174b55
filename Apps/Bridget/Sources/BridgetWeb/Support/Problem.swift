import BridgetApp
import Foundation
import Hummingbird

/// An RFC 9457 problem: thrown by a handler (or made from any error by `from(_:)`), written by `RequestLog`.
package struct Problem: Error, Sendable {
    package let status: HTTPResponse.Status
    /// The last part of the problem type URI (`https://bridget.dev/problems/<type>`, documented in Docs/OUTPUT.md).
    package let type: String
    package let title: String
    /// What the client reads: about its request, never the server's paths, hosts or secrets.
    package let detail: String
    /// More headers for the answer (`WWW-Authenticate` on a 401, `Retry-After` on a 503).
    package var headers: HTTPFields = [:]
    /// What the operator's log says of it when that is more than `detail` (the error's own message).
    package var logged: String?
    /// The problem as a page for a person (a page's error), sent as HTML in place of the JSON body.
    package var page: String?

    package init(status: HTTPResponse.Status, type: String, title: String, detail: String, headers: HTTPFields = [:],
                 logged: String? = nil) {
        self.status = status
        self.type = type
        self.title = title
        self.detail = detail
        self.headers = headers
        self.logged = logged
    }

    /// The JSON body of the problem.
    package struct Body: Codable, Sendable {
        package let type: String
        package let title: String
        package let status: Int
        package let detail: String
    }

    /// The problem as `application/problem+json` (or its `page` as HTML).
    package var response: Response {
        var fields = headers
        if let page {
            fields[.contentType] = "text/html; charset=utf-8"
            return Response(status: status, headers: fields, body: ResponseBody(byteBuffer: ByteBuffer(string: page)))
        }
        let body = Body(type: "https://bridget.dev/problems/" + type, title: title, status: Int(status.code),
                        detail: detail)
        let text = (try? AnswerJSON.text(body)) ?? "{}"
        fields[.contentType] = "application/problem+json"
        return Response(status: status, headers: fields, body: ResponseBody(byteBuffer: ByteBuffer(string: text + "\n")))
    }

    /// A 400 naming the query parameter that was wrong.
    package static func badParameter(_ name: String, _ detail: String) -> Problem {
        Problem(status: .badRequest, type: "bad-parameter", title: "Bad query parameter '\(name)'", detail: detail)
    }

    /// A 400 naming the path segment that was wrong.
    package static func badPath(_ name: String, _ detail: String) -> Problem {
        Problem(status: .badRequest, type: "bad-path", title: "Bad path segment '{\(name)}'", detail: detail)
    }

    /// A 400 for a request body that is not what the endpoint takes.
    package static func badBody(_ detail: String) -> Problem {
        Problem(status: .badRequest, type: "bad-body", title: "The request body is not valid", detail: detail)
    }

    /// A 413 for a body over `serve.max_body_bytes`.
    package static func tooLarge(_ limit: Int) -> Problem {
        Problem(status: .contentTooLarge, type: "payload-too-large", title: "The request body is too large",
                detail: "a body may hold at most \(limit) bytes (serve.max_body_bytes)")
    }

    /// What any error thrown by a handler becomes: a problem of its own; one Hummingbird made (an unknown route, a
    /// method not allowed); or a Bridget error by the one error table (`ErrorTable`), whose detail is the error's
    /// message only when the table says it is about the request; anything else is a 500 with a generic detail.
    package static func from(_ error: any Error) -> Problem {
        if let problem = error as? Problem { return problem }
        if let http = error as? HTTPError {
            return Problem(status: http.status, type: Self.type(of: http.status), title: http.status.reasonPhrase,
                           detail: http.body ?? http.status.reasonPhrase)
        }
        if let http = error as? any HTTPResponseError, http.status.code < 500 {
            return Problem(status: http.status, type: Self.type(of: http.status), title: http.status.reasonPhrase,
                           detail: http.status.reasonPhrase)
        }
        guard let shown = ErrorPresentation(error) else {
            let row = ErrorTable.unknown
            return Problem(status: .init(code: row.httpStatus), type: row.problemType, title: row.title,
                           detail: Self.detail(row.detail, shown: nil), logged: "\(error)")
        }
        let row = shown.disposition
        var title = row.title
        if row.problemType == "bad-parameter", let parameter = (error as? BridgetError)?.parameter {
            title = "Bad query parameter '\(parameter.drop { $0 == "-" })'"
        }
        var headers: HTTPFields = [:]
        if let seconds = row.retryAfter { headers[.retryAfter] = String(seconds) }
        return Problem(status: .init(code: row.httpStatus), type: row.problemType, title: title,
                       detail: Self.detail(row.detail, shown: shown), headers: headers, logged: shown.description)
    }

    private static func detail(_ detail: ErrorDisposition.Detail, shown: ErrorPresentation?) -> String {
        switch detail {
        case .message: shown.map { $0.message + ($0.hint.map { " (\($0))" } ?? "") } ?? ""
        case .generic(let text): text
        }
    }

    /// The problem type of a status Hummingbird answers by itself (an unknown path, a method not allowed).
    static func type(of status: HTTPResponse.Status) -> String {
        switch status {
        case .notFound: "not-found"
        case .methodNotAllowed: "method-not-allowed"
        case .contentTooLarge: "payload-too-large"
        default: "http-\(status.code)"
        }
    }
}
