import ArgumentParser
import BridgetCore
import Foundation

/// The `bridget` command line.
public struct BridgetCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "bridget",
        abstract: "Seattle's drawbridge openings: sync the public record, then ask when bridges open.",
        discussion: """
            Bridget keeps a local copy of the City of Seattle's drawbridge openings (SDOT \
            dataset gm8h-9449) and answers questions about it. With no configuration it \
            uses realistic synthetic sample data, so it works offline; provider.kind: live \
            syncs the real dataset (Docs/LIVE.md):

              bridget sync      # fetch openings into the store
              bridget stats     # openings and durations per bridge
              bridget events --bridge Fremont --limit 5
              bridget bridges --format json

            Configuration: YAML (see `bridget config show`), chosen with --config or \
            $BRIDGET_CONFIG; any key can be overridden by $BRIDGET_<SECTION>_<KEY>, e.g. \
            BRIDGET_STORE_PATH=/tmp/bridget.sqlite. Times print in Seattle local time with \
            the zone; JSON carries ISO 8601 instants.

            Exit status:
            """ + ErrorTable.exitStatusLines().map { "\n  " + $0 }.joined(),
        version: "bridget \(BridgetVersion.current)",
        subcommands: [SyncCommand.self, ImportCommand.self, ExportCommand.self, BridgesCommand.self, StatusCommand.self,
                      EventsCommand.self, StatsCommand.self,
                      PredictCommand.self, RouteCommand.self, RulesCommand.self, BacktestCommand.self, CascadesCommand.self,
                      AnomaliesCommand.self, PatternsCommand.self, ModelCommand.self, PruneCommand.self, DoctorCommand.self, CacheCommand.self,
                      ReportCommand.self, ServeCommand.self, WatchCommand.self, AlertCommand.self,
                      ConfigCommand.self]
    )

    public init() {}

    /// Parses the process arguments and runs the chosen command, exiting with its status.
    ///
    /// Spelled out because from top-level code the synchronous `main()` overload wins, and it refuses to run an
    /// asynchronous command on Linux.
    public static func runFromCommandLine(_ arguments: [String]? = nil) async {
        do {
            let given = arguments ?? Array(CommandLine.arguments.dropFirst())
            if let unknown = unknownCommand(in: hoistingLeadingConfig(given)) {
                FileHandle.standardError.write(Data(("error: " + unknown + "\n").utf8))
                Foundation.exit(ErrorTable.usage)
            }
            var command = try parseAsRoot(hoistingLeadingConfig(given))
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            exit(withError: error)
        }
    }

    /// The message for a command word that names no command (`bridget stat`, `bridget help nosuch`, `bridget route
    /// scroe`), with the nearest command's name when one is close; `nil` when the words name commands.
    static func unknownCommand(in arguments: [String]) -> String? {
        var words = arguments.prefix { !$0.hasPrefix("-") }
        if words.first == "help" { words = words.dropFirst() }
        var children = Self.commandTree
        var path = ["bridget"]
        for word in words {
            guard !children.isEmpty else { return nil } // the rest are the command's own arguments
            if let child = children.first(where: { $0.name == word }) {
                children = child.children
                path.append(word)
                continue
            }
            let names = children.map(\.name) + ["help"]
            var nearest: (name: String, distance: Int)?
            for name in names {
                let distance = editDistance(name, word)
                if distance < (nearest?.distance ?? .max) { nearest = (name, distance) }
            }
            var message = "'\(word)' is not a command of `\(path.joined(separator: " "))`"
            if let nearest, nearest.distance <= max(2, word.count / 3) {
                message += "; did you mean '\(nearest.name)'?"
            } else {
                message += "; the commands are " + children.map(\.name).joined(separator: ", ")
            }
            return message + "\n(`\(path.joined(separator: " ")) --help` lists them with what they do)"
        }
        return nil
    }

    /// A command's name and its subcommands, read once from the argument parser's configuration.
    struct CommandNode: Sendable {
        let name: String
        let children: [CommandNode]
    }

    static let commandTree: [CommandNode] = nodes(of: BridgetCommand.configuration.subcommands)

    private static func nodes(of commands: [any ParsableCommand.Type]) -> [CommandNode] {
        var result: [CommandNode] = []
        for command in commands {
            let configuration = command.configuration
            let name = configuration.commandName ?? command._commandName
            result.append(CommandNode(name: name, children: nodes(of: configuration.subcommands)))
        }
        return result
    }

    /// Levenshtein distance, for suggestions.
    static func editDistance(_ first: String, _ second: String) -> Int {
        let a = Array(first), b = Array(second)
        var previous = Array(0...b.count)
        for i in 1...max(a.count, 1) where !a.isEmpty {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...max(b.count, 1) where !b.isEmpty {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return a.isEmpty ? b.count : previous[b.count]
    }

    /// Lets `--config PATH` come before the subcommand (`bridget --config x.yaml sync`), as people type it:
    /// argument-parser only accepts a subcommand's options after the subcommand's name.
    static func hoistingLeadingConfig(_ arguments: [String]) -> [String] {
        guard let first = arguments.first else { return arguments }
        let (option, rest): ([String], [String])
        if first == "--config", arguments.count >= 2 {
            (option, rest) = (Array(arguments.prefix(2)), Array(arguments.dropFirst(2)))
        } else if first.hasPrefix("--config=") {
            (option, rest) = ([first], Array(arguments.dropFirst()))
        } else {
            return arguments
        }
        // Keep it before a `--` terminator, after which everything is positional.
        let end = rest.firstIndex(of: "--") ?? rest.endIndex
        return Array(rest[..<end]) + option + Array(rest[end...])
    }
}
