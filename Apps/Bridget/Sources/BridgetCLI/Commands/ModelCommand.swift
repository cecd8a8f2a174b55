import ArgumentParser
import BridgetContext
import BridgetCore
import BridgetDTOs
import Foundation

/// `bridget model`: the opening model predictions read.
struct ModelCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "model",
        abstract: "Rebuild the opening model (sync does it when data changes; predict when it is stale).",
        subcommands: [Rebuild.self])

    /// `bridget model rebuild`.
    struct Rebuild: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "rebuild", abstract: "Rebuild every bridge's opening model from the stored history now.")
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            try await reportingErrors {
                let context = try global.context()
                let models = try await context.rebuildOpeningModels()
                print("rebuilt the opening models of \(models.count) bridges from \(models.first?.sourceEvents ?? 0) stored rows")
            }
        }
    }
}
