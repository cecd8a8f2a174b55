import BridgetContext
import BridgetCore
import BridgetDTOs
@testable import BridgetPages
import BridgetPersistence
import Foundation
import Testing

/// The page of a bridge open now says so first, and when it is expected to close; the next 20 minutes come after.
@Suite("an open bridge's page")
struct OpenBridgePageTests {
    /// Thursday 2026-11-26 12:00 PST.
    static let now = Date(timeIntervalSince1970: 1_795_723_200)

    @Test("Fremont seen raised 5 minutes ago: the page leads with open since, seen live, and the expected close")
    func openFirst() async throws {
        let yaml = """
            provider:
              kind: live
              live: {base_url: "http://127.0.0.1:9", state_url: "http://127.0.0.1:9/state", state_poll_seconds: 20}
            store: {kind: memory}
            """
        let resolved = try ConfigurationLoader(environment: [:]).resolve(yaml: yaml, origin: "test")
        let context = AppContext(assembly: BridgetAssembly(configuration: BridgetConfiguration(resolved, environment: [:]),
                                                           now: { Self.now }), environment: [:])
        let store = InMemoryBridgeStore()
        await store.upsertBridges(BridgeCatalog.seattle.bridges)
        let fremont = try #require(BridgeCatalog.seattle.bridges.first { $0.id == "3" })
        let clock = context.clock
        func event(_ opened: Date, minutes: Double?, status: OpeningStatus = .observed) -> BridgeEventDTO {
            let closed = minutes.map { opened.addingTimeInterval($0 * 60) }
            return BridgeEventDTO(bridgeID: "3", bridgeName: fremont.name, openedAt: opened,
                                  openLocal: clock.reading(for: opened).localText + ".000", closedAt: closed,
                                  closeLocal: closed.map { clock.reading(for: $0).localText + ".000" },
                                  minutesOpen: minutes.map { Int($0) }, latitude: fremont.latitude,
                                  longitude: fremont.longitude, status: status)
        }
        // Sixty days of openings, three a day, eight minutes each: a history to forecast the close from.
        var history: [BridgeEventDTO] = []
        for day in 1...60 {
            for hour in [9.0, 13.0, 19.0] {
                history.append(event(Self.now.addingTimeInterval(Double(-day) * 86_400 + (hour - 16) * 3_600), minutes: 8))
            }
        }
        let raised = Self.now.addingTimeInterval(-300)
        _ = try await store.upsertEvents(history + [event(raised, minutes: nil, status: .live)])
        let polled = Self.now.addingTimeInterval(-10)
        let state = LiveFeedState(
            source: "http://127.0.0.1:9/state", lastPollAt: polled, lastGoodPollAt: polled,
            bridges: ["3": .init(position: .raised, since: raised, lastSeenAt: polled, openingAt: raised,
                                 openedAfter: raised.addingTimeInterval(-20))])
        _ = await store.claimLiveFeed(holder: "t", now: polled, until: polled.addingTimeInterval(60))
        _ = try await store.saveLiveFeed(state, events: [], holder: "t", now: polled)

        let html = try await Site(context: context, store: store, now: Self.now).bridgePage(fremont)
        let fact = try #require(html.components(separatedBy: "class=\"key-fact now now-open\">").dropFirst().first)
            .prefix { $0 != "<" }
        #expect(fact.hasPrefix("Open since 11:55 (seen live): expected to close in about "), "\(fact)")
        #expect(fact.contains(" min (by 12:"), "\(fact)")
        let factPosition = html.range(of: "key-fact now now-open")?.lowerBound
        let next = html.range(of: "The next 20 minutes")?.lowerBound
        #expect(factPosition != nil && next != nil && factPosition! < next!, "the open state comes first")
        #expect(html.contains("After this opening, a "))
    }
}
