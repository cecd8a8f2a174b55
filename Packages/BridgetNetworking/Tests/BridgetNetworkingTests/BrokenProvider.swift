import BridgetDTOs
import BridgetNetworking
import BridgetNetworkingTesting
import Foundation

/// A sample provider made to break one promise of `NetworkProcessing`, to show the conformance suite notices.
struct BrokenProvider: NetworkProcessing {
    /// The promise broken, and how.
    enum Breach: String, CaseIterable, Sendable, CustomStringConvertible {
        case repeatsAPage, numbersPagesFromOne, dropsTheSource, noPages, skipsAPageAfterAWatermark, namesOtherBridges,
             isUnreachable

        /// The promise whose check must catch it.
        var promise: ProviderConformance.Promise {
            switch self {
            case .repeatsAPage, .numbersPagesFromOne, .dropsTheSource, .noPages: .stableOrder
            case .skipsAPageAfterAWatermark: .watermark
            case .namesOtherBridges: .catalog
            case .isUnreachable: .connection
            }
        }

        var description: String { rawValue }
    }

    let base: SampleProvider
    let breach: Breach?
    var name: String { "broken" }
    var clock: LocalClock { base.clock }

    /// A month of sample data in pages of 500 rows, broken as `breach` says (`nil`: not at all).
    init(breaking breach: Breach?) {
        base = SampleProvider(generator: SampleOpeningGenerator(seed: 11),
                              lastDay: CivilCalendar.daysFromCivil(year: 2025, month: 6, day: 30), days: 30, pageSize: 500)
        self.breach = breach
    }

    func fetchBridgeCatalog() async throws -> [BridgeInfoDTO] {
        let bridges = try await base.fetchBridgeCatalog()
        guard breach == .namesOtherBridges else { return bridges }
        return bridges.map {
            BridgeInfoDTO(id: "x" + $0.id, name: $0.name, displayName: $0.displayName, latitude: $0.latitude,
                          longitude: $0.longitude, waterway: $0.waterway, kind: $0.kind)
        }
    }

    func eventPages(since watermark: Date?) -> AsyncThrowingStream<EventPage, any Error> {
        let (base, breach) = (self.base, self.breach)
        let pages = LoadedPages()
        return AsyncThrowingStream(unfolding: {
            if await !pages.isLoaded {
                var all: [EventPage] = []
                for try await page in base.eventPages(since: watermark) { all.append(page) }
                await pages.load(Self.apply(breach, to: all, since: watermark))
            }
            return await pages.next()
        })
    }

    func checkConnection() async -> ConnectionStatusDTO {
        breach == .isUnreachable ? ConnectionStatusDTO(isReachable: false, detail: "broken on purpose")
            : await base.checkConnection()
    }

    /// The pages of a walk, broken.
    static func apply(_ breach: Breach?, to pages: [EventPage], since watermark: Date?) -> [EventPage] {
        var pages = pages
        switch breach {
        case .repeatsAPage: pages.insert(pages[1], at: 2)
        case .numbersPagesFromOne: return pages.map { EventPage(index: $0.index + 1, observations: $0.observations) }
        case .dropsTheSource:
            pages[0] = EventPage(index: 0, observations: pages[0].observations.map {
                var observation = $0
                observation.source = SourceRecord()
                return observation
            })
        case .noPages: return []
        case .skipsAPageAfterAWatermark: if watermark != nil { pages.removeLast() }
        case .namesOtherBridges, .isUnreachable, nil: break
        }
        return pages.enumerated().map { EventPage(index: $0.offset, observations: $0.element.observations) }
    }
}

/// One walk's pages, handed out in turn.
private actor LoadedPages {
    private var pages: [EventPage]?
    private var position = 0

    var isLoaded: Bool { pages != nil }

    func load(_ pages: [EventPage]) { self.pages = pages }

    func next() -> EventPage? {
        guard let pages, position < pages.count else { return nil }
        defer { position += 1 }
        return pages[position]
    }
}
