import ArgumentParser
import BridgetAnswers
import BridgetDTOs
import Foundation

/// `bridget bridges`: the catalog with each bridge's openings and stored rows.
struct BridgesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bridges",
        abstract: "List the bridges with their openings, stored rows and last opening.",
        discussion: """
            Openings are counted as `bridget stats` counts them: rows of a bridge less \
            than analysis.merge_gap_minutes apart are one opening. Rows are the records \
            of the source as stored, fragments not merged.
            """)

    /// The formats of every command, and GeoJSON for a map.
    enum Format: String, CaseIterable, ExpressibleByArgument {
        case table, json, csv, geojson
    }

    @OptionGroup var global: GlobalOptions
    @Option(name: .long, help: "Output format: table (for people), json or csv (for programs), geojson (for a map).")
    var format: Format = .table

    func run() async throws {
        try await reportingErrors {
            let context = try global.context()
            var listing = try await HistoryAnswers.reading(context).bridges()
            if listing.isEmpty {
                // Nothing synced yet: still show the catalog the provider covers.
                let catalog = try await context.assembly.makeProvider().fetchBridgeCatalog()
                listing = catalog.map { BridgeListing(unsynced: $0) }
            }
            if format == .geojson {
                print(try OutputWriter.json(BridgeFeatureCollection(listing)))
                return
            }
            let time = context.clock
            let rows = listing.map { item in
                [Cell(item.bridge.id), Cell(item.bridge.name), Cell(item.bridge.waterway), Cell(item.bridge.kind),
                 Cell(item.openings), Cell(item.rows), Cell(item.lastOpening, time: time)]
            }
            let openings = listing.reduce(0) { $0 + $1.openings }
            let stored = listing.reduce(0) { $0 + $1.rows }
            let gap = context.assembly.configuration.mergeGap / 60
            let notes = stored == 0 ? ["", "No openings stored yet: run `bridget sync`."]
                : ["", "\(openings) openings from \(stored) rows on record: rows of a bridge less than "
                   + "\(String(format: "%g", gap)) min apart (analysis.merge_gap_minutes) are one opening, "
                   + "as `bridget stats` counts them."]
            try OutputWriter(format: OutputFormat(rawValue: format.rawValue) ?? .table).write(
                listing,
                tabular: Tabular(columns: ["id", "name", "waterway", "kind", "openings", "rows", "last_opening"],
                                 rows: rows, dropFirst: ["rows", "waterway", "kind"]),
                notes: notes)
        }
    }
}
