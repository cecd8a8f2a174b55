import BridgetCore
import BridgetDTOs
import BridgetRuntime
import Foundation
import Hummingbird

/// Alerts over HTTP, every call with the bearer token of `serve.token_env` (an alert names where messages go):
/// `PUT /v1/alerts/{name}` saves one from the same words as `bridget alert add`, `DELETE` removes it, `GET` shows
/// them without secrets (a destination cut to its host).
struct AlertsController {
    let web: WebContext

    func addRoutes(to endpoints: Endpoints) {
        endpoints.get("/v1/alerts", guarded: true) { request, _ in
            return try Response.json(try await web.store.alerts().map(AlertOutput.init), status: .ok)
        }
        endpoints.get("/v1/alerts/{name}", guarded: true) { request, context in
            let name = try request.pathParameter("name", in: context)
            return try Response.json(AlertOutput(try await rule(name)), status: .ok)
        }
        endpoints.put("/v1/alerts/{name}", guarded: true) { request, context in
            let name = try request.pathParameter("name", in: context)
            return try await save(name, try await request.guardedBody())
        }
        endpoints.delete("/v1/alerts/{name}", guarded: true) { request, context in
            let name = try request.pathParameter("name", in: context)
            guard try await web.store.removeAlert(named: name) else { throw Self.unknown(name) }
            return Response(status: .noContent)
        }
    }

    func rule(_ name: String) async throws -> AlertRuleDTO {
        guard let rule = try await web.store.alerts().first(where: { $0.name == name }) else { throw Self.unknown(name) }
        return rule
    }

    /// Saves the alert the body asks for: 201 when new, 200 when it replaced one; 400 saying what is wrong.
    func save(_ name: String, _ data: Data) async throws -> Response {
        do {
            try AlertRules.checkName(name)
        } catch let error as BridgetError {
            throw Problem.badPath("name", error.message)
        }
        let request: AlertRequest
        do {
            request = try Self.requestBody(data)
        } catch let refusal as StrictJSON.Refusal {
            throw Problem.badBody("the body is not an alert: " + refusal.reason
                                  + #"; send {"route": "commute", "days": "mon-fri", "between": "07:00-09:30", "#
                                  + #""webhook": "https://example.org/hook", "secretEnv": "BRIDGET_HOOK_SECRET"}"#)
        }
        let rule: AlertRuleDTO
        do {
            rule = try await AlertRules(context: web.app, store: web.store).rule(named: name, request)
        } catch let error as BridgetError where error.category == .validation {
            throw Problem.badBody(error.message + (error.hint.map { " (\($0))" } ?? ""))
        }
        let maximum = web.app.configuration.alerts.maximumAlerts
        let existed: Bool
        switch try await web.store.saveAlert(rule, maximum: maximum) {
        case .created: existed = false
        case .replaced: existed = true
        case .refused:
            throw Problem(.webTooManyAlerts,
                          detail: "this server keeps at most \(maximum) alerts (alerts.max_alerts); remove one first")
        }
        var response = try Response.json(AlertOutput(rule), status: existed ? .ok : .created)
        if !existed { response.headers[.location] = "/v1/alerts/\(name)" }
        return response
    }

    /// The body, read strictly: only `AlertRequest`'s fields, each of its type, no key twice.
    static func requestBody(_ data: Data) throws -> AlertRequest {
        _ = try StrictJSON.object(try StrictJSON.parse(data), at: "the body", allowed: [
            "route", "bridges", "days", "between", "trigger", "departure", "threshold", "lead", "webhook", "secretEnv",
            "ntfy",
        ])
        do {
            return try JSONDecoder().decode(AlertRequest.self, from: data)
        } catch {
            throw StrictJSON.Refusal(reason: StrictJSON.reason(error))
        }
    }

    static func unknown(_ name: String) -> Problem {
        Problem(.inputUnknownAlert,
                detail: "no alert named '\(ConfigValueType.escaped(name, limit: 80))'")
    }
}
