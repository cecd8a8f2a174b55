import ArgumentParser
import BridgetContext
import BridgetCore
import BridgetDTOs
import Foundation

/// `bridget sync`: fetch openings from the configured provider into the store.
struct SyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Fetch openings from the configured provider into the store.",
        discussion: """
            Incremental by default: starts from the newest stored opening, less \
            sync.overlap_hours, and relies on the store's idempotent upsert, so running it \
            twice stores the same rows (the second run inserts 0). Every row is validated; \
            invalid rows are counted by reason and not stored; --rejects FILE (or \
            sync.rejects_path) appends each of them to FILE as NDJSON, as received, with its \
            reason and the page it came from, and --verbose prints up to three of each reason. \
            Each batch is committed on its own, so an interrupted sync keeps what it wrote and \
            the next one resumes. A store holds one source: the first sync records it (the \
            dataset and its origin, the NDW feed, the sample's seed), and a sync of another \
            source into it is refused before anything is written (exit 78); give that \
            configuration its own store.path. A redirect to a special-purpose address \
            (loopback, private, link-local) is not followed.

              bridget sync
              bridget sync --rejects rejected.ndjson --verbose
            """)

    @OptionGroup var global: GlobalOptions
    @OptionGroup var output: FormatOptions

    @Flag(name: .long, help: "Walk the provider's whole history again instead of starting from the watermark.")
    var full = false

    @OptionGroup var progress: ProgressOptions

    @OptionGroup var rejectOptions: RejectOptions

    func run() async throws {
        try await reportingErrors {
            let context = try global.context()
            let rejects = try rejectOptions.log(configured: context.assembly.configuration.syncRejectsPath)
            defer { rejects?.close() }
            let pipeline = try await context.syncPipeline(rejects: rejects)
            let meter = ProgressMeter(verb: "syncing", total: nil, enabled: progress.shown)
            let full = self.full
            let report = try await cancellingOnInterrupt {
                try await pipeline.run(full: full) { progress in
                    meter.update(rows: progress.fetched, detail: "page \(progress.pages)")
                }
            }
            meter.finish()
            for warning in report.warnings { Terminal.note(warning) }
            try write(report, storeDescription: context.assembly.storeDescription, time: context.clock)
            rejectOptions.report(rejects, rejected: report.rejected)
            if !report.completed {
                Terminal.error("interrupted after \(report.fetched) rows; the committed batches are kept and the next sync resumes")
                throw ExitCode(ErrorTable.interrupted)
            }
        }
    }

    private func write(_ report: SyncReport, storeDescription: String, time: LocalClock) throws {
        let outcome = Tabular.outcome(
            read: ("fetched", report.fetched),
            counts: report.counts,
            rejected: report.rejected, byReason: report.rejectedByReason)
        let seconds = report.finishedAt.timeIntervalSince(report.startedAt)
        let from = report.since.map { "from " + time.display($0) } ?? "full history"
        var notes = [
            "",
            "Synced \(report.provider) (\(from)) into \(storeDescription) in \(String(format: "%.1f", seconds)) s.",
            "Newest stored opening: " + (report.watermarkAfter.map(time.display) ?? "none"),
        ]
        if report.withdrawn > 0 {
            notes.insert("Withdrew \(report.withdrawn) announced opening\(report.withdrawn == 1 ? "" : "s") the source no "
                         + "longer lists.", at: 1)
        }
        if report.sourceUnchanged {
            notes.insert("The source is unchanged since the last sync: no page was fetched.", at: 1)
        }
        try OutputWriter(format: output.format).write(report, tabular: outcome, notes: notes)
    }
}
