import BridgetDTOs
import BridgetPersistence
import Foundation
import Testing

/// What `BridgeStore` promises, checked against every implementation.
@Suite("BridgeStore conformance")
struct BridgeStoreConformanceTests {
    @Test(arguments: StoreKind.allCases)
    func upsertIsIdempotentAndCountsOutcomes(_ kind: StoreKind) async throws {
        let store = try kind.make()
        try await store.upsertBridges(BridgeCatalog.seattle.bridges)
        let batch = (0..<10).map { Fixture.event(minute: $0 * 10) }
        #expect(try await store.upsertEvents(batch) == UpsertCounts(inserted: 10))
        #expect(try await store.upsertEvents(batch) == UpsertCounts(unchanged: 10))
        var changed = batch
        changed[3] = Fixture.event(minute: 30, minutes: 9)
        let beforeUpdate = try await store.historyVersion()
        #expect(try await store.upsertEvents(batch) == UpsertCounts(unchanged: 10))
        #expect(try await store.historyVersion() == beforeUpdate) // nothing changed, same version
        #expect(try await store.upsertEvents(changed) == UpsertCounts(updated: 1, unchanged: 9))
        #expect(try await store.historyVersion() > beforeUpdate)
        #expect(try await store.eventCount(bridgeID: nil) == 10)
        let stored = try await store.allEvents()
        #expect(stored == changed)
    }

    @Test("events round-trip exactly, milliseconds and missing fields included", arguments: StoreKind.allCases)
    func roundTrip(_ kind: StoreKind) async throws {
        let store = try kind.make()
        try await store.upsertBridges(BridgeCatalog.seattle.bridges)
        let open = BridgeEventDTO(
            bridgeID: "2", bridgeName: "Ballard", openedAt: Date(timeIntervalSince1970: 1_780_315_200.123),
            openLocal: "2026-06-01T05:00:00.123", closedAt: nil, closeLocal: nil, minutesOpen: nil,
            latitude: nil, longitude: nil)
        let events = [Fixture.event(minute: 1, milliseconds: 500), open]
        _ = try await store.upsertEvents(events)
        #expect(try await store.allEvents() == events.sorted { $0.key < $1.key })
    }

    @Test("a cursor walks every event once, in order, both ways, including ties on the opening instant",
          arguments: StoreKind.allCases)
    func cursorPages(_ kind: StoreKind) async throws {
        let store = try kind.make()
        try await store.upsertBridges(BridgeCatalog.seattle.bridges)
        // Fremont and Ballard open at the same minutes: ties the cursor must break by bridge id.
        let events = (0..<9).map { Fixture.event(minute: $0 * 10) } + (0..<9).map { Fixture.event(Fixture.ballard, minute: $0 * 10) }
        _ = try await store.upsertEvents(events.shuffled())
        for newestFirst in [false, true] {
            var walked: [BridgeEventDTO] = []
            var cursor: EventKey?
            while true {
                let page = try await store.events(matching: EventQuery(limit: 4, newestFirst: newestFirst, after: cursor))
                guard let last = page.last else { break }
                walked += page
                cursor = last.key
            }
            #expect(walked == (try await store.events(matching: EventQuery(newestFirst: newestFirst))))
            #expect(walked.count == 18)
        }
    }

    @Test("an import checkpoint is saved with its batch, read back, and removed", arguments: StoreKind.allCases)
    func importCheckpoints(_ kind: StoreKind) async throws {
        let store = try kind.make()
        try await store.upsertBridges(BridgeCatalog.seattle.bridges)
        #expect(try await store.importCheckpoint(source: "/data/a.ndjson") == nil)
        var checkpoint = ImportCheckpoint(source: "/data/a.ndjson", identity: "size=10", offset: 400, line: 2, rowsRead: 3,
                                          counts: UpsertCounts(unchanged: 1))
        checkpoint.rejections.record(.emptyName)
        #expect(try await store.upsertEvents([Fixture.event(minute: 1), Fixture.event(minute: 2)], checkpoint: checkpoint)
                == UpsertCounts(inserted: 2))
        checkpoint.counts = UpsertCounts(inserted: 2, unchanged: 1) // the batch's counts added in its transaction
        #expect(try await store.importCheckpoint(source: "/data/a.ndjson") == checkpoint)
        // A batch that fails keeps neither its rows nor its checkpoint.
        var later = checkpoint
        later.offset = 800
        let orphan = BridgeEventDTO(bridgeID: "99", bridgeName: "Nowhere", openedAt: Date(timeIntervalSince1970: 1_780_000_000),
                                    openLocal: "2026-05-28T13:26:40.000", closedAt: nil, closeLocal: nil, minutesOpen: nil,
                                    latitude: nil, longitude: nil)
        await #expect(throws: (any Error).self) {
            try await store.upsertEvents([Fixture.event(minute: 3), orphan], checkpoint: later)
        }
        #expect(try await store.importCheckpoint(source: "/data/a.ndjson") == checkpoint)
        #expect(try await store.eventCount(bridgeID: nil) == 2)
        try await store.removeImportCheckpoint(source: "/data/a.ndjson")
        #expect(try await store.importCheckpoint(source: "/data/a.ndjson") == nil)
    }

    @Test(arguments: StoreKind.allCases)
    func queriesFilterOrderAndLimit(_ kind: StoreKind) async throws {
        let store = try kind.make()
        try await store.upsertBridges(BridgeCatalog.seattle.bridges)
        let events = (0..<6).map { Fixture.event(minute: $0 * 10) }
            + (0..<4).map { Fixture.event(Fixture.ballard, minute: $0 * 10 + 5) }
        _ = try await store.upsertEvents(events.shuffled())

        let all = try await store.allEvents()
        #expect(all.map(\.openedAt) == all.map(\.openedAt).sorted())
        #expect(try await store.events(matching: EventQuery(bridgeID: "2")).count == 4)
        let window = EventQuery(openedFrom: Fixture.event(minute: 10).openedAt,
                                openedBefore: Fixture.event(minute: 30).openedAt)
        #expect(try await store.events(matching: window).map(\.openLocal)
                == [10, 15, 20, 25].map { Fixture.event(minute: $0).openLocal })
        let newest = try await store.events(matching: EventQuery(limit: 2, newestFirst: true))
        #expect(newest.map(\.openedAt) == [Fixture.event(minute: 50).openedAt, Fixture.event(minute: 40).openedAt])
        #expect(try await store.eventCount(bridgeID: "3") == 6)
        #expect(try await store.latestOpening() == Fixture.event(minute: 50).openedAt)
    }

    @Test("lean opening records match the stored events, by bridge then time", arguments: StoreKind.allCases)
    func openingRecords(_ kind: StoreKind) async throws {
        let store = try kind.make()
        try await store.upsertBridges(BridgeCatalog.seattle.bridges)
        let events = [Fixture.event(minute: 9, milliseconds: 500), Fixture.event(Fixture.ballard, minute: 20, minutes: nil),
                      Fixture.event(minute: 3)]
        _ = try await store.upsertEvents(events)
        let records = try await store.openingRecords()
        #expect(records == [events[1], events[2], events[0]].compactMap(OpeningRecordDTO.init))
        #expect(records[0].closedAt == nil && records[2].openedAt == 1_780_315_740)
    }

    @Test("texts of any length, empty ones included, are stored exactly, inserted and then updated",
          arguments: StoreKind.allCases)
    func textsOfAnyLength(_ kind: StoreKind) async throws {
        // The SQLite store binds texts in place from one buffer reused row after row: rows far longer than the
        // buffer's first size make it move between rows, and '' must stay '' (not NULL).
        let store = try kind.make()
        try await store.upsertBridges(BridgeCatalog.seattle.bridges)
        func event(_ minute: Int, name: String, closeLocal: String?) -> BridgeEventDTO {
            let base = Fixture.event(minute: minute)
            return BridgeEventDTO(bridgeID: base.bridgeID, bridgeName: name, openedAt: base.openedAt,
                                  openLocal: base.openLocal, closedAt: base.closedAt, closeLocal: closeLocal,
                                  minutesOpen: base.minutesOpen, latitude: base.latitude, longitude: base.longitude)
        }
        let long = String(repeating: "Fremont Avenue North ", count: 40) // 840 bytes
        let first = [event(1, name: "F", closeLocal: ""), event(2, name: long, closeLocal: nil),
                     event(3, name: "", closeLocal: long + "é"), event(4, name: "Fremont", closeLocal: "x")]
        #expect(try await store.upsertEvents(first) == UpsertCounts(inserted: 4))
        let second = [event(1, name: long, closeLocal: long), event(2, name: "", closeLocal: ""),
                      event(3, name: "", closeLocal: long + "é"), event(4, name: "F", closeLocal: nil)]
        #expect(try await store.upsertEvents(second) == UpsertCounts(updated: 3, unchanged: 1))
        let stored = try await store.allEvents()
        #expect(stored.map(\.bridgeName) == second.map(\.bridgeName))
        #expect(stored.map(\.closeLocal) == second.map(\.closeLocal))
        #expect(stored.map(\.openLocal) == second.map(\.openLocal))
    }

    @Test(arguments: StoreKind.allCases)
    func emptyStore(_ kind: StoreKind) async throws {
        let store = try kind.make()
        #expect(try await store.latestOpening() == nil)
        #expect(try await store.allEvents().isEmpty)
        #expect(try await store.bridgeActivity().isEmpty)
        #expect(try await store.upsertEvents([]) == UpsertCounts())
    }

    @Test(arguments: StoreKind.allCases)
    func activityAndPruning(_ kind: StoreKind) async throws {
        let store = try kind.make()
        try await store.upsertBridges(BridgeCatalog.seattle.bridges)
        _ = try await store.upsertEvents((0..<5).map { Fixture.event(minute: $0) })
        let activity = try await store.bridgeActivity()
        #expect(activity.map(\.bridge.id) == ["1", "2", "3", "4", "6", "21", "29"])
        #expect(activity.first { $0.bridge.id == "3" }?.openings == 5)
        #expect(activity.first { $0.bridge.id == "3" }?.lastOpening == Fixture.event(minute: 4).openedAt)
        #expect(activity.first { $0.bridge.id == "1" }?.openings == 0)
        let version = try await store.historyVersion()
        #expect(try await store.deleteEvents(openedBefore: Fixture.event(minute: 3).openedAt) == 3)
        #expect(try await store.historyVersion() > version)
        #expect(try await store.eventCount(bridgeID: nil) == 2)
    }

    @Test("a batch naming an unknown bridge changes nothing", arguments: StoreKind.allCases)
    func batchesAreAtomic(_ kind: StoreKind) async throws {
        let store = try kind.make()
        try await store.upsertBridges([Fixture.fremont])
        let batch = [Fixture.event(minute: 1), Fixture.event(Fixture.ballard, minute: 2)]
        await #expect(throws: BridgetError.self) { try await store.upsertEvents(batch) }
        #expect(try await store.eventCount(bridgeID: nil) == 0)
    }

    @Test("opening models round-trip and replace each other whole", arguments: StoreKind.allCases)
    func openingModels(_ kind: StoreKind) async throws {
        let store = try kind.make()
        try await store.upsertBridges(BridgeCatalog.seattle.bridges)
        let slots = (0..<OpeningModelDTO.slotsPerWeek).map {
            OpeningSlotDTO(starts: $0 % 3, occurrences: 52, startProbability: Double($0) / 1_000,
                           openProbability: 0.01, meanRemainingMinutes: 3.5)
        }
        let model = OpeningModelDTO(
            bridgeID: "3", builtAt: Date(timeIntervalSince1970: 1_790_000_000), firstDay: "2025-11-22",
            lastDay: "2026-11-21", openings: 3_300, sourceEvents: 14_000,
            sourceLatestOpening: Date(timeIntervalSince1970: 1_789_000_000), baseStartProbability: 0.09,
            baseOpenProbability: 0.02, slots: slots, monthFactors: (1...12).map { 0.5 + Double($0) / 10 }, sourceVersion: 7)
        #expect(try await store.openingModel(bridgeID: "3") == nil)
        try await store.saveOpeningModels([model])
        #expect(try await store.openingModel(bridgeID: "3") == model)
        try await store.saveOpeningModels([])
        #expect(try await store.openingModel(bridgeID: "3") == nil)
    }

    @Test("routes are saved, listed favourites first, replaced and removed", arguments: StoreKind.allCases)
    func routes(_ kind: StoreKind) async throws {
        let store = try kind.make()
        let commute = RouteDTO(id: "commute", crossings: [
            RouteCrossingDTO(bridgeIDs: ["3", "2"], minutesFromStart: 8), RouteCrossingDTO(bridgeIDs: ["4"], minutesFromStart: 22),
        ])
        let errand = RouteDTO(id: "errand", crossings: [RouteCrossingDTO(bridgeIDs: ["29"], minutesFromStart: 5)],
                              isFavorite: true)
        try await store.saveRoute(commute)
        try await store.saveRoute(errand)
        #expect(try await store.routes() == [errand, commute])
        let favourite = RouteDTO(id: "commute", crossings: commute.crossings, isFavorite: true)
        try await store.saveRoute(favourite)
        #expect(try await store.route(named: "commute") == favourite)
        #expect(try await store.removeRoute(named: "errand"))
        #expect(try await !store.removeRoute(named: "errand"))
        #expect(try await store.routes() == [favourite])
    }

    @Test("traffic flows are upserted by bridge and instant", arguments: StoreKind.allCases)
    func trafficFlows(_ kind: StoreKind) async throws {
        let store = try kind.make()
        try await store.upsertBridges(BridgeCatalog.seattle.bridges)
        let start = Date(timeIntervalSince1970: 1_780_315_200)
        let flows = (0..<3).map { TrafficFlowDTO(bridgeID: "3", timestamp: start.addingTimeInterval(Double($0) * 3600),
                                                congestionLevel: 0.25 * Double($0), trafficVolume: 1_000 + $0) }
        try await store.upsertTrafficFlows(flows.reversed())
        try await store.upsertTrafficFlows([TrafficFlowDTO(bridgeID: "3", timestamp: start, congestionLevel: 0.9,
                                                           trafficVolume: 3_000)])
        let stored = try await store.trafficFlows(bridgeID: "3")
        #expect(stored.count == 3 && stored[0].congestionLevel == 0.9 && stored[2] == flows[2])
        #expect(try await store.trafficFlows(bridgeID: "2").isEmpty)
    }

    @Test(arguments: StoreKind.allCases)
    func syncRunsAreRecorded(_ kind: StoreKind) async throws {
        let store = try kind.make()
        let started = Date(timeIntervalSince1970: 1_790_000_000)
        let id = try await store.startSyncRun(provider: "sample", startedAt: started, watermarkBefore: nil)
        #expect(try await store.syncRuns(limit: 5).first?.status == .running)
        let finished = SyncRunRecord(
            id: id, provider: "sample", startedAt: started, finishedAt: started.addingTimeInterval(2),
            status: .succeeded, watermarkAfter: started, fetched: 12, counts: UpsertCounts(inserted: 10),
            rejections: RejectionCounts([.closeBeforeOpen: 2]), fingerprint: "n=12")
        #expect(try await store.lastSucceededRun(provider: "sample") == nil)
        try await store.finishSyncRun(finished)
        #expect(try await store.syncRuns(limit: 5) == [finished])
        #expect(try await store.lastSucceededRun(provider: "sample") == finished)
        #expect(try await store.lastSucceededRun(provider: "live") == nil)
        let failedID = try await store.startSyncRun(provider: "sample", startedAt: started, watermarkBefore: nil)
        var failed = finished
        (failed.id, failed.status, failed.fingerprint) = (failedID, .failed, "n=13")
        try await store.finishSyncRun(failed)
        #expect(try await store.lastSucceededRun(provider: "sample")?.fingerprint == "n=12")
        #expect(try await store.integrityCheck() == "ok")
    }
}
