import ArgumentParser

/// The `bridget` command line.
public struct BridgetCommand: AsyncParsableCommand {
    /// The version `--version` prints.
    public static let version = "0.1.0"

    public static let configuration = CommandConfiguration(
        commandName: "bridget",
        abstract: "Seattle's drawbridge openings: sync the public record, then ask when bridges open.",
        discussion: """
            Bridget keeps a local copy of the City of Seattle's drawbridge openings (SDOT
            dataset gm8h-9449) and answers questions about it. With no configuration it
            uses realistic synthetic sample data, so it works offline; provider.kind: live
            syncs the real dataset (Docs/LIVE.md):

              bridget sync            # fetch openings into the local SQLite store
              bridget stats           # openings, durations and busiest hour per bridge
              bridget events --bridge Fremont --limit 5
              bridget bridges --format json

            Configuration: YAML (see `bridget config show`), chosen with --config or
            $BRIDGET_CONFIG; any key can be overridden by $BRIDGET_<SECTION>_<KEY>, e.g.
            BRIDGET_STORE_PATH=/tmp/bridget.sqlite. Times print in Seattle local time with
            the zone; JSON carries ISO 8601 instants.

            Exit status:
              0 ok                  1 doctor: a problem     64 bad argument
              65 bad data           66 no input             69 source unreachable
              73 cannot create output                       74 store/cache I/O
              75 store busy         78 bad configuration    130 interrupted
            """,
        version: "bridget \(version)",
        subcommands: [SyncCommand.self, ImportCommand.self, ExportCommand.self, BridgesCommand.self, EventsCommand.self, StatsCommand.self,
                      PredictCommand.self, RouteCommand.self, BacktestCommand.self, CascadesCommand.self,
                      AnomaliesCommand.self, PatternsCommand.self, ModelCommand.self, PruneCommand.self, DoctorCommand.self, CacheCommand.self,
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
