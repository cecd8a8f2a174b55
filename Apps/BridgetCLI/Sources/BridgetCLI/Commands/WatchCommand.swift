import ArgumentParser
import Foundation
#if Server
import Logging
import ServiceLifecycle
#endif

/// `bridget watch`: keeps the store fresh on the `refresh` schedule, with no HTTP (trait `Server`, which brings
/// swift-service-lifecycle).
struct WatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Sync on the refresh schedule until stopped (no HTTP): a host that only keeps a store fresh.",
        discussion: """
            Syncs at refresh.times in the provider's local time (default 05:30 and 17:30, Seattle for live), or \
            every refresh.every (e.g. 30m), each time plus a random delay of up to refresh.jitter_minutes. A store \
            that never synced, or missed a scheduled sync while nothing ran, is synced at once. A failed sync is \
            tried again after refresh.backoff_initial_seconds, doubling up to refresh.backoff_max_seconds. One \
            line on standard error says each step.
            Ctrl-C or SIGTERM stops it: a running sync commits the batch in flight and is recorded cancelled; the \
            next start resumes. A second watch (or a refreshing serve) on the same store is refused (exit 75).
              bridget watch
              bridget watch --once        # one sync now, then exit (for cron)
              BRIDGET_REFRESH_EVERY=30m bridget watch
            This command exists in a bridget built with the Server trait: \
            swift build --traits Server --product bridget.
            """)

    @OptionGroup var global: GlobalOptions

    @Flag(name: .long, help: "Sync once now (with the refresh lock held) and exit: 0 when it succeeded.")
    var once = false

    func run() async throws {
        #if Server
        try await reportingErrors {
            let context = try CommandContext.load(global)
            let configuration = context.assembly.configuration
            let store = try await context.assembly.makeStore()
            let lock = configuration.store == .sqlite ? try RefreshLock.take(storePath: configuration.storePath) : nil
            defer { withExtendedLifetime(lock) {} }
            var logger = Logger(label: "bridget.watch")
            logger.logLevel = .info
            if once {
                let pipeline = try context.assembly.makeSyncPipeline(store: store)
                let report = try await cancellingOnInterrupt { try await pipeline.run(full: false) }
                Terminal.note("synced \(report.fetched) rows (\(report.inserted) new, \(report.updated) updated, "
                              + "\(report.rejected) rejected) in run \(report.runID)")
                if !report.completed {
                    Terminal.error("interrupted after \(report.fetched) rows; the committed batches are kept and the next sync resumes")
                    throw ExitCode(130)
                }
                return
            }
            let refresh = try RefreshRuntime(context: context, store: store, logger: logger)
            logger.info("watch: \(refresh.refresher.schedule.description) into \(context.assembly.storeDescription)")
            var group = ServiceGroupConfiguration(services: [.init(service: refresh)],
                                                  gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
            group.maximumGracefulShutdownDuration = .milliseconds(Int64(configuration.serve.drainSeconds * 1000))
            try await ServiceGroup(configuration: group).run()
        }
        #else
        Terminal.error("this bridget was built without the server; build it with the Server trait: "
                       + "swift build --traits Server --product bridget")
        throw ExitCode(69)
        #endif
    }
}
