import BridgetContext
import BridgetCore
import BridgetPersistence
import BridgetTestSupport
import BridgetWeb
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import ServiceLifecycle
import Testing

/// A server built in process over a real SQLite store in a temporary folder, synced from the sample provider: the
/// router answers requests through HummingbirdTesting without a socket (`.router`), or on 127.0.0.1 (`.live`).
struct WebFixture {
    let folder: String
    let context: AppContext
    let store: any BridgeStore
    let web: WebContext

    /// The sample history of `days` days ending 2026-06-30; `environment` reaches the configuration (the write
    /// token, overrides). The store is synced before the first request.
    /// `storeYAML` replaces the SQLite store in the folder (a PostgreSQL store, say).
    static func make(days: Int = 30, environment: [String: String] = [:], storeYAML: String? = nil,
                     sync: Bool = true) async throws -> WebFixture {
        let folder = NSTemporaryDirectory() + "bridget-web-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let config = folder + "/bridget.yaml"
        try """
            \(TestConfig.sampleProvider(days: days))
            \(storeYAML ?? "store:\n  path: \(folder)/store.sqlite")
            routes:
              path: \(folder)/routes.yaml
            cache:
              path: \(folder)/cache
            serve:
              store_timeout_seconds: 120
            """.write(toFile: config, atomically: true, encoding: .utf8)
        // A moment inside the history, so "now" and "today" are days the sample covers.
        let now = Date(timeIntervalSince1970: 1_782_850_000) // 2026-06-30 13:06 PDT
        let context = try AppContext.load(configPath: config, environment: environment, now: { now }, notes: { _ in })
        let store = try await context.assembly.makeStore()
        if sync { _ = try await context.assembly.makeSyncPipeline(store: store).run(full: false) }
        // The handlers read it as `bridget serve`'s do: reopened when replaced, each call under the deadline (a hang
        // detector here, 120 s, as a busy machine can hold any call for seconds; a test of the deadline sets its own).
        let reopening = context.reopening(store)
        let served = reopening.guarded(by: ServingGuard(deadline: .seconds(context.configuration.serve.storeTimeout),
                                                        name: reopening.name))
        return WebFixture(folder: folder, context: context, store: store, web: WebContext(app: context, store: served))
    }

    /// The application over the fixture's store, as `bridget serve` builds it.
    func application(logger: Logger = Logger(label: "bridget.test")) -> some ApplicationProtocol {
        buildApplication(web, host: "127.0.0.1", port: 0, logger: logger)
    }

    /// Runs `body` with the port of the application listening on 127.0.0.1, as `bridget serve` listens (for raw
    /// connections: `RawConnection`); stops it after.
    func withServer<T: Sendable>(logger: Logger = Logger(label: "bridget.test"),
                                 _ body: @Sendable (Int) async throws -> T) async throws -> T {
        let (ports, port) = AsyncStream.makeStream(of: Int.self)
        let app = buildApplication(web, host: "127.0.0.1", port: 0, logger: logger) { bound in
            port.yield(bound)
            port.finish()
        }
        let group = ServiceGroup(configuration: .init(services: [app], logger: logger))
        return try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            defer { tasks.cancelAll() }
            var listening = ports.makeAsyncIterator()
            guard let bound = await listening.next() else { throw CancellationError() }
            do {
                let value = try await body(bound)
                await group.triggerGracefulShutdown()
                return value
            } catch {
                await group.triggerGracefulShutdown()
                throw error
            }
        }
    }

    /// Runs `body` with a client of the router (no socket).
    func withClient<T>(_ body: @Sendable (any TestClientProtocol) async throws -> T) async throws -> T {
        try await application().test(.router, body)
    }

    /// The JSON of a core answer, as the CLI's `--format json` prints it.
    static func json(_ value: some Encodable) throws -> String { try AnswerJSON.text(value) + "\n" }

    /// Stops the fixture's change hub (a test's stream started it) and removes its folder.
    func remove() {
        web.changes.stop()
        try? FileManager.default.removeItem(atPath: folder)
    }
}

extension TestResponse {
    /// The body as text.
    var text: String { String(decoding: body.readableBytesView, as: UTF8.self) }

    /// A header's value.
    func header(_ name: String) -> String? { headers[.init(name)!] }
}

/// An RFC 9457 problem as the server sends it.
struct ProblemBody: Decodable {
    let type: String
    let title: String
    let status: Int
    let detail: String

    init(_ response: TestResponse) throws {
        #expect(response.header("Content-Type") == "application/problem+json", "\(response.status) \(response.text)")
        self = try JSONDecoder().decode(ProblemBody.self, from: Data(response.body.readableBytesView))
    }
}
