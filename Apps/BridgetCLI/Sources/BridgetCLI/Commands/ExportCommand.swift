import ArgumentParser
import BridgetAnalysis
import BridgetDTOs
import BridgetNetworking
import BridgetPersistence
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

    @Flag(name: .long, help: "No progress line.")
    var quiet = false

    func run() async throws {
        try await reportingErrors {
            let format = self.format ?? (out == "-" ? nil : RowFileFormat(fileName: out)) ?? .ndjson
            let context = try CommandContext.load(global)
            let store = try await context.openStoreForReading()
            let scope = try await history.scope(context, store: store)
            let bridgeIDs: [String?] = scope.bridgeIDs.isEmpty ? [nil] : scope.bridgeIDs
            var total = 0
            for id in bridgeIDs { total += try await store.eventCount(bridgeID: id) }
            let sink = try ExportSink(out)
            let meter = ProgressMeter(verb: "exporting", total: scope.from == nil && scope.before == nil ? .rows(total) : nil,
                                      enabled: !quiet && Terminal.isInteractive && !(out == "-" && isatty(STDOUT_FILENO) == 1))
            let written: Int
            do {
                written = try await cancellingOnInterrupt {
                    try await Self.export(store: store, scope: scope, format: format, sink: sink, meter: meter)
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

    private static func export(
        store: any EventStore, scope: HistoryScope, format: RowFileFormat, sink: ExportSink, meter: ProgressMeter
    ) async throws -> Int {
        var written = 0
        var output: [UInt8] = []
        output.reserveCapacity(4 << 20)
        switch format {
        case .csv: output += Array(SocrataRow.csvHeader.utf8)
        case .json: output += Array("[".utf8)
        case .ndjson: break
        }
        for var query in scope.queries(limit: 10_000) {
            while true {
                try Task.checkCancellation()
                let page = try await store.events(matching: query)
                guard let last = page.last else { break }
                query.after = last.key
                for event in page {
                    let row = SocrataRow(event: event)
                    switch format {
                    case .csv: row.appendCSV(to: &output)
                    case .ndjson:
                        row.appendJSON(to: &output)
                        output.append(0x0A)
                    case .json:
                        output += Array((written == 0 ? "\n" : ",\n").utf8)
                        row.appendJSON(to: &output)
                    }
                    written += 1
                }
                try sink.write(output)
                output.removeAll(keepingCapacity: true)
                meter.update(rows: written)
            }
        }
        if format == .json { output += Array((written == 0 ? "]\n" : "\n]\n").utf8) }
        try sink.write(output)
        return written
    }
}

/// Where an export goes: standard output, or a temporary file renamed over the target when complete.
final class ExportSink: Sendable {
    private let target: String?
    private let temporary: String?
    private let handle: FileHandle

    init(_ out: String) throws {
        guard out != "-" else {
            target = nil
            temporary = nil
            handle = .standardOutput
            return
        }
        let url = URL(fileURLWithPath: out)
        let partial = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).partial").path
        guard FileManager.default.createFile(atPath: partial, contents: nil), let handle = FileHandle(forWritingAtPath: partial)
        else {
            throw BridgetError.data("export-open", "cannot write \(out): \(String(cString: strerror(errno)))",
                                    hint: "check that its folder exists and is writable", exitCode: 73)
        }
        self.target = url.path
        self.temporary = partial
        self.handle = handle
    }

    func write(_ bytes: [UInt8]) throws {
        guard !bytes.isEmpty else { return }
        do {
            try handle.write(contentsOf: Data(bytes))
        } catch {
            throw BridgetError.data("export-write", "cannot write \(target ?? "standard output"): \(error.localizedDescription)",
                                    exitCode: 74)
        }
    }

    /// Makes the file appear under its name, complete.
    func commit() throws {
        guard let target, let temporary else { return }
        do {
            try handle.synchronize()
            try handle.close()
            guard rename(temporary, target) == 0 else { // atomic: the old file, or the whole new one
                throw BridgetError.data("export-write", "cannot rename \(temporary) to \(target): \(String(cString: strerror(errno)))",
                                        exitCode: 74)
            }
        } catch let error as BridgetError {
            throw error
        } catch {
            throw BridgetError.data("export-write", "cannot finish \(target): \(error.localizedDescription)", exitCode: 74)
        }
    }

    /// Removes the partial file after a failure.
    func abandon() {
        guard let temporary else { return }
        try? handle.close()
        try? FileManager.default.removeItem(atPath: temporary)
    }
}
