import BridgetDTOs
import Foundation

/// The `sample` provider: synthetic but realistic openings over a fixed range of Seattle local days, no network.
/// The generator writes Socrata-shaped rows (as the live dataset has them), read like the live provider's.
///
/// Pages hold whole days (at least `pageSize` rows, except the last), so a row duplicated by the generator stays in
/// one batch and is caught as a duplicate there.
public struct SampleProvider: NetworkProcessing {
    public let name = "sample"
    /// The row generator.
    public let generator: SampleOpeningGenerator
    /// First day generated (days since 1970-01-01, Seattle local).
    public let firstDay: Int
    /// Last day generated, inclusive.
    public let lastDay: Int
    /// Rows per page (whole days are kept together).
    public let pageSize: Int
    public let clock = LocalClock.seattle

    /// Creates a provider for `days` days ending with `lastDay` (a Seattle local day number).
    public init(generator: SampleOpeningGenerator, lastDay: Int, days: Int, pageSize: Int = 5_000) {
        self.generator = generator
        self.lastDay = lastDay
        self.firstDay = lastDay - max(days, 1) + 1
        self.pageSize = max(pageSize, 1)
    }

    /// The Seattle local day number of an instant.
    public static func localDay(of instant: Date, time: LocalClock = .seattle) -> Int {
        let reading = time.reading(for: instant)
        return CivilCalendar.daysFromCivil(year: reading.year, month: reading.month, day: reading.day)
    }

    public func fetchBridgeCatalog() async throws -> [BridgeInfoDTO] { generator.catalog.bridges }

    public func eventPages(since watermark: Date?) -> AsyncThrowingStream<EventPage, any Error> {
        let start = watermark.map { max(firstDay, Self.localDay(of: $0, time: clock)) } ?? firstDay
        let cursor = SamplePageCursor(generator: generator, traffic: SampleTrafficModel(seed: generator.seed),
                                      nextDay: start, lastDay: lastDay, pageSize: pageSize)
        // Pull-based: a page is generated only when the consumer asks, so memory stays at one page.
        return AsyncThrowingStream(unfolding: { try await cursor.nextPage() })
    }

    public func checkConnection() async -> ConnectionStatusDTO {
        ConnectionStatusDTO(isReachable: true, detail: "sample data is generated locally; no network is used")
    }
}

/// Walks the provider's days page by page for one fetch.
private actor SamplePageCursor {
    private let generator: SampleOpeningGenerator
    private let traffic: SampleTrafficModel
    private var nextDay: Int
    private let lastDay: Int
    private let pageSize: Int
    private var pageIndex = 0
    private var reader = SocrataObservationReader()

    init(generator: SampleOpeningGenerator, traffic: SampleTrafficModel, nextDay: Int, lastDay: Int, pageSize: Int) {
        self.generator = generator
        self.traffic = traffic
        self.nextDay = nextDay
        self.lastDay = lastDay
        self.pageSize = pageSize
    }

    func nextPage() throws -> EventPage? {
        var rows: [SocrataRow] = []
        var flows: [TrafficFlowDTO] = []
        while nextDay <= lastDay && rows.count < pageSize {
            try Task.checkCancellation()
            let day = generator.rows(forDay: nextDay)
            rows += day
            flows += traffic.flows(forDay: nextDay, bridges: generator.catalog.bridges, rows: day)
            nextDay += 1
        }
        guard !rows.isEmpty else { return nil }
        defer { pageIndex += 1 }
        return EventPage(index: pageIndex, observations: reader.observations(rows), trafficFlows: flows,
                         origin: "sample page \(pageIndex)")
    }
}
