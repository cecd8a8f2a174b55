import ArgumentParser
import Foundation

/// `bridget serve`: the HTTP API over the configured store (trait `Server`; see Server/BridgetServer.swift).
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the store as a JSON API over HTTP (the answers of --format json).",
        discussion: """
            Endpoints so far: GET /healthz, /readyz, /v1/status, /v1/stats, /v1/bridges, \
            /v1/bridges/{id} (an id or a name), /v1/bridges/{id}/events (pages with a cursor) \
            and /v1/bridges/{id}/forecast (Docs/OUTPUT.md). Answers carry an ETag from the store's history \
            version (If-None-Match gets 304), errors are application/problem+json, every \
            response has an X-Request-Id and every request is one log line on standard error. \
            Ctrl-C or SIGTERM stops taking requests and drains the ones in flight.
              bridget serve --port 8080
            This command exists in a bridget built with the Server trait: \
            swift build --traits Server --product bridget.
            """)

    @OptionGroup var global: GlobalOptions

    @Option(name: .long, help: ArgumentHelp("The address to listen on.", valueName: "host"))
    var host: String = "127.0.0.1"

    @Option(name: .long, help: ArgumentHelp("The port to listen on; 0 picks a free one (printed at start).",
                                            valueName: "port"))
    var port: Int = 8080

    func validate() throws {
        guard (0...65_535).contains(port) else { throw ValidationError("--port must be from 0 to 65535") }
    }

    func run() async throws {
        #if Server
        try await reportingErrors {
            let context = try CommandContext.load(global)
            try await BridgetServer(context: context).run(host: host, port: port)
        }
        #else
        Terminal.error("this bridget was built without the server; build it with the Server trait: "
                       + "swift build --traits Server --product bridget")
        throw ExitCode(69)
        #endif
    }
}
