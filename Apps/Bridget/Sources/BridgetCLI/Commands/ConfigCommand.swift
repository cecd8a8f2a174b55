import ArgumentParser
import BridgetAnswers
import BridgetContext
import BridgetCore
import Foundation

/// `bridget config`: inspect and check the configuration.
struct ConfigCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "Show or check the configuration.",
        subcommands: [Show.self, Validate.self])

    /// `bridget config show`.
    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "show", 
            abstract: "Print every key's effective value, where it came from, and what it means.")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: FormatOptions

        func run() async throws {
            try await reportingErrors {
                let context = try global.context()
                let configuration = context.assembly.configuration
                let resolved = configuration.resolved
                let entries = resolved.schema.keys.map { key in
                    let entry = resolved.values[key.path]
                    var value = entry?.value.description ?? "null"
                    // A password never shows, even in a URL that wrongly holds one (refused when the store opens).
                    if key.path == "store.postgres.url" { value = BridgetAssembly.withoutPassword(value) }
                    return ConfigEntryOutput(
                        key: key.path, value: value,
                        source: entry?.source.description ?? "default", environment: key.environmentName,
                        help: key.help)
                }
                let rows = entries.map { [Cell($0.key), Cell($0.value), Cell($0.source), Cell($0.help)] }
                let source = context.assembly.sourceIdentity
                let holds = await Self.storeHolds(context)
                try OutputWriter(format: output.format).write(
                    ConfigOutput(origin: resolved.origin, storePath: configuration.storePath,
                                 source: source.description, storeHolds: holds, keys: entries),
                    tabular: Tabular(columns: ["key", "value", "source", "meaning"], rows: rows),
                    notes: ["", "Configuration: \(resolved.origin)", "Source: \(source)",
                            "Store: \(context.assembly.storeDescription)",
                            "Store holds: \(holds ?? "no recorded source (the first sync or import records it)")"])
            }
        }

        /// The source the configured store records, read without creating or changing anything: `nil` when it
        /// records none (or does not exist yet); a sentence when it cannot be read.
        static func storeHolds(_ context: AppContext) async -> String? {
            let configuration = context.assembly.configuration
            switch configuration.store {
            case .memory: return nil
            case .sqlite where !FileManager.default.fileExists(atPath: configuration.storePath): return nil
            case .sqlite, .postgres:
                do {
                    return try await StoreReport.opening(context, forReading: true).recordedSource()
                } catch {
                    return "unknown (the store cannot be read: \(ErrorPresentation(error)?.message ?? "\(error)"))"
                }
            }
        }
    }

    /// `bridget config validate`.
    struct Validate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "validate", 
            abstract: "Check a configuration file and the environment overrides; exit 78 with every problem if invalid.")

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The file to check (default: the one --config or $BRIDGET_CONFIG would pick).")
        var path: String?

        func run() async throws {
            try await reportingErrors {
                var options = global
                if let path { options.config = path }
                let context = try options.context()
                print("ok: \(context.assembly.configuration.resolved.origin) is a valid configuration")
            }
        }
    }
}

struct ConfigEntryOutput: Encodable {
    let key: String
    let value: String
    let source: String
    let environment: String
    let help: String
}

struct ConfigOutput: Encodable {
    let origin: String
    let storePath: String
    /// The configured source's identity (what a sync records in the store).
    let source: String
    /// The identity the store records, `null` when none.
    let storeHolds: String?
    let keys: [ConfigEntryOutput]
}
