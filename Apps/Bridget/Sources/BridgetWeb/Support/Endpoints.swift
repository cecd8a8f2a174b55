import Hummingbird

/// Registers handlers on a router and remembers each one's method and path, so the server can check them against
/// the table Docs/openapi.yaml documents (`WebAPI.routeTable`).
package final class Endpoints {
    package typealias Handler = @Sendable (Request, WebRequestContext) async throws -> Response

    private let router: Router<WebRequestContext>
    private var registered: [String] = []

    package init(router: Router<WebRequestContext>) { self.router = router }

    /// Every endpoint registered so far: `METHOD /path` with Hummingbird's `{name}` parameters.
    package var list: [String] { registered }

    package func get(_ path: String, _ handler: @escaping Handler) { on(.get, path, handler) }
    package func put(_ path: String, _ handler: @escaping Handler) { on(.put, path, handler) }
    package func delete(_ path: String, _ handler: @escaping Handler) { on(.delete, path, handler) }

    private func on(_ method: HTTPRequest.Method, _ path: String, _ handler: @escaping Handler) {
        registered.append("\(method.rawValue) \(path)")
        router.on(RouterPath(path), method: method, use: handler)
    }
}
