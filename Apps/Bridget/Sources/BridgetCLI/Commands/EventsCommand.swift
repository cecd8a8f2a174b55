import ArgumentParser
import BridgetAnswers
import BridgetCore
import BridgetDTOs
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
            With --follow, like tail -f: a table lists the newest 10 openings, oldest of \
            them first (-n/--limit N for another number, 0 for all; with --since or --until \
            and no limit, the range as without --follow), then prints each change to the \
            openings as it is stored (a new opening, one announced, closed, replaced by a \
            newer version, withdrawn), by this process or any other that shares the store, \
            until Ctrl-C. A bulk write (an import, a backfill of older openings) is one \
            'bulk' line that counts its changes and says which openings to read again; \
            openings of the last day and announced ones always have a line each. JSON \
            prints each change as one line (NDJSON) and CSV as one row, without the list:
              bridget events --follow
              bridget events -n 3 --follow
              bridget events --bridge Fremont --follow \\
                --format json
            """)

    @OptionGroup var global: GlobalOptions
    @OptionGroup var output: FormatOptions
    @OptionGroup var history: HistoryOptions

    @Option(name: [.customShort("n"), .long], parsing: .unconditional, help: ArgumentHelp(
        "At most this many openings; 0 for all (default: 20 for a table on a terminal, else all; with --follow, "
            + "the newest 10).", valueName: "n"))
    var limit: Int?

    @Flag(name: .long, help: "Oldest first instead of newest first (--follow always lists the newest last).")
    var oldestFirst = false

    @Flag(name: .long, help: ArgumentHelp(
        "List the newest 10 openings, then print each change to the openings as it is stored, until Ctrl-C "
            + "(like tail -f)."))
    var follow = false

    /// The table's default length on a terminal.
    static let terminalRows = 20

    /// What `--follow` lists before following, as `tail` prints 10 lines.
    static let followRows = 10

    func validate() throws {
        guard (limit ?? 0) >= 0 else { throw ValidationError("--limit must be 0 (all) or more") }
        if follow && oldestFirst {
            throw ValidationError("--oldest-first does not go with --follow: --follow lists the newest openings "
                                  + "oldest first, so the changes that follow come after the newest, as with tail -f")
        }
    }

    func run() async throws {
        try await reportingErrors {
            let context = try global.context()
            let answers = try await HistoryAnswers.reading(context)
            let scope = try await history.scope(answers)
            // Where following starts, read before the list: a change stored while it is printed is not missed.
            let followFrom = follow ? try await answers.newestChange() : nil
            if let followFrom, output.format != .table {
                Terminal.note("following the changes (Ctrl-C ends)")
                try await Self.follow(answers, after: followFrom, bridgeIDs: scope.bridgeIDs, format: output.format)
                return
            }
            let toTerminal = output.format == .table && isatty(STDOUT_FILENO) == 1
            // Following, as tail -f: the newest few, unless a limit or a range says which.
            let ranged = history.since != nil || history.until != nil
            let shown: Int? = switch limit {
            case .some(0): nil
            case .some(let n): n
            case .none where follow && !ranged: Self.followRows
            case .none: toTerminal ? Self.terminalRows : nil
            }
            var events = try await answers.events(in: scope, limit: shown.map { $0 == .max ? $0 : $0 + 1 },
                                                newestFirst: follow || !oldestFirst)
            let more = shown.map { events.count > $0 } ?? false
            if let shown, more { events.removeLast(events.count - shown) }
            // The newest last, just above the changes that follow it.
            if follow { events.reverse() }
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
                Terminal.note(follow ? "the newest \(events.count) openings listed; -n N lists N, -n 0 all of them"
                                     : "more openings match than the \(events.count) listed; --limit 0 lists them all")
            }
            if let followFrom {
                fflush(nil) // the list, before waiting: a pipe would otherwise hold it until the first change
                Terminal.note("following the changes (Ctrl-C ends)")
                try await Self.follow(answers, after: followFrom, bridgeIDs: scope.bridgeIDs, format: output.format)
            }
        }
    }
}
