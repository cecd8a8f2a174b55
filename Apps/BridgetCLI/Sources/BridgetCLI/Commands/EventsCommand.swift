import ArgumentParser
import BridgetDTOs
import BridgetPersistence
import Foundation

/// `bridget events`: stored openings, filtered.
struct EventsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "events",
        abstract: "List stored openings, newest first.",
        discussion: """
            Times without a zone are Seattle local time. --since is inclusive; --until is
            exclusive, and a bare date for --until includes that whole day. Examples:
              bridget events --bridge Fremont --since 2026-07-01 --until 2026-07-31
              bridget events --bridge 3 --limit 0 --format csv > fremont.csv
            """)

    @OptionGroup var global: GlobalOptions
    @OptionGroup var output: FormatOptions

    @Option(name: .long, help: "A bridge id or name (e.g. 3 or Fremont).")
    var bridge: String?

    @Option(name: .long, help: "Openings at or after this time.")
    var since: String?

    @Option(name: .long, help: "Openings before this time.")
    var until: String?

    @Option(name: .long, parsing: .unconditional, help: "At most this many openings; 0 for all.")
    var limit: Int = 20

    @Flag(name: .long, help: "Oldest first instead of newest first.")
    var oldestFirst = false

    func validate() throws {
        guard limit >= 0 else { throw ValidationError("--limit must be 0 (all) or more") }
    }

    func run() async throws {
        try await reportingErrors {
            let context = try CommandContext.load(global)
            let store = try await context.openStoreForReading()
            var query = EventQuery(limit: limit == 0 ? nil : limit, newestFirst: !oldestFirst)
            if let bridge { query.bridgeID = try await context.bridge(named: bridge, in: store).id }
            if let since { query.openedFrom = try TimeArgument.parse(since, option: "--since") }
            if let until { query.openedBefore = try TimeArgument.parse(until, option: "--until", endOfDay: true) }
            if let from = query.openedFrom, let before = query.openedBefore, from >= before {
                throw BridgetError.validation("bad-range", "--since \(since ?? "") is not before --until \(until ?? "")")
            }
            let events = try await store.events(matching: query)
            let time = context.assembly.clock
            let rows = events.map { event in
                [Cell(event.bridgeID), Cell(event.bridgeName), Cell(event.openedAt, time: time),
                 Cell(event.closedAt, time: time), Cell(event.durationMinutes, decimals: 0), Cell(event.openLocal),
                 Cell(event.closeLocal ?? ""), Cell(event.status.rawValue)]
            }
            try OutputWriter(format: output.format).write(
                events.map(EventOutput.init),
                tabular: Tabular(
                    columns: ["bridge_id", "bridge", "opened", "closed", "minutes", "open_local", "close_local", "status"],
                    rows: rows),
                notes: events.isEmpty ? ["", "No openings match."] : [])
        }
    }
}

/// The JSON form of an event (documented in Docs/OUTPUT.md).
struct EventOutput: Encodable {
    let bridgeID: String
    let bridgeName: String
    let openedAt: Date
    let openLocal: String
    let closedAt: Date?
    let closeLocal: String?
    let minutesOpen: Int?
    let durationMinutes: Double?
    let latitude: Double?
    let longitude: Double?
    /// `observed`, or `planned` for an announced opening.
    let status: String
    /// The source's record id and version, when it has them.
    let recordID: String?
    let recordVersion: Int?

    init(_ event: BridgeEventDTO) {
        bridgeID = event.bridgeID
        bridgeName = event.bridgeName
        openedAt = event.openedAt
        openLocal = event.openLocal
        closedAt = event.closedAt
        closeLocal = event.closeLocal
        minutesOpen = event.minutesOpen
        durationMinutes = event.durationMinutes
        latitude = event.latitude
        longitude = event.longitude
        status = event.status.rawValue
        recordID = event.recordID
        recordVersion = event.recordVersion
    }
}
