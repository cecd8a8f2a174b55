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
            With --follow, like tail -f: a table lists the newest 10 openings, oldest of \
            them first (-n/--limit N for another number, 0 for all; with --since or --until \
            and no limit, the range as without --follow), then prints each change to the \
            openings as it is stored (a new opening, one announced, closed, replaced by a \
            newer version, withdrawn), by this process or any other that shares the store, \
            until Ctrl-C. JSON prints each change as one line (NDJSON) and CSV as one row, \
            without the list:
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
            let store = try await context.openStoreForReading()
            let scope = try await history.scope(context, store: store)
            // Where following starts, read before the list: a change stored while it is printed is not missed.
            let followFrom = follow ? try await store.changeLogBounds().newest : nil
            if let followFrom, output.format != .table {
                Terminal.note("following the changes (Ctrl-C ends)")
                try await Self.follow(store, after: followFrom, bridgeIDs: scope.bridgeIDs, format: output.format,
                                      clock: context.clock, poll: context.configuration.stream.pollInterval)
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
            var events = try await scope.events(in: store, limit: shown.map { $0 == .max ? $0 : $0 + 1 },
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
                try await Self.follow(store, after: followFrom, bridgeIDs: scope.bridgeIDs, format: output.format,
                                      clock: time, poll: context.configuration.stream.pollInterval)
            }
        }
    }

    /// Prints the changes after `sequence` as they are stored, a line each, until interrupted (exit 0).
    static func follow(_ store: any BridgeStore, after sequence: Int64, bridgeIDs: [String], format: OutputFormat,
                       clock: LocalClock, poll: TimeInterval) async throws {
        let follower = ChangeFollower(store: store, pollInterval: .milliseconds(Int64(max(poll, 0.05) * 1000)),
                                      check: { try await store.checkReadiness() })
        let catalog = Dictionary(try await store.bridges().map { ($0.id, $0.displayName) }, uniquingKeysWith: { a, _ in a })
        if format == .csv { Self.printLine("sequence,recorded_at,kind,bridge_id,opened_at,closed_at,status,record_id,record_version") }
        let pages = follower.pages(after: sequence, bridgeIDs: bridgeIDs.isEmpty ? nil : bridgeIDs)
        do {
            _ = try await cancelling(on: [SIGINT, SIGTERM], saying: { _ in "" }) {
                for try await page in pages {
                    for change in page {
                        Self.printLine(try Self.line(change, format: format, clock: clock, name: catalog[change.bridgeID]))
                    }
                }
            }
        } catch is CancellationError {
            return
        }
    }

    /// One change as `--follow` prints it.
    static func line(_ change: OpeningChangeDTO, format: OutputFormat, clock: LocalClock, name: String?) throws -> String {
        func instant(_ date: Date?) -> String { date.map { ISO8601DateFormatter().string(from: $0) } ?? "" }
        switch format {
        case .json: return try AnswerJSON.line(change)
        case .csv:
            return [String(change.sequence), instant(change.recordedAt), change.kind.rawValue, change.bridgeID,
                    instant(change.openedAt), instant(change.closedAt), change.status.rawValue, change.recordID ?? "",
                    change.recordVersion.map(String.init) ?? ""]
                .map { $0.contains(",") || $0.contains("\"") ? "\"" + $0.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : $0 }
                .joined(separator: ",")
        default:
            var text = "#\(change.sequence)  \(clock.display(change.recordedAt))  \(change.kind.rawValue.padding(toLength: 9, withPad: " ", startingAt: 0))  "
                + "\(name ?? change.bridgeID) (\(change.bridgeID))  opens \(clock.display(change.openedAt))"
            if let closed = change.closedAt { text += ", until \(clock.display(closed))" }
            if change.status == .planned { text += " (announced)" }
            if change.status == .live { text += " (seen live)" }
            if let record = change.recordID { text += "  record \(record)" + (change.recordVersion.map { " v\($0)" } ?? "") }
            return text.terminalSafe
        }
    }

    /// A line on standard output, flushed: a reader at the other end of a pipe sees each change as it comes.
    static func printLine(_ line: String) {
        fflush(nil) // what print() buffered goes first
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}
