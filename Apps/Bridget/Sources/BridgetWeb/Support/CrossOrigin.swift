import BridgetCore
import HTTPTypes
import Hummingbird

/// The methods each path of the route table answers, and which origins' pages may use them (`serve.cors`).
///
/// A `GET` is answered for `HEAD` too, and every known path answers `OPTIONS`. Reads (`GET`, `HEAD`) are for the
/// origins `serve.cors.allowed_origins` names (any, by default); writes (`PUT`, `DELETE`) only for those
/// `serve.cors.write_origins` lists, and for the server's own origin.
package struct MethodTable: Sendable {
    private struct Shape: Sendable {
        /// The path's segments; `nil` for a `{name}` parameter, which matches any one segment.
        let segments: [String?]
        var methods: [HTTPRequest.Method]
    }

    private let shapes: [Shape]
    package let crossOrigin: CrossOriginSettings

    /// The request headers a page on another origin may send (beside the ones browsers never ask about).
    package static let allowedHeaders = ["Authorization", "Content-Type", "If-None-Match", "If-Match", "Last-Event-ID"]
    /// The response headers a page on another origin may read (beside the ones browsers always show).
    package static let exposedHeaders = ["ETag", "Link", "Retry-After", "WWW-Authenticate", "X-Request-Id"]

    /// The table of `routes` (`METHOD /path`, as `WebAPI.routeTable`).
    package init(routes: [String], crossOrigin: CrossOriginSettings) {
        var shapes: [Shape] = []
        for route in routes {
            // `buildRouter` checks every entry against the handlers registered, so none is malformed there.
            let parts = route.split(separator: " ", maxSplits: 1)
            guard parts.count == 2, let method = HTTPRequest.Method(String(parts[0])) else { continue }
            let segments: [String?] = parts[1].split(separator: "/").map { $0.first == "{" ? nil : String($0) }
            if let index = shapes.firstIndex(where: { $0.segments == segments }) {
                shapes[index].methods.append(method)
            } else {
                shapes.append(Shape(segments: segments, methods: [method]))
            }
        }
        self.shapes = shapes
        self.crossOrigin = crossOrigin
    }

    /// The methods `path` answers, in the order `Allow` lists them; `nil` for a path no route has.
    package func methods(of path: String) -> [HTTPRequest.Method]? {
        let segments = path.split(separator: "/")
        var found: [HTTPRequest.Method] = []
        for shape in shapes where shape.segments.count == segments.count
            && zip(shape.segments, segments).allSatisfy({ pattern, segment in pattern.map { $0 == segment } ?? true }) {
            found += shape.methods
        }
        guard !found.isEmpty else { return nil }
        if found.contains(.get) { found.append(.head) }
        found.append(.options)
        let order: [HTTPRequest.Method] = [.get, .head, .put, .post, .patch, .delete, .options]
        return order.filter(found.contains)
    }

    /// Whether `method` changes what is stored.
    package static func writes(_ method: HTTPRequest.Method) -> Bool {
        ![.get, .head, .options].contains(method)
    }

    /// Whether a page of `origin` may make a `method` request of this server (`host`, the request's authority, for
    /// its own origin).
    package func allows(origin: String, method: HTTPRequest.Method, host: String?) -> Bool {
        guard let origin = WebOrigin(origin)?.text else { return false }
        if Self.writes(method) {
            return crossOrigin.mayWrite(origin) || Self.isSameOrigin(origin, host: host)
        }
        return crossOrigin.mayRead(origin) || Self.isSameOrigin(origin, host: host)
    }

    /// Whether `origin` names this server: its host and port are the request's `Host`.
    static func isSameOrigin(_ origin: String, host: String?) -> Bool {
        guard let host = host?.lowercased(), let separator = origin.range(of: "://") else { return false }
        let authority = origin[separator.upperBound...]
        return authority == host || (origin.hasPrefix("http://") && authority + ":80" == host)
            || (origin.hasPrefix("https://") && authority + ":443" == host)
    }
}

extension Request {
    /// The authority the client asked for (`Host`).
    var authority: String? { head.authority }

    /// The method a CORS preflight asks about; `nil` for any other request.
    var preflightMethod: HTTPRequest.Method? {
        guard method == .options, headers[.origin] != nil,
              let asked = headers[.accessControlRequestMethod] else { return nil }
        return HTTPRequest.Method(asked.trimmingCharacters(in: .whitespaces))
    }
}

/// Answers what the route table knows before a handler does: `405` with `Allow` for a known path and a method it does
/// not answer; `OPTIONS` (`204` with `Allow`, or a CORS preflight's answer); and `403` for a write from a page of an
/// origin not listed in `serve.cors.write_origins`, before anything is read or changed.
struct MethodGuard: RouterMiddleware {
    typealias Context = WebRequestContext
    let table: MethodTable

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        guard let methods = table.methods(of: request.uri.path) else { return try await next(request, context) }
        let allow = methods.map(\.rawValue).joined(separator: ", ")
        if let asked = request.preflightMethod {
            try preflight(request, asked: asked, methods: methods)
            return Response(status: .noContent, headers: [.allow: allow])
        }
        guard methods.contains(request.method) else {
            throw Problem(.webMethodNotAllowed, detail: "\(request.uri.path) answers \(allow), not \(request.method)",
                          headers: [.allow: allow])
        }
        if request.method == .options { return Response(status: .noContent, headers: [.allow: allow]) }
        if MethodTable.writes(request.method), let origin = request.headers[.origin],
           !table.allows(origin: origin, method: request.method, host: request.authority) {
            throw Problem(.webOriginNotAllowed, detail: "pages of \(Self.shown(origin)) may not \(request.method) here "
                          + "(serve.cors.write_origins lists the origins that may)")
        }
        return try await next(request, context)
    }

    /// Refuses a preflight (403) that asks for a method the path does not answer, for a method the origin may not
    /// use, or for a header the API does not take.
    private func preflight(_ request: Request, asked: HTTPRequest.Method, methods: [HTTPRequest.Method]) throws {
        let origin = request.headers[.origin] ?? ""
        guard methods.contains(asked) else {
            throw Problem(.webOriginNotAllowed, detail: "\(request.uri.path) does not answer \(asked)",
                          headers: [.allow: methods.map(\.rawValue).joined(separator: ", ")])
        }
        guard table.allows(origin: origin, method: asked, host: request.authority) else {
            throw Problem(.webOriginNotAllowed, detail: "pages of \(Self.shown(origin)) may not \(asked) here "
                          + "(serve.cors lists the origins that may)")
        }
        let allowed = Set(MethodTable.allowedHeaders.map { $0.lowercased() })
        for header in (request.headers[.accessControlRequestHeaders] ?? "").split(separator: ",") {
            let name = header.trimmingCharacters(in: .whitespaces).lowercased()
            guard name.isEmpty || allowed.contains(name) else {
                throw Problem(.webOriginNotAllowed, detail: "the API takes no request header \(Self.shown(name)) "
                              + "from another origin; it takes \(MethodTable.allowedHeaders.joined(separator: ", "))")
            }
        }
    }

    /// An origin as a message shows it: quoted, cut short.
    static func shown(_ text: String) -> String { ConfigValueType.quoted(String(text.prefix(100))) }
}

/// Gives a response to a page on another origin the CORS headers its browser reads: `Access-Control-Allow-Origin`
/// (`*` for a read any origin may make, else the origin, with `Vary: Origin`) and the headers it may read; a
/// preflight's `204` also the methods and headers allowed and how long to keep the answer. A response to an origin
/// that may not make the request gets none of them, so its browser keeps the answer from the page. Outside the
/// request log, so problems get them too.
struct CrossOrigin: RouterMiddleware {
    typealias Context = WebRequestContext
    let table: MethodTable

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        var response = try await next(request, context)
        guard let origin = request.headers[.origin] else { return response }
        let preflight = request.preflightMethod
        let method = preflight ?? request.method
        guard table.allows(origin: origin, method: method, host: request.authority) else {
            if !MethodTable.writes(method) && table.crossOrigin.readers != nil { Self.vary(&response.headers) }
            return response
        }
        if !MethodTable.writes(method) && table.crossOrigin.readers == nil {
            response.headers[.accessControlAllowOrigin] = "*"
        } else {
            response.headers[.accessControlAllowOrigin] = WebOrigin(origin)?.text
            Self.vary(&response.headers)
        }
        if preflight != nil, response.status == .noContent {
            let methods = table.methods(of: request.uri.path) ?? []
            response.headers[.accessControlAllowMethods] = methods
                .filter { table.allows(origin: origin, method: $0, host: request.authority) }
                .map(\.rawValue).joined(separator: ", ")
            response.headers[.accessControlAllowHeaders] = MethodTable.allowedHeaders.joined(separator: ", ")
            response.headers[.accessControlMaxAge] = String(table.crossOrigin.maxAge)
        } else {
            response.headers[.accessControlExposeHeaders] = MethodTable.exposedHeaders.joined(separator: ", ")
        }
        return response
    }

    /// Adds `Origin` to `Vary`: the answer's headers depend on it.
    static func vary(_ headers: inout HTTPFields) {
        let present = headers[.vary] ?? ""
        guard !present.lowercased().contains("origin") else { return }
        headers[.vary] = present.isEmpty ? "Origin" : present + ", Origin"
    }
}
