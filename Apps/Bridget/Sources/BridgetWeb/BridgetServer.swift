import BridgetApp
import Foundation
import Hummingbird
import Logging
import Prometheus
import ServiceLifecycle
import Synchronization

/// `bridget serve`: the HTTP API and the pages over the configured store, and, when `refresh` is on, the refresher,
/// as services of one `ServiceGroup`: SIGTERM or SIGINT stops taking requests, lets those in flight and a running
/// sync's batch finish (for `serve.drain_seconds` at most; the sync records itself `cancelled`), and exits 0.
package struct BridgetServer: Sendable {
    package let context: AppContext

    package init(context: AppContext) { self.context = context }

    /// Opens the store and serves until SIGINT or SIGTERM. `host` and `port` override `serve.host` and `serve.port`.
    package func run(host: String?, port: Int?) async throws {
        let configuration = context.configuration
        let host = host ?? configuration.serve.host
        let port = port ?? configuration.serve.port
        guard !host.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw BridgetError.validation("serve-host", "the address to listen on is empty",
                                          hint: "give --host 127.0.0.1 (or serve.host in the config)")
        }
        let store = try await context.openStoreForReading()
        var logger = Logger(label: "bridget.serve")
        logger.logLevel = .info
        let registry = PrometheusCollectorRegistry()
        let versions = HistoryVersionMemo(lifetime: .seconds(1))
        let refresh = configuration.refresh.isEnabled(for: configuration.provider)
            ? try RefreshService(context: context, store: store, logger: logger, onBatch: { versions.forget() },
                                 observe: Self.metrics(registry))
            : nil
        let web = WebContext(app: context, store: store, registry: registry, refresh: refresh?.state,
                             schedule: refresh?.refresher.schedule, versions: versions)
        let listening = Mutex(false)
        let app = buildApplication(web, host: host, port: port, logger: logger) { bound in
            listening.withLock { $0 = true }
            // Standard output, one line: a script (or a test) that passed --port 0 learns the port here.
            FileHandle.standardOutput.write(Data("listening on http://\(host):\(bound)\n".utf8))
        }
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = [.init(service: app)]
        if let refresh {
            logger.info("refresh: \(refresh.refresher.schedule.description), jitter up to \(configuration.refresh.jitterMinutes) min")
            services.append(.init(service: refresh, successTerminationBehavior: .gracefullyShutdownGroup))
        }
        var group = ServiceGroupConfiguration(services: services, gracefulShutdownSignals: [.sigterm, .sigint],
                                              logger: logger)
        group.maximumGracefulShutdownDuration = .milliseconds(Int64(configuration.serve.drainSeconds * 1000))
        do {
            try await ServiceGroup(configuration: group).run()
        } catch where !listening.withLock({ $0 }) && !(error is BridgetError) {
            // The socket could not be opened (a port in use, an unknown host): say so, not NIO's words alone.
            throw BridgetError(.network, code: "serve.listen", "cannot listen on \(host):\(port): \(error)",
                               hint: "choose another --port (0 picks a free one) or --host, or stop what uses it",
                               exitCode: 69)
        }
    }

    /// The refresher's metrics in `registry`: rows stored, failures, and the last success's time.
    static func metrics(_ registry: PrometheusCollectorRegistry) -> @Sendable (RefreshEvent) -> Void {
        let rows = registry.makeCounter(descriptor: MetricNameDescriptor(
            metricName: "bridget_sync_rows_stored", unitName: "total", helpText: "Rows the refresher's syncs stored."))
        let failures = registry.makeCounter(descriptor: MetricNameDescriptor(
            metricName: "bridget_refresh_failures", unitName: "total", helpText: "Syncs of the refresher that failed."))
        let lastSuccess = registry.makeGauge(descriptor: MetricNameDescriptor(
            metricName: "bridget_last_refresh_success_timestamp", unitName: "seconds",
            helpText: "When the refresher's last sync succeeded (Unix time)."))
        return { event in
            switch event {
            case .succeeded(let report):
                rows.increment(by: Int64(report.inserted + report.updated))
                lastSuccess.set(report.finishedAt.timeIntervalSince1970)
            case .failed: failures.increment()
            case .scheduled, .started, .deferred, .interrupted: break
            }
        }
    }
}
