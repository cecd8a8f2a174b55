import ArgumentParser
import BridgetAnswers
import BridgetCore
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
        if format == .csv { Self.printLine(Self.csvHeader) }
        let pages = follower.pages(after: sequence, bridgeIDs: bridgeIDs.isEmpty ? nil : bridgeIDs)
        do {
            _ = try await cancelling(on: [SIGINT, SIGTERM], saying: { _ in "" }) {
                // The bridges' names, read again when an entry names one not known yet (a first import fills the
                // catalog).
                @Sendable func names() async throws -> [String: String] {
                    Dictionary(try await store.bridges().map { ($0.id, $0.name) }, uniquingKeysWith: { a, _ in a })
                }
                var catalog = try await names()
                for try await page in pages {
                    if format != .csv, page.contains(where: { $0.bridgeIDs.contains { catalog[$0] == nil } }) {
                        catalog = try await names()
                    }
                    for entry in page {
                        Self.printLine(try Self.line(entry, format: format, clock: clock, names: catalog))
                    }
                }
            }
        } catch is CancellationError {
            return
        } catch {
            // A read that failed because the store's file was deleted or replaced under the follower (a catalog read
            // meets SQLite's I/O error first) says so, not the error it met on the way.
            try await store.checkReadiness()
            throw error
        }
    }

    /// `--follow`'s CSV columns: an opening's change fills the first nine; a bulk summary has its bridges
    /// (space-separated) in `bridge_id`, its first opening in `opened_at`, and `count`, `opened_through` and
    /// `history_version`.
    static let csvHeader = "sequence,recorded_at,kind,bridge_id,opened_at,closed_at,status,record_id,record_version,"
        + "count,opened_through,history_version"

    /// One entry as `--follow` prints it.
    static func line(_ entry: ChangeLogEntryDTO, format: OutputFormat, clock: LocalClock, names: [String: String]) throws
        -> String
    {
        func instant(_ date: Date?) -> String { date?.internetDateTime ?? "" }
        func csv(_ fields: [String]) -> String {
            fields.map { $0.contains(",") || $0.contains("\"") ? "\"" + $0.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : $0 }
                .joined(separator: ",")
        }
        if format == .json { return try AnswerJSON.line(ChangeOutput(entry, names: names, clock: clock)) }
        guard case .opening(let change) = entry else {
            guard case .bulk(let bulk) = entry else { return "" }
            if format == .csv {
                return csv([String(bulk.sequence), instant(bulk.recordedAt), BulkChangeDTO.kindName,
                            bulk.bridgeIDs.joined(separator: " "), instant(bulk.openedFrom), "", "", "", "",
                            String(bulk.total), instant(bulk.openedThrough), String(bulk.historyVersion)])
            }
            return bulkLine(bulk, clock: clock, names: names)
        }
        switch format {
        case .csv:
            return csv([String(change.sequence), instant(change.recordedAt), change.kind.rawValue, change.bridgeID,
                        instant(change.openedAt), instant(change.closedAt), change.status.rawValue, change.recordID ?? "",
                        change.recordVersion.map(String.init) ?? "", "1", "", ""])
        default:
            let name = names[change.bridgeID]
            var text = "#\(change.sequence)  \(clock.display(change.recordedAt))  \(change.kind.rawValue.padding(toLength: 9, withPad: " ", startingAt: 0))  "
                + "\(name ?? change.bridgeID) (\(change.bridgeID))  opens \(clock.display(change.openedAt))"
            if let closed = change.closedAt { text += ", until \(clock.display(closed))" }
            if change.status == .planned { text += " (announced)" }
            if change.status == .live { text += " (seen live)" }
            if let record = change.recordID { text += "  record \(record)" + (change.recordVersion.map { " v\($0)" } ?? "") }
            return text.terminalSafe
        }
    }

    /// A bulk summary as a table line: what changed, where, opened when, and the command that reads it again.
    static func bulkLine(_ bulk: BulkChangeDTO, clock: LocalClock, names: [String: String]) -> String {
        let kinds = OpeningChangeKind.allCases.compactMap { kind in bulk.counts[kind].map { "\(kind.rawValue) \($0)" } }
        let bridges = bulk.bridgeIDs.map { names[$0] ?? $0 }
        let day = { (date: Date) in String(clock.reading(for: date).localText.prefix(10)) }
        let until = day(bulk.openedThrough.addingTimeInterval(86_400))
        let reread = "bridget events --since \(day(bulk.openedFrom)) --until \(until)"
            + (bulk.bridgeIDs.count <= 3 ? bulk.bridgeIDs.map { " --bridge \($0)" }.joined() : "")
        let text = "#\(bulk.sequence)  \(clock.display(bulk.recordedAt))  \("bulk".padding(toLength: 9, withPad: " ", startingAt: 0))  "
            + "\(bulk.total) older openings (\(kinds.joined(separator: ", "))) of \(bridges.joined(separator: ", ")), "
            + "opened \(clock.display(bulk.openedFrom)) to \(clock.display(bulk.openedThrough)); "
            + "history version \(bulk.historyVersion); read them again: \(reread)"
        return text.terminalSafe
    }

    /// A line on standard output, flushed: a reader at the other end of a pipe sees each change as it comes.
    static func printLine(_ line: String) {
        fflush(nil) // what print() buffered goes first
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}
