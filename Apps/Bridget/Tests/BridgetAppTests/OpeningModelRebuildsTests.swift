import BridgetContext
import BridgetCore
import BridgetDTOs
import BridgetPersistence
import Foundation
import Testing

@Suite("Opening model rebuilds", .timeLimit(.minutes(5)))
struct OpeningModelRebuildsTests {
    /// A store holding a month of sample history, synced (so with models), and the models it was given.
    static func syncedStore() async throws -> (store: any BridgeStore, models: [OpeningModelDTO]) {
        let assembly = try SyncPipelineTests().assembly(SyncPipelineTests.yaml)
        let store = try await assembly.makeStore()
        _ = try await assembly.makeSyncPipeline(store: store).run(full: false)
        let models = try await store.openingModels(bridgeIDs: try await store.bridges().map(\.id))
        return (store, models)
    }

    /// Builds that each wait at a door of their own until the test opens it, saying when each starts and counting how
    /// many ever ran at once.
    final class Builds: Sendable {
        let starts: AsyncStream<Int>
        private let started: AsyncStream<Int>.Continuation
        private let doors = Locked<[Int: Door]>([:])
        private let running = Locked<(now: Int, most: Int, count: Int)>((0, 0, 0))
        let models: [OpeningModelDTO]
        let failing: Set<Int>

        init(models: [OpeningModelDTO], failing: Set<Int> = []) {
            (starts, started) = AsyncStream.makeStream(of: Int.self)
            self.models = models
            self.failing = failing
        }

        struct Refused: Error {}

        var mostAtOnce: Int { running.withLock { $0.most } }

        func door(_ number: Int) -> Door {
            doors.withLock { doors in
                if let door = doors[number] { return door }
                let door = Door()
                doors[number] = door
                return door
            }
        }

        var build: @Sendable () async throws -> [OpeningModelDTO] {
            { [self] in
                let number = running.withLock { running in
                    running.count += 1
                    running.now += 1
                    running.most = max(running.most, running.now)
                    return running.count
                }
                started.yield(number)
                await door(number).pass()
                running.withLock { $0.now -= 1 }
                if failing.contains(number) { throw Refused() }
                return models
            }
        }
    }

    actor Door {
        private var isOpen = false
        private var waiting: [CheckedContinuation<Void, Never>] = []

        func pass() async {
            if isOpen { return }
            await withCheckedContinuation { waiting.append($0) }
        }

        func open() {
            isOpen = true
            for continuation in waiting { continuation.resume() }
            waiting = []
        }
    }

    @Test("twelve askers of one history version share one rebuild, held open until all have asked")
    func askersShareOneRebuild() async throws {
        let (store, models) = try await Self.syncedStore()
        let version = try await store.historyVersion()
        let builds = Builds(models: models)
        let rebuilds = OpeningModelRebuilds()
        var starts = builds.starts.makeAsyncIterator()
        let first = rebuilds.rebuild(from: version, store: store, build: builds.build)
        #expect(await starts.next() == 1)
        let others = (1..<12).map { _ in rebuilds.rebuild(from: version, store: store, build: builds.build) }
        try #require(others.allSatisfy { $0 == first })
        try #require(rebuilds.started == 1)
        await builds.door(1).open()
        let built = try await first.value
        #expect(built.count == models.count && built.allSatisfy { $0.sourceVersion == version })
        #expect(try await others.last!.value.map(\.bridgeID) == built.map(\.bridgeID))
        // Asked again once it is done: a rebuild of its own (the caller checks the stored models first).
        let again = rebuilds.rebuild(from: version, store: store, build: builds.build)
        #expect(again != first && rebuilds.started == 2)
        #expect(await starts.next() == 2)
        await builds.door(2).open()
        _ = try await again.value
        #expect(builds.mostAtOnce == 1)
    }

    @Test("askers of a newer history wait for one rebuild after the running one, never beside it")
    func lateAskersShareTheNext() async throws {
        let (store, models) = try await Self.syncedStore()
        let before = try await store.historyVersion()
        let builds = Builds(models: models)
        let rebuilds = OpeningModelRebuilds()
        var starts = builds.starts.makeAsyncIterator()
        let first = rebuilds.rebuild(from: before, store: store, build: builds.build)
        // Running: it has read the version.
        #expect(await starts.next() == 1)
        // A write lands during the build (a sync's batch).
        let oldest = try #require(try await store.events(matching: EventQuery(limit: 1)).first?.openedAt)
        #expect(try await store.deleteEvents(openedBefore: oldest.addingTimeInterval(86_400)) > 0)
        let after = try await store.historyVersion()
        #expect(after > before)

        let late = (0..<5).map { _ in rebuilds.rebuild(from: after, store: store, build: builds.build) }
        // Required, as are the checks below that a build is shared: a test that went on would wait at a door never opened.
        try #require(late.allSatisfy { $0 == late[0] })
        try #require(late[0] != first && rebuilds.started == 2)
        // One that asked before the write is covered by the running one.
        #expect(rebuilds.rebuild(from: before, store: store, build: builds.build) == first)
        // Another write: the waiting rebuild has not read the version yet, so it covers this one too.
        let oldestLeft = try #require(try await store.events(matching: EventQuery(limit: 1)).first?.openedAt)
        #expect(try await store.deleteEvents(openedBefore: oldestLeft.addingTimeInterval(86_400)) > 0)
        let newest = try await store.historyVersion()
        try #require(rebuilds.rebuild(from: newest, store: store, build: builds.build) == late[0])
        try #require(rebuilds.started == 2)

        await builds.door(1).open()
        #expect(await starts.next() == 2)
        // Now running, having read the newest version: it covers an asker of that version.
        try #require(rebuilds.rebuild(from: newest, store: store, build: builds.build) == late[0])
        await builds.door(2).open()
        #expect(try await first.value.allSatisfy { $0.sourceVersion == before })
        #expect(try await late[0].value.allSatisfy { $0.sourceVersion == newest })
        let stored = try await store.openingModels(bridgeIDs: models.map(\.bridgeID))
        #expect(stored.count == models.count && stored.allSatisfy { $0.sourceVersion == newest })
        #expect(builds.mostAtOnce == 1)
    }

    @Test("a failed rebuild fails its askers only: the one waiting behind it still builds")
    func failureStaysWithItsAskers() async throws {
        let (store, models) = try await Self.syncedStore()
        let version = try await store.historyVersion()
        let builds = Builds(models: models, failing: [1])
        let rebuilds = OpeningModelRebuilds()
        var starts = builds.starts.makeAsyncIterator()
        let first = rebuilds.rebuild(from: version, store: store, build: builds.build)
        #expect(await starts.next() == 1)
        _ = try await store.deleteEvents(openedBefore: try #require(try await store.latestOpening()))
        let newer = try await store.historyVersion()
        let next = rebuilds.rebuild(from: newer, store: store, build: builds.build)
        await builds.door(1).open()
        await #expect(throws: Builds.Refused.self) { try await first.value }
        #expect(await starts.next() == 2)
        await builds.door(2).open()
        #expect(try await next.value.allSatisfy { $0.sourceVersion == newer })
    }

    @Test("one store's rebuilds are shared by whoever asks in the process; another store's are its own")
    func rebuildsByStore() async throws {
        let registry = OpeningModelRebuildsByStore()
        let one = InMemoryBridgeStore(), other = InMemoryBridgeStore()
        #expect(registry.rebuilds(for: one) === registry.rebuilds(for: one))
        #expect(registry.rebuilds(for: one) !== registry.rebuilds(for: other))
    }
}
