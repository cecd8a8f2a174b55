import ArgumentParser
import BridgetDTOs
import BridgetPersistence
import Foundation

/// How a command prints data: an aligned table for people, CSV or JSON for programs.
enum OutputFormat: String, CaseIterable, Sendable, ExpressibleByArgument {
    case table, json, csv
}

/// One table cell: what a person reads, and the plain value CSV carries.
struct Cell: Sendable {
    let display: String
    let raw: String
    let numeric: Bool

    init(_ text: String) {
        display = text
        raw = text
        numeric = false
    }

    init(_ value: Int) {
        display = String(value)
        raw = String(value)
        numeric = true
    }

    init(_ value: Double?, decimals: Int = 1) {
        guard let value else {
            display = "-"
            raw = ""
            numeric = true
            return
        }
        display = String(format: "%.\(decimals)f", value)
        raw = String(value)
        numeric = true
    }

    /// An instant: Seattle local time with its zone for people, ISO 8601 for CSV.
    init(_ instant: Date?, time: LocalClock) {
        guard let instant else {
            display = "-"
            raw = ""
            numeric = false
            return
        }
        display = time.display(instant)
        raw = ISO8601DateFormatter.bridget.string(from: instant)
        numeric = false
    }
}

/// Rows with named columns, printable as an aligned table or as CSV.
struct Tabular: Sendable {
    var columns: [String]
    var rows: [[Cell]]

    /// The "outcome, rows" summary of a sync or an import: the rows taken in (`read` names them), what the store did
    /// with them, the rejected ones, then each rejection reason, most frequent first.
    static func outcome(read: (name: String, rows: Int), counts: UpsertCounts, rejected: Int,
                             byReason: [String: Int]) -> Tabular {
        var rows: [[Cell]] = [
            [Cell(read.name), Cell(read.rows)],
            [Cell("inserted"), Cell(counts.inserted)],
            [Cell("updated"), Cell(counts.updated)],
            [Cell("unchanged"), Cell(counts.unchanged)],
            [Cell("rejected"), Cell(rejected)],
        ]
        rows += byReason.sorted { ($1.value, $0.key) < ($0.value, $1.key) }
            .map { [Cell("rejected: " + $0.key), Cell($0.value)] }
        return Tabular(columns: ["outcome", "rows"], rows: rows)
    }

    /// Aligned columns, numbers to the right, two spaces apart.
    func renderTable() -> String {
        let columns = columns.map(\.terminalSafe)
        let rows = rows.map { $0.map(\.display.terminalSafe) }
        var widths = columns.map(\.count)
        for row in rows {
            for (index, cell) in row.enumerated() where index < widths.count {
                widths[index] = max(widths[index], cell.count)
            }
        }
        func line(_ cells: [String], numeric: [Bool]) -> String {
            cells.enumerated().map { index, text in
                let padding = String(repeating: " ", count: max(0, widths[index] - text.count))
                return numeric[index] ? padding + text : text + padding
            }.joined(separator: "  ").trimmingTrailingSpaces()
        }
        let numericColumns = columns.indices.map { index in self.rows.first.map { $0[index].numeric } ?? false }
        var lines = [line(columns, numeric: numericColumns)]
        lines.append(widths.map { String(repeating: "─", count: $0) }.joined(separator: "  "))
        lines += rows.map { line($0, numeric: numericColumns) }
        return lines.joined(separator: "\n")
    }

    /// RFC 4180 CSV with a header row.
    func renderCSV() -> String {
        var lines = [columns.map(Self.escape).joined(separator: ",")]
        lines += rows.map { $0.map { Self.escape($0.raw) }.joined(separator: ",") }
        return lines.joined(separator: "\n")
    }

    static func escape(_ field: String) -> String {
        // By byte, not by Character: "\r\n" is one Character, equal to neither "\r" nor "\n".
        guard field.utf8.contains(where: { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == 0x0A || $0 == 0x0D })
        else { return field }
        return "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}

/// Writes a command's result in the chosen format.
struct OutputWriter: Sendable {
    let format: OutputFormat

    /// JSON for the value, or the table/CSV form of `tabular`; `notes` follow a table only.
    func write(_ value: some Encodable, tabular: Tabular, notes: [String] = []) throws {
        switch format {
        case .json:
            print(try Self.json(value))
        case .csv:
            print(tabular.renderCSV())
        case .table:
            print(tabular.renderTable())
            for note in notes { print(note.terminalSafeLines) }
        }
    }

    /// Stable JSON: sorted keys, ISO 8601 instants, pretty-printed.
    static func json(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}

extension ISO8601DateFormatter {
    /// `2026-09-24T05:35:00Z`; a new instance each time, because the formatter is not Sendable.
    static var bridget: ISO8601DateFormatter {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter
    }
}

extension String {
    func trimmingTrailingSpaces() -> String {
        var result = self
        while result.last == " " { result.removeLast() }
        return result
    }
}
