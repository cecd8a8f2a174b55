import BridgetCore
import BridgetDTOs
import Foundation

/// Where a rejected row came from: a page of a provider, or a line of an imported file.
package struct RejectedRowOrigin: Sendable, Codable, Equatable {
    /// The provider that sent the row (sync), e.g. "live".
    package var provider: String?
    /// The 0-based page of the sync, and the page's URL when it has one.
    package var page: Int?
    package var url: String?
    /// The row's 0-based position in its page.
    package var index: Int?
    /// The imported file (as given; "standard input" for -), and the line the row ends on.
    package var file: String?
    package var line: Int?

    /// "page 3 row 12 (URL)" or "file.ndjson line 7", for people.
    package var summary: String {
        if let file { return file + (line.map { " line \($0)" } ?? "") }
        var text = "page \(page ?? 0)" + (index.map { " row \($0)" } ?? "")
        if let url { text += " (\(url))" }
        return text
    }
}

/// One line of a rejects file.
package struct RejectedRowEntry: Sendable, Codable, Equatable {
    /// The rule the row broke (a `RejectionReason`), and what it means.
    package var reason: String
    package var explanation: String
    /// The sync or import run (`sync_runs.id`) that met the row.
    package var run: Int64
    package var origin: RejectedRowOrigin
    /// The record's fields exactly as received (absent fields absent), as one object in the source's order.
    package var row: SourceRecord
}

/// Keeps what a run rejected: every row, as NDJSON appended to a file when one is named (so earlier runs' rows stay),
/// and up to `examplesPerReason` of each reason for `--verbose`.
package final class RejectedRowLog: Sendable {
    package static let examplesPerReason = 3

    private struct State {
        package var handle: FileHandle?
        package var examples: [RejectionReason: [RejectedRowEntry]] = [:]
        package var written = 0
    }

    /// The file's path, when rows are written to one.
    package let path: String?
    private let state: Locked<State>

    /// A log that writes to `path` (created if missing, appended to) or, with `nil`, keeps only the examples.
    package init(path: String?) throws {
        self.path = path
        var handle: FileHandle?
        if let path {
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue {
                throw BridgetError(.inputRejectsPath, "the rejects file \(path) is a folder, not a file")
            }
            do {
                handle = FileHandle(fileDescriptor: try OwnFile.openForAppending(path), closeOnDealloc: true)
            } catch {
                throw BridgetError(.dataRejectsPath, "cannot write the rejects file: \(error.localizedDescription)",
                                        hint: "check that its folder exists and can be written")
            }
        }
        state = Locked(State(handle: handle))
    }

    /// Records a batch's rejected rows; `origin` gives each row's origin from its index in the batch.
    package func record(_ rejections: [RejectedObservation], run: Int64, origin: (RejectedObservation) -> RejectedRowOrigin) throws {
        guard !rejections.isEmpty else { return }
        let entries = rejections.map { rejection in
            RejectedRowEntry(reason: rejection.reason.rawValue, explanation: rejection.reason.explanation, run: run,
                             origin: origin(rejection), row: rejection.source)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var lines = Data()
        if path != nil {
            for entry in entries {
                lines.append(try encoder.encode(entry))
                lines.append(0x0A)
            }
        }
        try state.withLock { state in
            for (entry, rejection) in zip(entries, rejections)
            where state.examples[rejection.reason, default: []].count < Self.examplesPerReason {
                state.examples[rejection.reason, default: []].append(entry)
            }
            if let handle = state.handle {
                do {
                    try handle.write(contentsOf: lines)
                } catch {
                    throw BridgetError(.dataRejectsWrite, "cannot write the rejects file \(path ?? ""): \(error)")
                }
                state.written += entries.count
            }
        }
    }

    /// Rows written to the file so far.
    package var written: Int { state.withLock { $0.written } }

    /// Up to three rows of each reason, reasons in rule order: lines for `--verbose`.
    package var exampleLines: [String] {
        state.withLock { state in
            state.examples.sorted { $0.key < $1.key }.flatMap { reason, entries in
                ["rejected \(reason.rawValue) (\(reason.explanation)), e.g.:"] + entries.map { entry in
                    let fields = entry.row.fields.map { "\($0.name)=\(Self.quoted($0.value))" }
                    return "  \(entry.origin.summary): " + (fields.isEmpty ? "(no fields)" : fields.joined(separator: " "))
                }
            }
        }
    }

    /// Closes the file.
    package func close() {
        state.withLock { state in
            try? state.handle?.synchronize()
            try? state.handle?.close()
            state.handle = nil
        }
    }

    private static func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}
