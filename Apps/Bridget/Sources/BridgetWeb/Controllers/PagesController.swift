import BridgetApp
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
            try await page(request, varying: web.dayTag()) { site in
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
