import BridgetCore
import BridgetContext
import BridgetRuntime
import Foundation
import Hummingbird
import Logging
import Prometheus
import ServiceLifecycle
import UnixSignals
#if canImport(Glibc)
import Glibc
#endif

/// `bridget serve`: the HTTP API and the pages over the configured store, and, when `refresh` is on, the refresher,
/// as services of one `ServiceGroup`. SIGTERM, SIGINT or SIGHUP stops taking requests and lets those in flight and a
/// running sync's batch finish for `serve.drain_seconds` at most (the sync records itself `cancelled`); at that limit
/// the process ends whatever is still running, saying how many requests it cut, and exits 0.
///
/// Handlers read the store through a `ReopeningStore` guarded by a `ServingGuard`: each call under
/// `serve.store_timeout_seconds`, an outage answered at once for a second after it is found, and a store file that
/// another file replaced reopened.
package struct BridgetServer: Sendable {
    package let context: AppContext

    package init(context: AppContext) { self.context = context }

    /// Opens the store and serves until a stop signal. `host` and `port` override `serve.host` and `serve.port`;
    /// `alerts` sends the alerts' messages (without it, they wait in the outbox, and the log says so).
    package func run(host: String?, port: Int?, alerts: (any AlertDeliveryPart)?) async throws {
        let configuration = context.configuration
        let host = host ?? configuration.serve.host
        let port = port ?? configuration.serve.port
        guard !host.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw BridgetError(.inputServeHost, "the address to listen on is empty",
                                          hint: "give --host 127.0.0.1 (or serve.host in the config)")
        }
        var logger = Logger(label: "bridget.serve")
        logger.logLevel = .info
        let served = try await context.openReopeningStore()
        let store = served.guarded(by: ServingGuard(deadline: .seconds(configuration.serve.storeTimeout), name: served.name))
        Self.raiseOpenFileLimit(for: configuration.serve.maximumConnections, logger: logger)
        let registry = PrometheusCollectorRegistry()
        let versions = HistoryVersionMemo(lifetime: .seconds(1))
        // The refresher's syncs take as long as they take: the same store, without the handlers' deadline.
        let refresh = configuration.refresh.isEnabled(for: configuration.provider)
            ? try RefreshService(context: context, store: served, logger: logger, onBatch: { versions.forget() },
                                 observe: Self.metrics(registry))
            : nil
        let web = WebContext(app: context, store: store, registry: registry, refresh: refresh?.state,
                             schedule: refresh?.refresher.schedule, versions: versions)
        let listening = Locked(false)
        let app = buildApplication(web, host: host, port: port, logger: logger) { bound in
            listening.withLock { $0 = true }
            // Standard output, one line: a script (or a test) that passed --port 0 learns the port here.
            FileHandle.standardOutput.write(Data("listening on http://\(host):\(bound)\n".utf8))
        }
        // The hub after the app: graceful shutdown goes last to first, so streams end before the server drains.
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = [
            .init(service: app), .init(service: web.changes, successTerminationBehavior: .ignore),
        ]
        // Alerts' messages, from the store without the handlers' deadline (an attempt takes its own).
        if let alerts {
            let sender = alerts.sender(context: context, store: served) { [logger] line in logger.info("\(line)") }
            // Messages are enqueued in the transactions of the changes: the hub's sight of new changes wakes the sender.
            web.changes.onChanges { sender.nudge() }
            services.append(.init(service: AlertService(sender: sender), successTerminationBehavior: .ignore))
        } else {
            logger.notice("""
                alerts: this bridget was built without the Alerts trait, so alert messages wait in the outbox for a \
                serve or watch built with it
                """)
        }
        // Seattle now: the live state feed, polled by one host of those sharing the store.
        if let poller = try await LiveStatePoller.make(
            context: context, store: served, log: RefreshService.logging(logger), observe: Self.liveMetrics(registry))
        {
            services.append(.init(service: LiveStateService(poller: poller), successTerminationBehavior: .ignore))
        }
        if let refresh {
            logger.info("refresh: \(refresh.refresher.schedule.description), jitter up to \(configuration.refresh.jitterMinutes) min")
            services.append(.init(service: refresh, successTerminationBehavior: .gracefullyShutdownGroup))
        }
        let signals: [UnixSignal] = [.sigterm, .sigint, .sighup]
        var group = ServiceGroupConfiguration(services: services, gracefulShutdownSignals: signals, logger: logger)
        let drain = Duration.seconds(configuration.serve.drainSeconds)
        group.maximumGracefulShutdownDuration = drain
        let watchdog = Task { await Self.endAfterDrain(drain, signals: signals, inFlight: web.inFlight, logger: logger) }
        defer { watchdog.cancel() }
        do {
            try await ServiceGroup(configuration: group).run()
        } catch where !listening.withLock({ $0 }) && !(error is BridgetError) {
            // The socket could not be opened (a port in use, an unknown host): say so, not NIO's words alone.
            throw BridgetError(.serveListen, "cannot listen on \(host):\(port): \(error)",
                               hint: "choose another --port (0 picks a free one) or --host, or stop what uses it")
        }
    }

    /// The drain's limit, held: once a stop signal comes, a process still running `drain` (and a second for the
    /// services to wind down) later ends, saying how many requests it cut short. (The service group cancels what is
    /// left at the limit, but a handler computing an answer does not stop for a cancellation.)
    static func endAfterDrain(_ drain: Duration, signals: [UnixSignal], inFlight: RequestCount, logger: Logger) async {
        let stops = await UnixSignalsSequence(trapping: signals)
        var iterator = stops.makeAsyncIterator()
        guard let signal = await iterator.next() else { return }
        logger.notice("\(signal): draining for at most \(drain)")
        guard (try? await Task.sleep(for: drain + .seconds(1))) != nil else { return }
        logger.warning("drain limit reached: stopping with \(inFlight.value) request(s) unanswered")
        exit(ErrorTable.ok)
    }

    /// Raises the soft limit of open files to what `connections` need (to the hard limit at most), and says when the
    /// limit is lower than that: each connection is a file, and a server at its limit can accept nothing, not even a
    /// health check.
    static func raiseOpenFileLimit(for connections: Int, logger: Logger) {
        #if canImport(Glibc)
        var limits = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limits) == 0 else { return }
        let wanted = rlim_t(connections + 256) // the store, the log, the refresher's sockets
        if limits.rlim_cur < wanted {
            limits.rlim_cur = min(wanted, limits.rlim_max)
            _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limits)
        }
        if limits.rlim_cur < wanted {
            logger.warning("""
                the open-file limit is \(limits.rlim_cur), under serve.max_connections \(connections) and the files \
                the server needs: raise it (LimitNOFILE in the systemd unit) or lower serve.max_connections
                """)
        }
        #endif
    }

    /// The live state poller's metrics in `registry`: polls by outcome (`ok`, `http-503`, `html-page`, …, and
    /// `standby` while another host polls), what they noted by name, and the last good poll's time.
    static func liveMetrics(_ registry: PrometheusCollectorRegistry) -> @Sendable (LivePollReport) -> Void {
        let lastGood = registry.makeGauge(descriptor: MetricNameDescriptor(
            metricName: "bridget_state_last_good_poll_timestamp", unitName: "seconds",
            helpText: "When the live state feed last gave a reading (Unix time)."))
        return { report in
            // Descriptors are not Sendable: made where they are used (the registry keeps one counter per label set).
            let polls = MetricNameDescriptor(metricName: "bridget_state_polls", unitName: "total",
                                             helpText: "Polls of the live state feed, by outcome.")
            let notes = MetricNameDescriptor(metricName: "bridget_state_notes", unitName: "total",
                                             helpText: "What polls of the live state feed noted, by name.")
            registry.makeCounter(descriptor: polls, labels: [("outcome", report.outcome)]).increment()
            for (note, count) in report.notes { registry.makeCounter(descriptor: notes, labels: [("note", note)]).increment(by: Int64(count)) }
            if let last = report.lastGoodPoll { lastGood.set(last.timeIntervalSince1970) }
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

/// The live state poller as a service of the server: it polls until the server shuts down.
struct LiveStateService: Service {
    let poller: LiveStatePoller

    func run() async throws {
        await cancelWhenGracefulShutdown { await poller.run() }
    }
}

/// The alerts' sender as a service of the server: it sends until the server shuts down.
struct AlertService: Service {
    let sender: any AlertSender

    func run() async throws {
        await cancelWhenGracefulShutdown { await sender.run() }
    }
}

/// The server as the composition root registers it in a build with the `Server` trait.
package struct WebServer: ServerPart {
    package init() {}

    package func serve(context: AppContext, host: String?, port: Int?, alerts: (any AlertDeliveryPart)?) async throws {
        try await BridgetServer(context: context).run(host: host, port: port, alerts: alerts)
    }
}
