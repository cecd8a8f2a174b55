import ArgumentParser
import BridgetContext
import BridgetCore
import BridgetDTOs
import BridgetPersistence
import Foundation

/// How a command prints data: an aligned table for people, CSV or JSON for programs.
enum OutputFormat: String, CaseIterable, Sendable, ExpressibleByArgument {
    case table, json, csv
}

extension RowFileFormat: ExpressibleByArgument {}

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

    /// A chance shown as a percentage (`5.8%`, `0.4%`), right-aligned; CSV carries the fraction.
    init(percent value: Double) {
        display = Self.percentText(value)
        raw = String(value)
        numeric = true
    }

    /// A chance as a percentage: one decimal below 10% (`5.8%`), none above (`42%`).
    static func percentText(_ value: Double) -> String {
        value < 0.1 ? String(format: "%.1f%%", value * 100) : String(format: "%.0f%%", value * 100)
    }

    /// A number as CSV carries it, unrounded (`0.0573`), shown with up to four decimals.
    init(raw value: Double) {
        display = String(format: "%.4g", value)
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
        raw = instant.internetDateTime
        numeric = false
    }
}

/// Rows with named columns, printable as an aligned table or as CSV.
struct Tabular: Sendable {
    var columns: [String]
    var rows: [[Cell]]
    /// Columns CSV carries but a table leaves out (a local time beside the table's own local display, say).
    var tableHidden: Set<String> = []
    /// Columns a narrow terminal loses first, in this order; after them, columns go from the right.
    var dropFirst: [String] = []

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

    /// Aligned columns, numbers to the right, two spaces apart. Given a `width` (a terminal's), columns are left
    /// out from the right until the table fits (never the first two), and the last line says which.
    func renderTable(width: Int? = nil) -> String {
        var kept = self.columns.indices.filter { !tableHidden.contains(self.columns[$0]) }
        let columns = self.columns.map(\.terminalSafe)
        let rows = self.rows.map { $0.map(\.display.terminalSafe) }
        let widths = columns.indices.map { index in
            rows.reduce(columns[index].count) { max($0, index < $1.count ? $1[index].count : 0) }
        }
        var dropped: [String] = []
        if let width {
            var order = dropFirst.compactMap { name in self.columns.firstIndex(of: name) }.filter(kept.contains)
            order += kept.reversed().filter { !order.contains($0) }
            while kept.count > 2, kept.map({ widths[$0] }).reduce(0, +) + 2 * (kept.count - 1) > width,
                  let next = order.first {
                order.removeFirst()
                kept.removeAll { $0 == next }
                dropped.append(self.columns[next])
            }
        }
        let numeric = columns.indices.map { index in self.rows.first.map { index < $0.count && $0[index].numeric } ?? false }
        func line(_ cells: [String]) -> String {
            kept.map { index in
                let text = index < cells.count ? cells[index] : ""
                let padding = String(repeating: " ", count: max(0, widths[index] - text.count))
                return numeric[index] ? padding + text : text + padding
            }.joined(separator: "  ").trimmingTrailingSpaces()
        }
        var lines = [line(columns)]
        lines.append(kept.map { String(repeating: "─", count: widths[$0]) }.joined(separator: "  "))
        lines += rows.map(line)
        if !dropped.isEmpty, let width {
            lines += Self.wrap("(\(dropped.joined(separator: ", ")) left out to fit \(width) columns; "
                               + "--format csv carries every column)", width: width)
        }
        return lines.joined(separator: "\n")
    }

    /// Words in lines of at most `width` characters (a longer word stands alone).
    static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ") {
            if !line.isEmpty, line.count + 1 + word.count > width {
                lines.append(line)
                line = ""
            }
            line += (line.isEmpty ? "" : " ") + word
        }
        if !line.isEmpty { lines.append(line) }
        return lines
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

    /// JSON for the value, or the table/CSV form of `tabular` (CSV from `csv` when the machine form differs from
    /// the table: one row per fact, ids, instants and raw numbers); `notes` follow a table only.
    func write(_ value: some Encodable, tabular: Tabular, csv: Tabular? = nil, notes: [String] = []) throws {
        switch format {
        case .json:
            print(try Self.json(value))
        case .csv:
            print((csv ?? tabular).renderCSV())
        case .table:
            let width = Self.terminalWidth()
            print(tabular.renderTable(width: width))
            for note in notes {
                // On a terminal, a long note wraps at words, its indentation kept on every line.
                guard let width, note.count > width else {
                    print(note.terminalSafeLines)
                    continue
                }
                let indent = String(note.prefix { $0 == " " })
                let lines = Tabular.wrap(String(note.dropFirst(indent.count)), width: max(width - indent.count, 20))
                print(lines.map { indent + $0 }.joined(separator: "\n").terminalSafeLines)
            }
        }
    }

    /// The width of the terminal standard output is, or `nil` when it is not one (a pipe, a file): `$COLUMNS` when
    /// set, else what the terminal reports.
    static func terminalWidth(environment: [String: String] = ProcessInfo.processInfo.environment) -> Int? {
        guard isatty(STDOUT_FILENO) == 1 else { return nil }
        if let text = environment["COLUMNS"], let columns = Int(text), columns > 0 { return columns }
        return terminalColumns(STDOUT_FILENO)
    }

    /// The columns of the terminal `descriptor` is, or `nil` (not a terminal, or it does not say).
    static func terminalColumns(_ descriptor: Int32) -> Int? {
        var size = winsize()
        guard ioctl(descriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }

    /// The answer's JSON, as the server sends it too.
    static func json(_ value: some Encodable) throws -> String { try AnswerJSON.text(value) }
}

extension Date {
    /// `2026-09-24T05:35:00Z`, as CSV writes an instant (a format style: no formatter made, no ICU, per value).
    var internetDateTime: String { formatted(Date.ISO8601FormatStyle()) }
}

extension String {
    func trimmingTrailingSpaces() -> String {
        var result = self
        while result.last == " " { result.removeLast() }
        return result
    }
}
