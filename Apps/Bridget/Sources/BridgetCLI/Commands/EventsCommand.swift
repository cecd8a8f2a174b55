import ArgumentParser
import BridgetApp
import BridgetDTOs
import BridgetPersistence
import Foundation

/// `bridget events`: stored openings, filtered.
struct EventsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "events",
        abstract: "List stored openings, newest first.",
        discussion: """
            A table on a terminal shows the newest 20 and says how to see the rest; CSV, \
            JSON and any output that goes to a pipe or a file carry every matching opening \
            unless --limit is given. --since is inclusive, --until exclusive (a date means \
            its midnight). Examples:
              bridget events --bridge Fremont \\
                --since 2026-07-01 --until 2026-08-01
              bridget events --bridge Fremont --bridge Ballard \\
                --since 30d --format csv
            """)

    @OptionGroup var global: GlobalOptions
    @OptionGroup var output: FormatOptions
    @OptionGroup var history: HistoryOptions

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp(
        "At most this many openings; 0 for all (default: 20 for a table on a terminal, else all).", valueName: "n"))
    var limit: Int?

    @Flag(name: .long, help: "Oldest first instead of newest first.")
    var oldestFirst = false

    /// The table's default length on a terminal.
    static let terminalRows = 20

    func validate() throws {
        guard (limit ?? 0) >= 0 else { throw ValidationError("--limit must be 0 (all) or more") }
    }

    func run() async throws {
        try await reportingErrors {
            let context = try global.context()
            let store = try await context.openStoreForReading()
            let scope = try await history.scope(context, store: store)
            let toTerminal = output.format == .table && isatty(STDOUT_FILENO) == 1
            let shown: Int? = switch limit {
            case .some(0): nil
            case .some(let n): n
            case .none: toTerminal ? Self.terminalRows : nil
            }
            var events = try await scope.events(in: store, limit: shown.map { $0 == .max ? $0 : $0 + 1 }, newestFirst: !oldestFirst)
            let more = shown.map { events.count > $0 } ?? false
            if let shown, more { events.removeLast(events.count - shown) }
            let time = context.clock
            let rows = events.map { event in
                [Cell(event.bridgeID), Cell(event.bridgeName), Cell(event.openedAt, time: time),
                 Cell(event.closedAt, time: time), Cell(event.durationMinutes, decimals: 0),
                 Cell(event.minutesOpen.map(Double.init), decimals: 0), Cell(event.status.rawValue),
                 Cell(time.reading(for: event.openedAt).localText),
                 Cell(event.closedAt.map { time.reading(for: $0).localText } ?? "")]
            }
            try OutputWriter(format: output.format).write(
                events.map { EventOutput($0, clock: time) },
                tabular: Tabular(
                    columns: ["bridge_id", "bridge", "opened", "closed", "minutes", "minutes_open", "status",
                              "open_local", "close_local"],
                    rows: rows, tableHidden: ["open_local", "close_local"],
                    dropFirst: ["minutes_open", "bridge_id", "status", "closed"]),
                notes: events.isEmpty ? ["", "No openings match."] : [])
            if more {
                Terminal.note("more openings match than the \(events.count) listed; --limit 0 lists them all")
            }
        }
    }
}
