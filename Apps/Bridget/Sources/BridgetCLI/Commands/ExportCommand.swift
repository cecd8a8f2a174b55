import ArgumentParser
import BridgetAnalysis
import BridgetAnswers
import BridgetContext
import BridgetDTOs
import BridgetNetworking
import Foundation

/// `bridget export`: write stored openings as Socrata-shaped rows.
struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write stored openings as rows shaped like the Socrata API's (CSV, NDJSON or JSON).",
        discussion: """
            The rows carry the API's fields and string forms (CSV with the API's header), so \
            `bridget import` or any Socrata tool reads them back; oldest first. Streamed in \
            batches: a million rows take the memory of one batch. A file is written under a \
            temporary name and renamed when complete, so an interrupted export never leaves \
            a partial file behind.

              bridget export --out openings.ndjson
              bridget export --format csv --bridge Fremont \\
                --since 2026-01-01 --until 2026-02-01 --out - | head
            """)

    @OptionGroup var global: GlobalOptions

    @Option(name: .long, help: "Output format: csv, ndjson or json (default: from --out's extension, else ndjson).")
    var format: RowFileFormat?

    @OptionGroup var history: HistoryOptions

    @Option(name: .long, help: ArgumentHelp("The file to write, or - for standard output.", valueName: "file"))
    var out: String = "-"

    @OptionGroup var progress: ProgressOptions

    func run() async throws {
        try await reportingErrors {
            let format = self.format ?? (out == "-" ? nil : RowFileFormat(fileName: out)) ?? .ndjson
            let context = try global.context()
            let answers = try await HistoryAnswers.reading(context)
            let scope = try await history.scope(answers)
            let total = try await answers.eventCount(bridgeIDs: scope.bridgeIDs)
            let sink = try ExportSink(out)
            let meter = ProgressMeter(verb: "exporting", total: scope.from == nil && scope.before == nil ? .rows(total) : nil,
                                      enabled: progress.shown && !(out == "-" && isatty(STDOUT_FILENO) == 1))
            let written: Int
            do {
                written = try await cancellingOnInterrupt {
                    try await answers.export(as: format).run(scope: scope, into: sink) { rows in
                        meter.update(rows: rows)
                    }
                }
            } catch {
                meter.finish()
                sink.abandon()
                throw error
            }
            meter.finish()
            try sink.commit()
            if out != "-" {
                Terminal.writeError("Exported \(ProgressMeter.grouped(written)) rows (\(format.rawValue)) to \(out).\n")
            }
        }
    }
}
