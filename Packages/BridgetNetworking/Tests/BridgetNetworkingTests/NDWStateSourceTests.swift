import BridgetDTOs
@testable import BridgetNDW
@testable import BridgetNetworking
import BridgetNetworkingTesting
import Foundation
import Testing

/// NDW's feed as a live state source: a bridge is raised while a `certain` situation holds the reading's moment.
@Suite("NDW as a state source")
struct NDWStateSourceTests {
    @Test("the 2023-11-22 snapshot: the bridges under a certain situation at its moment are raised, the rest lowered")
    func certainSituationsAreRaised() async throws {
        let path = try NDWFixture.url().path
        let provider = NDWProvider(source: .file(path), client: nil)
        let catalog = try await provider.fetchBridgeCatalog()
        var certain: [(bridgeID: String, start: Date, end: Date?)] = []
        for try await page in provider.eventPages(since: nil) {
            for observation in page.observations where observation.status == .observed {
                guard let id = observation.bridgeID, case .instant(let start)? = observation.opened.value else { continue }
                let end: Date? = if case .instant(let end)? = observation.closed.value { end } else { nil }
                certain.append((id, start, end))
            }
        }
        let situation = try #require(certain.first, "the snapshot has certain situations")
        let moment = situation.start.addingTimeInterval(1)
        let source = NDWStateSource(source: .file(path), client: nil, now: { moment })
        let reading = try await source.currentStates()
        let expected = Set(certain.filter { $0.start <= moment && ($0.end.map { $0 > moment } ?? true) }.map(\.bridgeID))
        #expect(Set(reading.positions.filter { $0.value == .raised }.keys) == expected)
        #expect(reading.positions.count == catalog.count)
        try await BridgeStateConformance.check(knownBridgeIDs: Set(catalog.map(\.id))) { source }
    }

    @Test("a missing feed file is a named failure, not a reading")
    func missingFile() async throws {
        let source = NDWStateSource(source: .file("/nonexistent/feed.xml.gz"), client: nil)
        await #expect(throws: BridgeStateError.self) { _ = try await source.currentStates() }
    }
}
