import ArgumentParser
import BridgetDTOs
import Foundation

/// `bridget prune`: remove old history.
struct PruneCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prune",
        abstract: "Remove stored openings before a date (the opening model is rebuilt from what is left).")

    @OptionGroup var global: GlobalOptions
    @OptionGroup var output: FormatOptions

    @Option(name: .long, help: "Remove openings before this Seattle date or time, e.g. 2025-01-01.")
    var before: String

    struct Output: Encodable {
        let before: Date
        let removed: Int
        let remaining: Int
    }

    func run() async throws {
        try await reportingErrors {
            let cutoff = try TimeArgument.parse(before, option: "--before")
            let context = try CommandContext.load(global)
            let store = try context.assembly.makeStore()
            let processor = context.assembly.makeProcessor(store: store)
            let removed = try await processor.cleanupOldData(olderThan: cutoff)
            if removed > 0 { try await OpeningModelRefresh.rebuild(store: store, processor: processor) }
            let remaining = try await store.eventCount(bridgeID: nil)
            try OutputWriter(format: output.format).write(
                Output(before: cutoff, removed: removed, remaining: remaining),
                tabular: Tabular(columns: ["removed", "remaining"], rows: [[Cell(removed), Cell(remaining)]]),
                notes: ["", "Removed the openings before \(LocalClock.seattle.display(cutoff))."])
        }
    }
}
