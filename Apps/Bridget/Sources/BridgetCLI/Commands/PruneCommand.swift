import ArgumentParser
import BridgetContext
import BridgetCore
import BridgetDTOs
import Foundation

/// `bridget prune`: remove old history.
struct PruneCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prune",
        abstract: "Remove stored openings before a date, and changes older than the change log keeps.",
        discussion: """
            Openings before --before go (the opening model is rebuilt from what is left). The change log (what the \
            stream, events --follow and alerts read) keeps changes for changes.keep_days of the configuration (7 by \
            default); older ones go on every prune, the newest always stays. Without --before only the log is pruned.
            """)

    @OptionGroup var global: GlobalOptions
    @OptionGroup var output: FormatOptions

    @Option(name: .long, help: ArgumentHelp(
        "Remove openings before this time: a date (2025-01-01), a local time, or a span ago such as 365d.",
        valueName: "time"))
    var before: String?

    struct Output: Encodable {
        let before: Date?
        let removed: Int
        let remaining: Int
        let changesBefore: Date
        let changesRemoved: Int
    }

    func run() async throws {
        try await reportingErrors {
            let context = try global.context()
            let cutoff = try before.map { try context.timeGrammar.instant($0, option: "--before", direction: .back) }
            let pruned = try await context.prune(openingsBefore: cutoff)
            let (removed, remaining) = (pruned.removed, pruned.remaining)
            let (changesBefore, changesRemoved) = (pruned.changesBefore, pruned.changesRemoved)
            var notes = [""]
            if let cutoff { notes.append("Removed the openings before \(context.clock.display(cutoff)).") }
            notes.append("Removed the changes logged before \(context.clock.display(changesBefore)) (changes.keep_days).")
            try OutputWriter(format: output.format).write(
                Output(before: cutoff, removed: removed, remaining: remaining, changesBefore: changesBefore,
                       changesRemoved: changesRemoved),
                tabular: Tabular(columns: ["removed", "remaining", "changes removed"],
                                 rows: [[Cell(removed), Cell(remaining), Cell(changesRemoved)]]),
                notes: notes)
        }
    }
}
