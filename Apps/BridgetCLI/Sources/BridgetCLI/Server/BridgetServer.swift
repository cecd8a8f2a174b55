#if Server
import BridgetAnalysis
import BridgetDTOs
import BridgetPersistence
import Foundation
import Hummingbird
import Logging
import Metrics
import Prometheus
import ServiceLifecycle
import Synchronization

/// The HTTP API over the configured store (`bridget serve`), assembled from the same composition root as the CLI: it
/// reads through the store's boundaries only, and answers with the JSON of `--format json` (Docs/OUTPUT.md).
///
/// The server and, when `refresh` is on, the refresher run as services of one `ServiceGroup`: SIGTERM or SIGINT
/// stops taking requests, lets those in flight and a running sync's batch finish (for `serve.drain_seconds` at
/// most; the sync records itself `cancelled`), and exits 0.
struct BridgetServer: Sendable {
    let context: CommandContext

    /// Opens the store and serves until SIGINT or SIGTERM. `host` and `port` override `serve.host` and `serve.port`.
    func run(host: String?, port: Int?) async throws {
        let configuration = context.assembly.configuration
        let host = host ?? configuration.serve.host
        let port = port ?? configuration.serve.port
        let store = try await context.openStoreForReading()
        let refreshing = configuration.refresh.isEnabled(for: configuration.provider)
        // One refresher per store: a second refreshing server or a watch on the same file is refused.
        let lock = refreshing && configuration.store == .sqlite
            ? try RefreshLock.take(storePath: configuration.storePath) : nil
        var logger = Logger(label: "bridget.serve")
        logger.logLevel = .info

        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
        let versions = HistoryVersionMemo(lifetime: .seconds(1))
        let refresh = refreshing ? try RefreshRuntime(context: context, store: store, logger: logger,
                                                      onBatch: { versions.forget() }) : nil

        let api = API(context: context, store: store, registry: registry, refresh: refresh?.state,
                      schedule: refresh?.refresher.schedule, versions: versions)
        guard !host.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw BridgetError.validation("serve-host", "the address to listen on is empty",
                                          hint: "give --host 127.0.0.1 (or serve.host in the config)")
        }
        let listening = Mutex(false)
        let router = Router(context: BasicRequestContext.self)
        router.add(middleware: MetricsMiddleware()) // outermost: sees the status RequestLog gives an error
        router.add(middleware: RequestLog())
        api.register(on: router)
        let app = Application(
            router: router,
            configuration: .init(address: .hostname(host, port: port), serverName: "bridget"),
            onServerRunning: { channel in
                listening.withLock { $0 = true }
                let bound = channel.localAddress?.port ?? port
                // Standard output, one line: a script (or a test) that passed --port 0 learns the port here.
                FileHandle.standardOutput.write(Data("listening on http://\(host):\(bound)\n".utf8))
            },
            logger: logger)
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = [.init(service: app)]
        if let refresh {
            logger.info("refresh: \(refresh.refresher.schedule.description), jitter up to \(configuration.refresh.jitterMinutes) min")
            services.append(.init(service: refresh, successTerminationBehavior: .gracefullyShutdownGroup))
        }
        var groupConfiguration = ServiceGroupConfiguration(services: services, gracefulShutdownSignals: [.sigterm, .sigint],
                                                           logger: logger)
        groupConfiguration.maximumGracefulShutdownDuration = .milliseconds(Int64(configuration.serve.drainSeconds * 1000))
        do {
            try await ServiceGroup(configuration: groupConfiguration).run()
        } catch where !listening.withLock({ $0 }) && !(error is BridgetError) {
            // The socket could not be opened (a port in use, an unknown host): say so, not NIO's words alone.
            throw BridgetError(.network, code: "serve.listen", "cannot listen on \(host):\(port): \(error)",
                               hint: "choose another --port (0 picks a free one) or --host, or stop what uses it",
                               exitCode: 69)
        }
        withExtendedLifetime(lock) {}
    }
}
#endif
