import ArgumentParser
import BridgetApp
import BridgetDTOs
import Foundation

/// `bridget prune`: remove old history.
struct PruneCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prune",
        abstract: "Remove stored openings before a date (the opening model is rebuilt from what is left).")

    @OptionGroup var global: GlobalOptions
    @OptionGroup var output: FormatOptions

    @Option(name: .long, help: ArgumentHelp(
        "Remove openings before this time: a date (2025-01-01), a local time, or a span ago such as 365d.",
        valueName: "time"))
    var before: String

    struct Output: Encodable {
        let before: Date
        let removed: Int
        let remaining: Int
    }

    func run() async throws {
        try await reportingErrors {
            let context = try global.context()
            let cutoff = try context.timeGrammar.instant(before, option: "--before", direction: .back)
            let store = try await context.assembly.makeStore()
            let processor = context.assembly.makeProcessor(store: store)
            let removed = try await processor.cleanupOldData(olderThan: cutoff)
            if removed > 0 { try await OpeningModelRefresh.rebuild(store: store, processor: processor) }
            let remaining = try await store.eventCount(bridgeID: nil)
            try OutputWriter(format: output.format).write(
                Output(before: cutoff, removed: removed, remaining: remaining),
                tabular: Tabular(columns: ["removed", "remaining"], rows: [[Cell(removed), Cell(remaining)]]),
                notes: ["", "Removed the openings before \(context.clock.display(cutoff))."])
        }
    }
}
