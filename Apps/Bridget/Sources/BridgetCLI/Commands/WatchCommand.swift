import ArgumentParser
import BridgetContext
import BridgetCore
import BridgetRuntime
import Foundation

/// `bridget watch`: keeps the store fresh on the `refresh` schedule, with no HTTP.
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
            With the live provider it also polls Seattle's live bridge state (provider.live.state_url, every \
            state_poll_seconds) and records each opening as it is seen, for status, the stream and alerts; one \
            host of those sharing a store polls at a time (Docs/LIVE.md).
            Syncs take turns through the store's sync lock: while another watch, a refreshing serve or a \
            bridget sync is syncing the same store (on this host or another), this one waits for its next look.
            Ctrl-C, SIGTERM or SIGHUP stops it: a running sync commits the batch in flight and is recorded cancelled; the \
            next start resumes.
              bridget watch
              bridget watch --once        # one sync now, then exit (for cron); 75 if another is syncing
              BRIDGET_REFRESH_EVERY=30m bridget watch
            """)

    @OptionGroup var global: GlobalOptions

    @Flag(name: .long, help: "Sync once now and exit: 0 when it succeeded, 75 when another sync holds the store.")
    var once = false

    func run() async throws {
        try await reportingErrors {
            let context = try global.context()
            let configuration = context.configuration
            if once {
                let pipeline = try await context.syncPipeline()
                let report = try await cancellingOnInterrupt { try await pipeline.run(full: false) }
                Terminal.note("synced \(report.fetched) rows (\(report.inserted) new, \(report.updated) updated, "
                              + "\(report.rejected) rejected) in run \(report.runID)")
                if !report.completed {
                    Terminal.error("interrupted after \(report.fetched) rows; the committed batches are kept and the next sync resumes")
                    throw ExitCode(ErrorTable.interrupted)
                }
                return
            }
            // A store file replaced under a long-running watch (a restore) is reopened, not written to where no one reads.
            let watch = try await StoreWatch.opening(context, alerts: BuildParts.current.alerts, log: Self.log)
            Self.log(.init(level: .info, message: "watch: \(watch.refresh.refresher.schedule.description) into "
                           + context.assembly.storeDescription))
            let names = [SIGTERM: "SIGTERM", SIGINT: "SIGINT", SIGHUP: "SIGHUP"]
            let drain = Duration.seconds(configuration.serve.drainSeconds)
            try await cancelling(on: [SIGTERM, SIGINT, SIGHUP], saying: { number in
                Self.line(.init(level: .notice, message: "\(names[number] ?? "a signal"): stopping; a running sync "
                                + "commits its batch in flight (at most \(configuration.serve.drainSeconds) s)"))
            }, drain: drain) {
                try await watch.run()
            }
        }
    }

    /// A line of the watch's log on standard error, shaped as the server's (`TIME LEVEL bridget.watch: MESSAGE`).
    static func line(_ line: LogLine) -> String {
        var now = time(nil)
        var parts = tm()
        localtime_r(&now, &parts)
        var buffer = [CChar](repeating: 0, count: 32)
        let length = strftime(&buffer, buffer.count, "%Y-%m-%dT%H:%M:%S%z", &parts)
        let stamp = String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return "\(stamp) \(line.level.rawValue) bridget.watch: \(line.message)\n"
    }

    @Sendable static func log(_ line: LogLine) { Terminal.writeError(Self.line(line)) }
}
