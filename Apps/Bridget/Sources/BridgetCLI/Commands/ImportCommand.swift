import ArgumentParser
import BridgetContext
import BridgetCore
import BridgetDTOs
import Foundation

/// `bridget import`: load rows from a file (an export, or a download of the dataset) into the store.
struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Load openings from a CSV, NDJSON or JSON file (or standard input) into the store.",
        discussion: """
            Reads rows shaped like the Socrata API's (the fields of `bridget export`, or a \
            download of dataset gm8h-9449 as .csv or .json), streaming, so a file of any \
            size uses the memory of one batch. Every row is validated with the same rules \
            as sync; invalid rows are counted by reason and not stored. Rows are written in \
            batches (import.batch_size), each in one transaction with a checkpoint of where it \
            ended in the file: an import stopped at any moment (Ctrl-C, kill, power loss) \
            leaves a consistent store, and running the same command again continues after \
            the last committed batch. Importing a file twice adds nothing. --rejects FILE (or \
            import.rejects_path) appends each rejected row to FILE as NDJSON with its reason \
            and line; --verbose prints up to three of each reason. The rows count as the \
            configured source's: a store that records another source refuses the import \
            before it writes (exit 78). A local time the clock skips (02:30 on the \
            spring-forward day) is rejected as nonexistent-local-time.

              bridget import openings.ndjson
              bridget export --format csv --out - \\
                | bridget import - --format csv
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(help: ArgumentHelp("The file to read, or - for standard input.", valueName: "file"))
    var file: String

    @Option(name: .long, help: "Input format: csv, ndjson or json (default: from the file's extension).")
    var format: RowFileFormat?

    @Option(name: .long, help: "Summary format: table, json or csv.")
    var summary: OutputFormat = .table

    @Flag(name: .long, help: "Ignore the checkpoint of an interrupted import of this file and read it from the top.")
    var restart = false

    @OptionGroup var progress: ProgressOptions

    @OptionGroup var rejectOptions: RejectOptions

    func run() async throws {
        try await reportingErrors {
            let context = try global.context()
            let source = try ImportSource.open(file, format: format)
            defer { source.close() }
            let rejects = try rejectOptions.log(configured: context.assembly.configuration.importRejectsPath)
            defer { rejects?.close() }
            let pipeline = try await context.importPipeline(rejects: rejects)
            let meter = ProgressMeter(verb: "importing", total: source.size.map { .bytes($0) },
                                      enabled: progress.shown)
            let restart = self.restart
            let report = try await cancellingOnInterrupt {
                try await pipeline.run(source, restart: restart) { progress in
                    meter.update(rows: progress.rows, bytes: progress.bytes,
                                 resumed: (progress.resumedRows, progress.resumedBytes))
                }
            }
            meter.finish()
            try write(report, storeDescription: context.assembly.storeDescription)
            rejectOptions.report(rejects, rejected: report.rejected)
            if !report.completed {
                Terminal.error("interrupted after \(report.rowsRead) rows; run the same command again to continue")
                throw ExitCode(ErrorTable.interrupted)
            }
        }
    }

    private func write(_ report: ImportReport, storeDescription: String) throws {
        let outcome = Tabular.outcome(
            read: ("read", report.rowsRead),
            counts: report.counts,
            rejected: report.rejected, byReason: report.rejectedByReason)
        let rate = report.seconds > 0 ? Int(Double(report.rowsRead - report.resumedAfterRows) / report.seconds) : 0
        var notes = [
            "",
            "Imported \(report.source) (\(report.format)) into \(storeDescription) in "
                + "\(String(format: "%.1f", report.seconds)) s (\(ProgressMeter.grouped(rate)) rows/s).",
        ]
        if report.resumedAfterRows > 0 {
            notes.append("Resumed an interrupted import after \(ProgressMeter.grouped(report.resumedAfterRows)) rows.")
        }
        if report.inserted + report.updated > 0 {
            notes.append("The opening model is rebuilt by the next predict, or now with `bridget model rebuild`.")
        }
        try OutputWriter(format: summary).write(report, tabular: outcome,
                                                notes: notes)
    }
}
