import ArgumentParser
import BridgetRuntime
import Foundation

/// `bridget serve`: the HTTP API and the pages over the configured store (the build's `ServerPart`, BridgetWeb with
/// trait `Server`).
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the store as a JSON API and pages over HTTP (the answers of --format json).",
        discussion: """
            Endpoints (Docs/openapi.yaml): GET /healthz, /readyz, /metrics, /v1/status, /v1/stats, \
            /v1/stats/heatmap, /v1/bridges, /v1/bridges/{id} (an id or a name), /v1/bridges/{id}/events \
            (pages with a cursor), /v1/bridges/{id}/forecast, /v1/routes, /v1/routes/{name}, \
            /v1/routes/{name}/score and /v1/routes/{name}/best-time; PUT and DELETE /v1/routes/{name} with \
            Authorization: Bearer and the token in $BRIDGET_API_TOKEN (serve.token_env); the pages at /, \
            /bridges/{id}, /routes/{name} and /quality. Answers carry an ETag (If-None-Match gets 304) and \
            Cache-Control, errors are application/problem+json, every response has an X-Request-Id and every \
            request is one log line on standard error.
            With refresh on (refresh.enabled; auto is on for the live and ndw providers) it also syncs on the \
            refresh schedule, as bridget watch does, and with the live provider polls Seattle's live bridge \
            state (provider.live.state_url; one host of those sharing a store polls it). Ctrl-C or SIGTERM stops taking requests, lets those in \
            flight and a running sync's batch finish (serve.drain_seconds) and exits 0.
              bridget serve --port 8080
              BRIDGET_API_TOKEN=secret bridget serve
            This command exists in a bridget built with the Server trait (and sends alerts with the Alerts \
            trait): swift build --traits Server,Alerts --product bridget.
            """)

    @OptionGroup var global: GlobalOptions

    @Option(name: .long, help: ArgumentHelp("The address to listen on (default: serve.host, 127.0.0.1).",
                                            valueName: "host"))
    var host: String?

    @Option(name: .long, help: ArgumentHelp(
        "The port to listen on; 0 picks a free one, printed at start (default: serve.port, 8080).", valueName: "port"))
    var port: Int?

    func validate() throws {
        if let port, !(0...65_535).contains(port) { throw ValidationError("--port must be from 0 to 65535") }
    }

    func run() async throws {
        try await reportingErrors {
            let server = try BuildParts.current.requireServer()
            try await server.serve(context: try global.context(), host: host, port: port, alerts: BuildParts.current.alerts)
        }
    }
}
