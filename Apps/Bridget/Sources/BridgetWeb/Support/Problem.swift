import BridgetCore
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

    /// The problem of the error table's row for `code` (status, type, title, `Retry-After`), with what the client
    /// reads (`detail`), more `headers`, and a `title` naming what the row's title speaks of (a parameter).
    package init(_ code: ErrorCode, detail: String, title: String? = nil, headers: HTTPFields = [:],
                 logged: String? = nil) {
        self.init(row: ErrorTable.disposition(of: code), detail: detail, title: title, headers: headers, logged: logged)
    }

    /// The problem of a row of the error table.
    private init(row: ErrorDisposition, detail: String, title: String? = nil, headers: HTTPFields = [:],
                 logged: String? = nil) {
        status = HTTPResponse.Status(code: row.httpStatus)
        type = row.problemType
        self.title = title ?? row.title
        self.detail = detail
        self.headers = headers
        if let seconds = row.retryAfter, self.headers[.retryAfter] == nil { self.headers[.retryAfter] = String(seconds) }
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
        fields[.contentType] = "application/problem+json"
        return Response(status: status, headers: fields, body: ResponseBody(byteBuffer: ByteBuffer(string: json)))
    }

    /// The JSON body, one line.
    package var json: String {
        let body = Body(type: "https://bridget.dev/problems/" + type, title: title, status: Int(status.code),
                        detail: detail)
        return ((try? AnswerJSON.text(body)) ?? "{}") + "\n"
    }

    /// A 400 naming the query parameter that was wrong.
    package static func badParameter(_ name: String, _ detail: String) -> Problem {
        Problem(.webBadParameter, detail: detail, title: parameterTitle(name))
    }

    /// A 400 naming the path segment that was wrong.
    package static func badPath(_ name: String, _ detail: String) -> Problem {
        let row = ErrorTable.disposition(of: .webBadPath)
        return Problem(.webBadPath, detail: detail, title: "\(row.title) '{\(name)}'")
    }

    /// A 400 for a request body that is not what the endpoint takes.
    package static func badBody(_ detail: String) -> Problem {
        Problem(.webBadBody, detail: detail)
    }

    /// A 413 for a body over `serve.max_body_bytes`.
    package static func tooLarge(_ limit: Int) -> Problem {
        Problem(.webPayloadTooLarge, detail: "a body may hold at most \(limit) bytes (serve.max_body_bytes)")
    }

    /// What any error thrown by a handler becomes: a problem of its own; one Hummingbird made (an unknown route, a
    /// method not allowed); or a Bridget error by the one error table (`ErrorTable`), whose detail is the error's
    /// message only when the table says it is about the request; anything else is a 500 with a generic detail.
    package static func from(_ error: any Error) -> Problem {
        if let problem = error as? Problem { return problem }
        if let http = error as? HTTPError {
            return Problem(row: ErrorTable.disposition(httpStatus: Int(http.status.code), reason: http.status.reasonPhrase),
                           detail: http.body ?? http.status.reasonPhrase)
        }
        if let http = error as? any HTTPResponseError, http.status.code < 500 {
            return Problem(row: ErrorTable.disposition(httpStatus: Int(http.status.code), reason: http.status.reasonPhrase),
                           detail: http.status.reasonPhrase)
        }
        guard let shown = ErrorPresentation(error) else {
            let row = ErrorTable.unknown
            return Problem(row: row, detail: Self.detail(row.detail, shown: nil), logged: "\(error)")
        }
        let row = shown.disposition
        var title: String?
        if row.problemType == "bad-parameter", let parameter = (error as? BridgetError)?.parameter {
            title = parameterTitle(String(parameter.drop { $0 == "-" }))
        }
        return Problem(row: row, detail: Self.detail(row.detail, shown: shown), title: title, logged: shown.description)
    }

    /// The title of a bad query parameter's problem, naming it.
    static func parameterTitle(_ name: String) -> String {
        "\(ErrorTable.disposition(of: .webBadParameter).title) '\(name)'"
    }

    private static func detail(_ detail: ErrorDisposition.Detail, shown: ErrorPresentation?) -> String {
        switch detail {
        case .message: shown.map { $0.message + ($0.hint.map { " (\($0))" } ?? "") } ?? ""
        case .generic(let text): text
        }
    }
}
