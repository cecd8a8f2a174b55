import BridgetAnalysis
import BridgetAnswers
import Hummingbird

/// Statistics and the hour-of-week heatmap over the history, for `bridge` (repeatable), `since` and `until`.
struct StatisticsController {
    let web: WebContext

    func addRoutes(to endpoints: Endpoints) {
        endpoints.get("/v1/stats") { request, _ in
            try await web.cached(request) {
                try await HistoryAnswers(context: web.app, store: web.store).stats(in: try await scope(Query(request)))
            }
        }
        endpoints.get("/v1/stats/heatmap") { request, _ in
            try await web.cached(request) {
                try await HistoryAnswers(context: web.app, store: web.store).heatmap(in: try await scope(Query(request)))
            }
        }
    }

    /// The history scope of the query, as the CLI's `--bridge`, `--since` and `--until` give it.
    func scope(_ query: Query) async throws -> HistoryScope {
        var scope = HistoryScope()
        let catalog = try await web.books.book().catalog
        for text in query.all("bridge") {
            guard let bridge = catalog.resolve(text) else {
                throw Problem.badParameter("bridge", "no bridge named '\(text)'")
            }
            if !scope.bridgeIDs.contains(bridge.id) { scope.bridgeIDs.append(bridge.id) }
        }
        let grammar = web.app.timeGrammar
        scope.from = try query["since"].map { try grammar.instant($0, option: "since", direction: .back) }
        scope.before = try query["until"].map { try grammar.instant($0, option: "until", direction: .back) }
        return scope
    }
}
