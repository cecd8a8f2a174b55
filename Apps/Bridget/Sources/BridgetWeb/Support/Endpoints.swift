import Hummingbird

/// Registers handlers on a router and remembers each one's method and path, so the server can check them against
/// the table Docs/openapi.yaml documents (`WebAPI.routeTable`). A handler registered `guarded` is on the route group
/// of `guard`'s middleware (the writes and the alerts: `WriteGuard`).
package final class Endpoints {
    package typealias Handler = @Sendable (Request, WebRequestContext) async throws -> Response

    private let router: Router<WebRequestContext>
    private let guarded: RouterGroup<WebRequestContext>
    private var registered: [String] = []

    init(router: Router<WebRequestContext>, guard middleware: WriteGuard) {
        self.router = router
        guarded = router.group().add(middleware: middleware)
    }

    /// Every endpoint registered so far: `METHOD /path` with Hummingbird's `{name}` parameters.
    package var list: [String] { registered }

    package func get(_ path: String, guarded: Bool = false, _ handler: @escaping Handler) {
        on(.get, path, guarded, handler)
    }
    package func put(_ path: String, guarded: Bool = false, _ handler: @escaping Handler) {
        on(.put, path, guarded, handler)
    }
    package func delete(_ path: String, guarded: Bool = false, _ handler: @escaping Handler) {
        on(.delete, path, guarded, handler)
    }

    private func on(_ method: HTTPRequest.Method, _ path: String, _ isGuarded: Bool, _ handler: @escaping Handler) {
        registered.append("\(method.rawValue) \(path)")
        if isGuarded {
            guarded.on(RouterPath(path), method: method, use: handler)
        } else {
            router.on(RouterPath(path), method: method, use: handler)
        }
    }
}
