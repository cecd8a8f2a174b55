import ArgumentParser
import BridgetAnalysis
import BridgetAnswers
import BridgetCore
import BridgetDTOs
import Foundation

/// `bridget route`: saved trips across bridges, scored by the opening model.
struct RouteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "route",
        abstract: "Save routes across bridges, score a departure, find the best time to leave.",
        discussion: """
            A route is a list of crossings in travel order; a crossing names the bridges that can serve it, \
            preferred first, and the minutes from departure to reach it:
              bridget route add commute --via "Fremont/Ballard@8" \\
                --via "Montlake@22" --favorite
              bridget route score commute --depart "2026-12-01 17:40"
              bridget route best-time commute --step 5m \\
                --between 16:00 18:30
            Routes are kept where routes.storage says: a YAML file beside your settings (routes.path), or the \
            store, which every host serving it shares (auto: the store when it is PostgreSQL). `bridget route \
            move --to store` copies the file's routes into the store (and --to file back).
            """,
        subcommands: [Add.self, List.self, Show.self, Remove.self, Favorite.self, Score.self, BestTime.self,
                      Compare.self, Export.self, Import.self, Move.self])

    /// `route add`.
    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "add", abstract: "Save a route (replacing one of the same name).")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The route's name.") var name: String
        @Option(name: .long, help: ArgumentHelp(
            "A crossing: bridges separated by '/', preferred first, then '@' and the minutes from departure. Repeat in order.",
            valueName: "bridges@minutes"))
        var via: [String]
        @Flag(name: .long, help: "Mark the route as a favourite.") var favorite = false

        func run() async throws {
            try await reportingErrors {
                // Every crossing is checked before the store is opened: a typo creates nothing.
                let written = try via.map(Self.crossing)
                let context = try global.context()
                let (route, location) = try await RouteBook.opening(context).add(name, crossings: written, favorite: favorite)
                print("saved route \(route.id.terminalSafe) with \(route.crossings.count) crossings")
                Terminal.note("routes are kept in \(location)")
            }
        }

        /// A `--via` value, `BRIDGES@MINUTES`: the bridge names as written and the minutes from departure.
        static func crossing(_ text: String) throws -> (names: [String], minutes: Double) {
            let parts = text.split(separator: "@", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, let minutes = Double(parts[1].trimmingCharacters(in: .whitespaces)),
                  minutes.isFinite, (0...1_440).contains(minutes)
            else {
                throw BridgetError(.inputBadCrossing, "--via '\(text)' is not BRIDGES@MINUTES (0 to 1440 minutes)",
                                              hint: "e.g. --via \"Fremont/Ballard@8\"")
            }
            let names = parts[0].split(separator: "/", omittingEmptySubsequences: false)
                .map { $0.trimmingCharacters(in: .whitespaces) }
            guard !names.contains(where: \.isEmpty) else {
                throw BridgetError(.inputBadCrossing, "--via '\(text)' has an empty bridge name",
                                              hint: "separate bridge names with one '/', e.g. --via \"Fremont/Ballard@8\"")
            }
            return (names, minutes)
        }
    }

    /// `route list`.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List saved routes, favourites first.")
        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: FormatOptions

        func run() async throws {
            try await reportingErrors {
                let context = try global.context()
                let book = try await RouteBook.opening(context, forReading: true)
                let routes = try await book.routes()
                let catalog = try await book.catalog()
                let rows = routes.map { route in
                    [Cell(route.isFavorite ? "★" : ""), Cell(route.id), Cell(describe(route, catalog: catalog))]
                }
                try OutputWriter(format: output.format).write(
                    routes, tabular: Tabular(columns: ["fav", "name", "crossings"], rows: rows),
                    csv: Tabular(columns: ["route", "favorite", "crossing", "minutes_from_start", "bridge_ids"],
                                 rows: routes.flatMap { route in
                                     route.crossings.enumerated().map { index, crossing in
                                         [Cell(route.id), Cell(route.isFavorite ? "true" : "false"), Cell(index + 1),
                                          Cell(raw: crossing.minutesFromStart),
                                          Cell(crossing.bridgeIDs.joined(separator: " "))]
                                     }
                                 }),
                    notes: routes.isEmpty ? ["", "No routes yet: `bridget route add NAME --via BRIDGE@MINUTES`."] : [])
            }
        }
    }

    /// `route show`.
    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "show", abstract: "Show one route.")
        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: FormatOptions
        @Argument(help: "The route's name.") var name: String

        func run() async throws {
            try await reportingErrors {
                let context = try global.context()
                let book = try await RouteBook.opening(context, forReading: true)
                let route = try await book.route(named: name)
                let catalog = try await book.catalog()
                let rows = route.crossings.enumerated().map { index, crossing in
                    [Cell(index + 1), Cell(String(format: "%g", crossing.minutesFromStart)),
                     Cell(crossing.bridgeIDs.map { catalog.bridge(id: $0)?.name ?? $0 }.joined(separator: " or "))]
                }
                try OutputWriter(format: output.format).write(
                    route, tabular: Tabular(columns: ["crossing", "minutes", "bridges"], rows: rows),
                    csv: Tabular(columns: ["route", "favorite", "crossing", "minutes_from_start", "bridge_ids"],
                                 rows: route.crossings.enumerated().map { index, crossing in
                                     [Cell(route.id), Cell(route.isFavorite ? "true" : "false"), Cell(index + 1),
                                      Cell(raw: crossing.minutesFromStart), Cell(crossing.bridgeIDs.joined(separator: " "))]
                                 }),
                    notes: route.isFavorite ? ["", "★ favourite"] : [])
            }
        }
    }

    /// `route remove`.
    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "remove", abstract: "Delete a route.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The route's name.") var name: String

        func run() async throws {
            try await reportingErrors {
                let context = try global.context()
                let name = try await RouteBook.opening(context, forReading: true).remove(self.name)
                print("removed route \(name.terminalSafe)")
            }
        }
    }

    /// `route favorite`.
    struct Favorite: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "favorite", abstract: "Mark a route as a favourite (or not, with --off).")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The route's name.") var name: String
        @Flag(name: .long, help: "Remove the mark.") var off = false

        func run() async throws {
            try await reportingErrors {
                let context = try global.context()
                try await RouteBook.opening(context, forReading: true).mark(name, favorite: !off)
                print(off ? "\(name.terminalSafe) is no longer a favourite" : "★ \(name.terminalSafe)")
            }
        }
    }

}

extension RouteBook.Place: ExpressibleByArgument {}

private func describe(_ route: RouteDTO, catalog: BridgeCatalog) -> String {
    route.crossings.map { crossing in
        crossing.bridgeIDs.map { catalog.bridge(id: $0)?.name ?? $0 }.joined(separator: "/")
            + String(format: "@%g", crossing.minutesFromStart)
    }.joined(separator: " → ")
}
