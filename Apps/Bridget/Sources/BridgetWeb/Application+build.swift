import BridgetCore
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore

/// The HTTP API and the pages, as Docs/openapi.yaml documents them.
package enum WebAPI {
    /// Every endpoint: method and path (Hummingbird's `{name}` parameters). `buildRouter` refuses to build a router
    /// whose handlers differ, and a test compares the table with Docs/openapi.yaml.
    package static let routeTable: [String] = [
        "GET /healthz", "GET /readyz", "GET /metrics",
        "GET /v1/status", "GET /v1/events",
        "GET /v1/bridges", "GET /v1/bridges/{id}", "GET /v1/bridges/{id}/events", "GET /v1/bridges/{id}/forecast",
        "GET /v1/bridges/status", "GET /v1/bridges/{id}/status", "GET /v1/stream",
        "GET /v1/stats", "GET /v1/stats/heatmap",
        "GET /v1/routes", "GET /v1/routes/{name}", "PUT /v1/routes/{name}", "DELETE /v1/routes/{name}",
        "GET /v1/routes/{name}/score", "GET /v1/routes/{name}/best-time",
        "GET /v1/alerts", "GET /v1/alerts/{name}", "PUT /v1/alerts/{name}", "DELETE /v1/alerts/{name}",
        "GET /", "GET /bridges/{id}", "GET /routes/{name}", "GET /quality",
    ]
}

/// The router of every endpoint over `web`, with its middleware: metrics outermost (they see the status an error
/// became), then the CORS headers (on problems too), then the request log, which turns every error into a problem,
/// then the page errors, which make a browser's error outside the API a page, then the method table's answers (405
/// with `Allow`, `OPTIONS` and preflights, writes from origins not listed).
/// A `HEAD` is answered as its `GET` is, without the body (RFC 9110).
package func buildRouter(_ web: WebContext) -> Router<WebRequestContext> {
    let router = Router(context: WebRequestContext.self, options: .autoGenerateHeadEndpoints)
    let methods = MethodTable(routes: WebAPI.routeTable, crossOrigin: web.app.configuration.serve.crossOrigin)
    router.add(middleware: RequestMetrics(registry: web.registry))
    router.add(middleware: CrossOrigin(table: methods))
    router.add(middleware: RequestLog(inFlight: web.inFlight))
    router.add(middleware: PageErrors(web: web))
    router.add(middleware: MethodGuard(table: methods))
    let endpoints = Endpoints(router: router, guard: WriteGuard(web: web))
    OperationsController(web: web).addRoutes(to: endpoints)
    BridgesController(web: web).addRoutes(to: endpoints)
    EventsController(web: web).addRoutes(to: endpoints)
    StatisticsController(web: web).addRoutes(to: endpoints)
    RoutesController(web: web).addRoutes(to: endpoints)
    PagesController(web: web).addRoutes(to: endpoints)
    StreamController(web: web).addRoutes(to: endpoints)
    AlertsController(web: web).addRoutes(to: endpoints)
    precondition(endpoints.list.sorted() == WebAPI.routeTable.sorted(),
                 "WebAPI.routeTable and the registered handlers differ: \(endpoints.list)")
    return router
}

/// The HTTP application over `web`, listening on `host`:`port` (0 picks a free port); `onListening` gets the port
/// bound once the socket is open. What one client can hold is bounded (`serve.*`): connections at once, the time
/// to send a request's head, idle time; a request's body is timed by the handler that reads it.
package func buildApplication(_ web: WebContext, host: String, port: Int, logger: Logger,
                              onListening: @escaping @Sendable (Int) -> Void = { _ in }) -> some ApplicationProtocol {
    let serve = web.app.configuration.serve
    let headTimeout = TimeAmount.milliseconds(Int64(serve.headerTimeout * 1000))
    return Application(
        router: buildRouter(web),
        server: .http1(configuration: .init(
            additionalChannelHandlers: [ConnectionGuard(
                headTimeout: headTimeout, stallTimeout: .milliseconds(Int64(web.app.configuration.stream.stall * 1000)),
                logger: logger)],
            idleTimeout: .milliseconds(Int64(serve.idleTimeout * 1000)))),
        configuration: .init(address: .hostname(host, port: port), serverName: "bridget",
                             availableConnectionsDelegate: MaximumAvailableConnections(serve.maximumConnections,
                                                                                       logger: logger)),
        onServerRunning: { channel in onListening(channel.localAddress?.port ?? port) },
        logger: logger)
}
