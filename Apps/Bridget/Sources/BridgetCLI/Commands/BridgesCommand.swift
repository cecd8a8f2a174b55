import ArgumentParser
import BridgetApp
import BridgetDTOs
import BridgetPersistence
import Foundation

/// `bridget bridges`: the catalog with each bridge's stored openings.
struct BridgesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bridges",
        abstract: "List the bridges with their number of stored rows and the last opening.")

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
            let store = try await context.openStoreForReading()
            var activity = try await store.bridgeActivity()
            if activity.isEmpty {
                // Nothing synced yet: still show the catalog the provider covers.
                let catalog = try await context.assembly.makeProvider().fetchBridgeCatalog()
                activity = catalog.map { BridgeActivity(bridge: $0, openings: 0, lastOpening: nil) }
            }
            if format == .geojson {
                print(try OutputWriter.json(BridgeFeatureCollection(activity)))
                return
            }
            let time = context.clock
            let rows = activity.map { item in
                [Cell(item.bridge.id), Cell(item.bridge.name), Cell(item.bridge.waterway), Cell(item.bridge.kind),
                 Cell(item.openings), Cell(item.lastOpening, time: time)]
            }
            let total = activity.reduce(0) { $0 + $1.openings }
            let gap = context.assembly.configuration.mergeGap / 60
            let notes = total == 0 ? ["", "No openings stored yet: run `bridget sync`."]
                : ["", "\(total) stored rows. A row is one record of the source; `bridget stats` counts openings, "
                   + "merging rows of a bridge less than \(String(format: "%g", gap)) min apart "
                   + "(analysis.merge_gap_minutes) into one, so its totals are lower."]
            try OutputWriter(format: OutputFormat(rawValue: format.rawValue) ?? .table).write(
                activity,
                tabular: Tabular(columns: ["id", "name", "waterway", "kind", "rows", "last_opening"], rows: rows),
                notes: notes)
        }
    }
}
