import BridgetAnswers
import BridgetContext
import BridgetCore
import BridgetDTOs
import BridgetPersistence
import Foundation
import Testing

/// `status` with the live state feed on: what the kept state says of each bridge, and when it is too old to say it.
@Suite("Status from the live state")
struct LiveStatusTests {
    static let now = Date(timeIntervalSince1970: 1_795_723_200)

    static func context(stateURL: String = "http://127.0.0.1:9/state") throws -> AppContext {
        let yaml = """
            provider:
              kind: live
              live: {base_url: "http://127.0.0.1:9", state_url: "\(stateURL)", state_poll_seconds: 20}
            store: {kind: memory}
            """
        let resolved = try ConfigurationLoader(environment: [:]).resolve(yaml: yaml, origin: "test")
        return AppContext(assembly: BridgetAssembly(configuration: BridgetConfiguration(resolved, environment: [:]),
                                                    now: { Self.now }), environment: [:])
    }

    /// A store whose kept state read Fremont raised since `raisedAt` and Ballard lowered, last good poll at `polled`.
    static func store(polled: Date, raisedAt: Date) async throws -> InMemoryBridgeStore {
        let store = InMemoryBridgeStore()
        await store.upsertBridges(BridgeCatalog.seattle.bridges)
        let state = LiveFeedState(
            source: "http://127.0.0.1:9/state", lastPollAt: polled, lastGoodPollAt: polled,
            bridges: ["3": .init(position: .raised, since: raisedAt, lastSeenAt: polled, openingAt: raisedAt,
                                 openedAfter: raisedAt.addingTimeInterval(-20)),
                      "2": .init(position: .lowered, since: raisedAt, lastSeenAt: polled)])
        _ = await store.claimLiveFeed(holder: "t", now: polled, until: polled.addingTimeInterval(60))
        _ = try await store.saveLiveFeed(state, events: [], holder: "t", now: polled)
        return store
    }

    @Test("a fresh reading: Fremont open since the poll that saw it (seen live), Ballard closed, no history caveat")
    func freshReading() async throws {
        let context = try Self.context()
        let raised = Self.now.addingTimeInterval(-300)
        let store = try await Self.store(polled: Self.now.addingTimeInterval(-10), raisedAt: raised)
        let answer = try await StatusNowAnswer.current(books: HistoryBooks(context: context, store: store), now: Self.now)
        let fremont = try #require(answer.bridges.first { $0.bridgeID == "3" })
        let ballard = try #require(answer.bridges.first { $0.bridgeID == "2" })
        #expect(fremont.state == .open && fremont.openSince == raised && fremont.basis == .live)
        #expect(ballard.state == .closed && ballard.live?.position == .lowered)
        #expect(answer.live?.asOf == Self.now.addingTimeInterval(-10) && answer.live?.ageSeconds == 10)
        #expect(answer.caveat == nil, "\(answer.caveat ?? "")")
        // A bridge the feed never named answers from the history, as before.
        #expect(answer.bridges.first { $0.bridgeID == "21" }?.live == nil)
    }

    @Test("a reading older than three polls: every bridge it named is unknown, and the caveat says since when")
    func staleReading() async throws {
        let context = try Self.context()
        let store = try await Self.store(polled: Self.now.addingTimeInterval(-600), raisedAt: Self.now.addingTimeInterval(-900))
        let answer = try await StatusNowAnswer.current(books: HistoryBooks(context: context, store: store), now: Self.now)
        #expect(answer.bridges.filter { $0.live != nil }.allSatisfy { $0.state == .unknown })
        #expect(answer.caveat?.contains("last read 10 min before") == true, "\(answer.caveat ?? "")")
    }

    @Test("an answer for another moment (--at) is the history's alone; a feed never read says so")
    func otherMomentAndNeverRead() async throws {
        let context = try Self.context()
        let store = try await Self.store(polled: Self.now.addingTimeInterval(-10), raisedAt: Self.now.addingTimeInterval(-300))
        let past = try await StatusNowAnswer.current(books: HistoryBooks(context: context, store: store),
                                                     now: Self.now.addingTimeInterval(-7200))
        #expect(past.live == nil && past.bridges.allSatisfy { $0.live == nil && $0.state != .open })
        let empty = InMemoryBridgeStore()
        await empty.upsertBridges(BridgeCatalog.seattle.bridges)
        let never = try await StatusNowAnswer.current(books: HistoryBooks(context: context, store: empty), now: Self.now)
        #expect(never.caveat?.contains("has not been read yet") == true)
    }
}
