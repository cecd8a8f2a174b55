import ArgumentParser
import BridgetAnswers
import BridgetDTOs
import Foundation

/// `bridget status`: which bridges are open now, which open soon, and how current the store is.
struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show which bridges are open now, which open soon, and the chance of an opening in the next 20 min.",
        discussion: """
            A bridge is open while an opening under way has not ended (observed, or announced by a source such as \
            NDW's feed), opening soon when an announced opening starts within status.soon_minutes (30 by default), \
            else closed, with its last opening, its next announced one and the model's chance of an opening in the \
            next 20 minutes. Closed is said only from something recent (a live reading, a feed read within the hour, \
            an opening on record within 6 hours); otherwise the bridge is unknown, with the age of what is known. The answer says as of when, and says so when the stored history runs behind the clock: \
            Seattle's public table is about a day behind, so `status` over it shows the past, not a live bridge.

            Examples:
              bridget status
              bridget status --bridge Fremont --bridge Ballard
              bridget status --at=-26h --format json
            """)

    @OptionGroup var global: GlobalOptions
    @OptionGroup var output: FormatOptions

    @Option(name: .long, help: ArgumentHelp("Only this bridge (an id or a name); repeat for more.", valueName: "bridge"))
    var bridge: [String] = []

    @Option(name: .long, help: ArgumentHelp(
        "The moment to answer for: 17:40 (the next 17:40), 2026-12-01 17:40, -2h, +30m or now (default).",
        valueName: "time"))
    var at: String?

    func run() async throws {
        try await reportingErrors {
            let context = try global.context()
            let books = try await HistoryAnswers.reading(context).books
            let asked = try at.map { try context.timeGrammar.resolve($0, option: "--at", direction: .ahead) }
            // A time in the spring-forward gap or the repeated autumn hour: say which instant answers.
            if let note = asked?.note { Terminal.note("--at: " + note) }
            let now = asked?.instant ?? context.assembly.now()
            let catalog = try await books.book().catalog
            let wanted = try bridge.map { try context.bridge(named: $0, in: catalog) }
            let answer = try await StatusNowAnswer.current(books: books, bridges: wanted, now: now)
            let time = context.clock
            let rows = answer.bridges.map { line -> [Cell] in
                let when: String = switch line.state {
                case .open:
                    "since " + (line.openSince.map { Self.clockTime($0, time) } ?? "?")
                        + (line.basis == .planned ? " (announced)" : line.basis == .live ? " (seen live)" : "")
                        + (line.expectedEnd.map { ", until " + Self.clockTime($0, time) } ?? "")
                case .openingSoon: "in \(line.opensInMinutes ?? 0) min, at " + (line.opensAt.map { Self.clockTime($0, time) } ?? "?")
                case .closed: ""
                case .unknown: line.live.map { "last read " + Self.clockTime($0.lastSeenAt, time) }
                    ?? line.unknownBecause.map { "not known: " + $0 } ?? ""
                }
                return [Cell(line.bridgeID), Cell(line.bridgeName), Cell(line.state.rawValue), Cell(when),
                        Cell(line.lastOpening?.openedAt, time: time), Cell(line.nextPlanned?.openedAt, time: time),
                        line.chanceNext20Minutes.map { Cell(percent: $0) } ?? Cell("")]
            }
            var notes = ["", "As of \(time.display(answer.asOf))."
                + (answer.live.map { live in
                    live.asOf.map { " Live state read \(time.display($0)) (\(live.ageSeconds ?? 0) s before)." }
                        ?? " Live state not read yet." } ?? "")
                + (answer.lastSync.map { " Last sync \(time.display($0))." } ?? "")]
            if let caveat = answer.caveat { notes.append(caveat) }
            try OutputWriter(format: output.format).write(
                answer,
                tabular: Tabular(columns: ["id", "name", "now", "when", "last_opening", "next_planned", "chance_20min"],
                                 rows: rows),
                notes: notes)
        }
    }

    /// "17:42", or the date and time when not today.
    static func clockTime(_ instant: Date, _ clock: LocalClock) -> String {
        String(clock.reading(for: instant).localText.dropFirst(11).prefix(5))
    }
}
