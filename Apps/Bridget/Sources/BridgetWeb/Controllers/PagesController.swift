import BridgetAnswers
import BridgetPages
import BridgetPersistence
import Hummingbird

/// The pages (`BridgetPages`) at `/`, `/bridges/{id}`, `/routes/{name}` and `/quality`, each kept in the answer cache
/// by history version and routes file; an error is a short page with the problem's status and words.
struct PagesController {
    let web: WebContext

    func addRoutes(to endpoints: Endpoints) {
        // The overview is about now: tagged by the minute.
        endpoints.get("/") { request, _ in
            try await page(request, varying: web.minuteTag()) { site in try await site.overview() }
        }
        endpoints.get("/bridges/{id}") { request, context in
            try await page(request) { site in
                let id = try request.pathParameter("id", in: context)
                return try await site.bridgePage(try await web.catalogBridge(id))
            }
        }
        endpoints.get("/routes/{name}") { request, context in
            try await page(request, varying: web.minuteTag()) { site in
                let name = try request.pathParameter("name", in: context)
                return try await site.routePage(try await RouteAnswers.route(name, in: try await web.routeFile()))
            }
        }
        endpoints.get("/quality") { request, _ in try await page(request) { site in try await site.qualityPage() } }
    }

    /// A page of the site, rendered once per history version, routes file and `varying` (the minute for the overview,
    /// which is about now; the day for a route's departures).
    func page(_ request: Request, varying: String = "", _ render: @escaping (Site) async throws -> String) async throws
        -> Response
    {
        let site = Site(context: web.app, store: web.store, now: web.app.assembly.now(), links: .server)
        do {
            let routes = try await web.routeFile().fingerprint()
            return try await web.cachedBody(request, varying: routes + varying, untilNextMinute: !varying.isEmpty,
                                            revalidate: false, contentType: "text/html; charset=utf-8") {
                ByteBuffer(string: try await render(site))
            }
        } catch {
            // A person reads it, not a program: the problem as a page, with the same status and headers.
            var problem = Problem.from(error)
            problem.page = site.errorPage(title: problem.title, detail: problem.detail)
            throw problem
        }
    }
}

/// A person who mistypes a page's address gets a page: an error on a path outside the API (`/v1/…`) and the
/// operations endpoints, asked for by a browser (`Accept` naming `text/html`), is answered as the error page, with
/// the problem's status and words; a program still gets `application/problem+json`.
struct PageErrors: RouterMiddleware {
    typealias Context = WebRequestContext
    let web: WebContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        do {
            return try await next(request, context)
        } catch {
            guard Self.wantsPage(request) else { throw error }
            var problem = Problem.from(error)
            guard problem.page == nil else { throw problem }
            let site = Site(context: web.app, store: web.store, now: web.app.assembly.now(), links: .server)
            let detail = problem.status == .notFound
                ? "There is no page at \(request.uri.path). The overview links every bridge, route and page."
                : problem.detail
            problem.page = site.errorPage(title: problem.title, detail: detail)
            throw problem
        }
    }

    /// Whether `request` is a browser's, for a page.
    static func wantsPage(_ request: Request) -> Bool {
        let path = request.uri.path
        let api = path == "/v1" || path.hasPrefix("/v1/") || ["/healthz", "/readyz", "/metrics"].contains(path)
        return !api && (request.headers[.accept]?.contains("text/html") ?? false)
    }
}
