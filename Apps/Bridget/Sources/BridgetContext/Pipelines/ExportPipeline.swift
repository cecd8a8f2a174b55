import BridgetAnalysis
import BridgetCore
import BridgetNetworking
import BridgetPersistence
import Foundation

/// Writes stored openings as rows shaped like the Socrata API's (`bridget export`): CSV with the API's header, NDJSON
/// or a JSON array, oldest first, paged through the store with a keyset cursor, so memory stays at one page whatever
/// the history's size.
package struct ExportPipeline: Sendable {
    package let store: any EventStore
    package let format: RowFileFormat

    package init(store: any EventStore, format: RowFileFormat) {
        self.store = store
        self.format = format
    }

    /// Writes the openings of `scope` to `sink`; `progress` gets the rows written after each page. Returns how many
    /// rows were written. Stops between pages when the task is cancelled.
    package func run(scope: HistoryScope, into sink: ExportSink, progress: (Int) -> Void = { _ in }) async throws -> Int {
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
                progress(written)
            }
        }
        if format == .json { output += Array((written == 0 ? "]\n" : "\n]\n").utf8) }
        try sink.write(output)
        return written
    }
}

/// Where an export goes: standard output, or a file written as Bridget writes its files (`OwnFile`): beside its
/// target under a temporary name, renamed over it when complete.
package final class ExportSink: Sendable {
    private let target: String?
    private let staged: OwnFile.Staged?
    private let handle: FileHandle

    package init(_ out: String) throws {
        guard out != "-" else {
            target = nil
            staged = nil
            handle = .standardOutput
            return
        }
        do {
            let staged = try OwnFile.stage(out)
            self.staged = staged
            handle = FileHandle(fileDescriptor: staged.descriptor, closeOnDealloc: false)
        } catch {
            throw BridgetError(.dataExportOpen, "cannot write \(out): \(error.localizedDescription)",
                                    hint: "check that its folder exists and is writable")
        }
        target = out
    }

    package func write(_ bytes: [UInt8]) throws {
        guard !bytes.isEmpty else { return }
        do {
            try handle.write(contentsOf: Data(bytes))
        } catch {
            throw BridgetError(.dataExportWrite, "cannot write \(target ?? "standard output"): \(error.localizedDescription)")
        }
    }

    /// Makes the file appear under its name, complete.
    package func commit() throws {
        guard let target, let staged else { return }
        do {
            try staged.commit()
        } catch {
            throw BridgetError(.dataExportWrite, "cannot finish \(target): \(error.localizedDescription)")
        }
    }

    /// Removes the partial file after a failure.
    package func abandon() {
        staged?.abandon()
    }
}
