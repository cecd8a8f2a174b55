import BridgetApp
import Hummingbird
import Logging

/// The HTTP API and the pages, as Docs/openapi.yaml documents them.
package enum WebAPI {
    /// Every endpoint: method and path (Hummingbird's `{name}` parameters). `buildRouter` refuses to build a router
    /// whose handlers differ, and a test compares the table with Docs/openapi.yaml.
    package static let routeTable: [String] = [
        "GET /healthz", "GET /readyz", "GET /metrics",
        "GET /v1/status",
        "GET /v1/bridges", "GET /v1/bridges/{id}", "GET /v1/bridges/{id}/events", "GET /v1/bridges/{id}/forecast",
        "GET /v1/stats", "GET /v1/stats/heatmap",
        "GET /v1/routes", "GET /v1/routes/{name}", "PUT /v1/routes/{name}", "DELETE /v1/routes/{name}",
        "GET /v1/routes/{name}/score", "GET /v1/routes/{name}/best-time",
        "GET /", "GET /bridges/{id}", "GET /routes/{name}", "GET /quality",
    ]
}

/// The router of every endpoint over `web`, with its middleware: metrics outermost (they see the status an error
/// became), then the request log, which turns every error into a problem.
package func buildRouter(_ web: WebContext) -> Router<BasicRequestContext> {
    let router = Router(context: BasicRequestContext.self)
    router.add(middleware: RequestMetrics(registry: web.registry))
    router.add(middleware: RequestLog())
    let endpoints = Endpoints(router: router)
    OperationsController(web: web).addRoutes(to: endpoints)
    BridgesController(web: web).addRoutes(to: endpoints)
    StatisticsController(web: web).addRoutes(to: endpoints)
    RoutesController(web: web).addRoutes(to: endpoints)
    PagesController(web: web).addRoutes(to: endpoints)
    precondition(endpoints.list.sorted() == WebAPI.routeTable.sorted(),
                 "WebAPI.routeTable and the registered handlers differ: \(endpoints.list)")
    return router
}

/// The HTTP application over `web`, listening on `host`:`port` (0 picks a free port); `onListening` gets the port
/// bound once the socket is open.
package func buildApplication(_ web: WebContext, host: String, port: Int, logger: Logger,
                              onListening: @escaping @Sendable (Int) -> Void = { _ in }) -> some ApplicationProtocol {
    Application(
        router: buildRouter(web),
        configuration: .init(address: .hostname(host, port: port), serverName: "bridget"),
        onServerRunning: { channel in onListening(channel.localAddress?.port ?? port) },
        logger: logger)
}
