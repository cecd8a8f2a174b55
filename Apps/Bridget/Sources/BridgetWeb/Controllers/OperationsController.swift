import BridgetAnswers
import Hummingbird
import Prometheus

/// The endpoints of whoever runs the server: liveness, readiness, metrics and the status of store and refresher.
struct OperationsController {
    let web: WebContext

    func addRoutes(to endpoints: Endpoints) {
        endpoints.get("/healthz") { _, _ in Self.text("ok\n") }
        endpoints.get("/readyz") { _, _ in try await ready() }
        endpoints.get("/metrics") { _, _ in metrics() }
        endpoints.get("/v1/status") { request, _ in
            // The last run changes with every sync, also one that stored nothing new: it is part of the tag.
            let run = try await web.store.syncRuns(limit: 1).first
            let next = web.refresh?.next.map { String(Int($0.timeIntervalSince1970)) } ?? ""
            return try await web.cached(request, varying: "\(run?.id ?? 0)-\(run?.status.rawValue ?? "")-\(next)") {
                try await StatusAnswer.current(context: web.app, store: web.store, schedule: web.schedule,
                                               refresh: web.refresh)
            }
        }
    }

    /// 200 when the store is ready (`BridgeStore.checkReadiness`: its file still the one opened and whole, the
    /// database reachable, a query answered), else its problem: 503 with `Retry-After`.
    func ready() async throws -> Response {
        do {
            try await web.store.checkReadiness()
            return Self.text("ready\n")
        } catch {
            let problem = Problem.from(error)
            guard problem.status == .serviceUnavailable else {
                throw Problem(.webStoreUnavailable, detail: "the server's store cannot answer now", logged: problem.logged)
            }
            throw problem
        }
    }

    /// `/metrics`: the Prometheus text of every metric (requests by route and status, latency, refreshes).
    func metrics() -> Response {
        // The stream's gauges as they stand at the scrape.
        web.streamGauges.clients.set(Double(web.changes.slots.count))
        web.streamGauges.queuedBytes.set(Double(web.changes.budget.inUse))
        var buffer: [UInt8] = []
        web.registry.emit(into: &buffer)
        return Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                        body: ResponseBody(byteBuffer: ByteBuffer(bytes: buffer)))
    }

    static func text(_ text: String) -> Response {
        Response(status: .ok, headers: [.contentType: "text/plain; charset=utf-8"],
                 body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }
}
