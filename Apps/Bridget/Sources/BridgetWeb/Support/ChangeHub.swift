import BridgetAnswers
import BridgetCore
import BridgetDTOs
import BridgetPersistence
import Foundation
import Hummingbird
import Logging
import ServiceLifecycle

/// One reader of the change log for the whole server, fanning each change out to every stream client
/// (`GET /v1/stream`): the log is read once per poll, not once per client, and each change is encoded once. The store
/// wakes the hub at each commit (`ChangeLogStore.changeWakeups()`: this process's writes at once, another's as the
/// store can tell), so a change goes out when it commits; the poll stays as the fallback.
///
/// Each client has a queue of at most `clientBuffer` events; a client that lets it fill (a burst of changes, a slow
/// reader) leaves the hub and reads what it missed from the store, so nothing is buffered for it without bound. The
/// bytes queued to all clients together are bounded too (`stream.memory_mb`): a client whose next event would pass
/// the budget leaves the hub the same way. Clients hold slots (`stream.max_clients`, and
/// `stream.max_clients_per_address` from one remote address): past them a stream is refused. A heartbeat goes to
/// every client each `heartbeat`. On graceful shutdown every stream ends, so draining the server never waits on one.
package final class ChangeHub: Service, Sendable {
    /// What a client's queue holds.
    enum Item: Sendable {
        /// Changes read in one poll (those of the client's bridges), as their Server-Sent Events text: one write.
        case changes(Batch)
        case heartbeat
    }

    /// Changes of one poll as events: each one's number and text, and all of them as one buffer.
    struct Batch: Sendable {
        let sequences: [Int64]
        let events: [ByteBuffer]
        let combined: ByteBuffer

        init(sequences: [Int64], events: [ByteBuffer]) {
            self.sequences = sequences
            self.events = events
            var combined = ByteBuffer()
            combined.reserveCapacity(events.reduce(0) { $0 + $1.readableBytes })
            for event in events { combined.writeImmutableBuffer(event) }
            self.combined = combined
        }

        /// What the batch costs a client's queue: its changes and its bytes (with the queue's bookkeeping).
        var count: Int { sequences.count }
        var cost: Int { combined.readableBytes + 64 * sequences.count }
    }

    /// Why a client's queue ended.
    enum Ending: Sendable {
        /// The server is shutting down.
        case shutdown
        /// The client fell `clientBuffer` events behind (a burst, or a slow reader): it reads the rest from the store.
        case behind
    }

    /// A client of the hub: its queue and how it ended.
    final class Client: Sendable {
        let stream: AsyncStream<Item>
        fileprivate let continuation: AsyncStream<Item>.Continuation
        fileprivate let bridgeIDs: Set<String>?
        private let ending = Locked<Ending?>(nil)
        /// Changes and bytes queued and not yet taken (the bytes counted in the hub's budget); `nil` once the client
        /// has ended and given them back.
        private let queued = Locked<(changes: Int, bytes: Int)?>((0, 0))
        private let limit: Int
        private let budget: MemoryBudget

        fileprivate init(bridgeIDs: Set<String>?, limit: Int, budget: MemoryBudget) {
            // Bounded by `reserve`: at most `limit` changes, and the budget's bytes.
            (stream, continuation) = AsyncStream<Item>.makeStream(bufferingPolicy: .unbounded)
            self.bridgeIDs = bridgeIDs
            self.limit = limit
            self.budget = budget
        }

        deinit { release() }

        /// Ends the client's queue: the hub forgets it, and what it still queued leaves the budget.
        func cancel() {
            continuation.finish()
            release()
        }

        /// The client took an item from its queue: its changes leave the queue's count, its bytes the budget.
        func took(_ item: Item) {
            guard case .changes(let batch) = item else { return }
            let given = queued.withLock { queued -> Bool in
                guard let now = queued else { return false }
                queued = (now.changes - batch.count, now.bytes - batch.cost)
                return true
            }
            if given { budget.give(batch.cost) }
        }

        /// Counts a batch queued for the client, when its queue and the budget have room for it.
        fileprivate func reserve(_ batch: Batch) -> Bool {
            queued.withLock { queued in
                guard let now = queued, now.changes + batch.count <= limit, budget.take(batch.cost) else { return false }
                queued = (now.changes + batch.count, now.bytes + batch.cost)
                return true
            }
        }

        private func release() {
            let remaining = queued.withLock { queued -> Int in
                defer { queued = nil }
                return queued?.bytes ?? 0
            }
            if remaining > 0 { budget.give(remaining) }
        }

        /// Why the hub ended this client's stream, if it did.
        var endedBecause: Ending? { ending.withLock { $0 } }

        fileprivate func end(_ reason: Ending) {
            ending.withLock { $0 = $0 ?? reason }
            continuation.finish()
        }
    }

    private struct State {
        /// The newest change handed to the clients (`nil` until the hub has read the log once).
        var cursor: Int64?
        var clients: [ObjectIdentifier: Client] = [:]
        var stopped = false
    }

    private let store: any ChangeLogStore
    /// The bridges' names and the clock of the events' local times.
    let names: BridgeNames
    let clock: LocalClock
    private let pollInterval: Duration
    private let heartbeat: Duration
    private let clientBuffer: Int
    private let logger: Logger
    private let state = Locked(State())
    private let follower = Locked<Task<Void, Never>?>(nil)
    /// Rung by the store's wake-ups: the follower's wait between reads ends at a commit.
    private let doorbell = Doorbell()
    /// The bytes queued to every client together.
    package let budget: MemoryBudget
    /// The stream's connection slots.
    package let slots: StreamSlots
    /// Told when the log has new changes (the alert deliverer, whose messages they enqueued).
    private let listeners = Locked<[@Sendable () -> Void]>([])

    /// Calls `action` each time the hub reads new changes from the log.
    package func onChanges(_ action: @escaping @Sendable () -> Void) { listeners.withLock { $0.append(action) } }

    init(store: any ChangeLogStore, names: BridgeNames, clock: LocalClock, pollInterval: Duration, heartbeat: Duration,
         clientBuffer: Int, memoryBudget: Int = 32 << 20,
         slots: StreamSlots = StreamSlots(maximum: 1_000, perAddress: 16), logger: Logger) {
        self.store = store
        self.names = names
        self.clock = clock
        self.pollInterval = pollInterval
        self.heartbeat = heartbeat
        self.clientBuffer = clientBuffer
        budget = MemoryBudget(maximum: memoryBudget)
        self.slots = slots
        self.logger = logger
    }


    /// Adds a client for the changes of `bridgeIDs` (every bridge when `nil`): the hub hands it every change after
    /// the returned number. Waits until the hub has read the log once; `nil` when the server is shutting down.
    func subscribe(bridgeIDs: Set<String>?) async throws -> (client: Client, after: Int64)? {
        start()
        let deadline = ContinuousClock.now + .seconds(10)
        while true {
            let joined: (Client, Int64)?? = state.withLock { state in
                if state.stopped { return .some(nil) }
                guard let cursor = state.cursor else { return nil }
                let client = Client(bridgeIDs: bridgeIDs, limit: clientBuffer, budget: budget)
                state.clients[ObjectIdentifier(client)] = client
                return .some((client, cursor))
            }
            if let joined {
                guard let (client, cursor) = joined else { return nil }
                client.continuation.onTermination = { [weak self] _ in self?.remove(client) }
                return (client, cursor)
            }
            guard ContinuousClock.now < deadline else {
                throw Problem(.webStoreUnavailable, detail: "the change log cannot be read now")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    private func remove(_ client: Client) {
        _ = state.withLock { $0.clients.removeValue(forKey: ObjectIdentifier(client)) }
    }

    /// Runs in the server's service group: the hub reads the log from the first client on, and at graceful
    /// shutdown ends every stream.
    package func run() async throws {
        start()
        defer { stop() }
        try? await gracefulShutdown()
    }

    /// Starts reading the log, once.
    func start() {
        follower.withLock { task in
            if task == nil { task = Task { await self.follow() } }
        }
    }

    /// Ends every stream, refuses new ones and stops reading the log.
    package func stop() {
        let clients = state.withLock { state in
            state.stopped = true
            defer { state.clients.removeAll() }
            return Array(state.clients.values)
        }
        for client in clients { client.end(.shutdown) }
        follower.withLock { $0?.cancel() }
    }

    private func follow() async {
        let listening = doorbell.listen(to: store.changeWakeups())
        defer { listening.cancel() }
        // Start at the newest change: clients that want older ones read them from the store themselves.
        var cursor: Int64 = 0
        while !Task.isCancelled, !state.withLock({ $0.stopped }) {
            do {
                cursor = try await store.changeLogBounds().newest
                break
            } catch {
                logger.warning("the change log cannot be read: \(error); trying again")
                try? await Task.sleep(for: .seconds(1))
            }
        }
        state.withLock { $0.cursor = cursor }
        var lastHeartbeat = ContinuousClock.now
        while !Task.isCancelled, !state.withLock({ $0.stopped }) {
            do {
                let changes = try await store.changes(after: cursor, bridgeIDs: nil, limit: 1_000)
                if !changes.isEmpty {
                    cursor = changes[changes.count - 1].sequence
                    broadcast(changes, names: await names.names(for: changes), through: cursor)
                    for action in listeners.withLock({ $0 }) { action() }
                    if changes.count == 1_000 { continue }
                }
            } catch {
                logger.warning("the change log cannot be read: \(error); trying again")
            }
            if ContinuousClock.now - lastHeartbeat >= heartbeat {
                lastHeartbeat = .now
                for client in state.withLock({ Array($0.clients.values) }) { deliver(.heartbeat, to: client) }
            }
            await doorbell.wait(upTo: min(pollInterval, heartbeat))
        }
    }

    /// Hands a poll's changes to every client as one batch (of its bridges' changes): encoded once, shared by every
    /// client that takes every bridge.
    private func broadcast(_ changes: [ChangeLogEntryDTO], names: [String: String], through cursor: Int64) {
        var encoded: [(sequence: Int64, bridgeIDs: [String], event: ByteBuffer)] = []
        encoded.reserveCapacity(changes.count)
        for change in changes {
            if let event = try? Self.event(change, names: names, clock: clock) { encoded.append((change.sequence, change.bridgeIDs, event)) }
        }
        let all = Batch(sequences: encoded.map(\.sequence), events: encoded.map(\.event))
        let clients = state.withLock { state in
            state.cursor = cursor
            return Array(state.clients.values)
        }
        for client in clients {
            guard let wanted = client.bridgeIDs else {
                deliver(.changes(all), to: client)
                continue
            }
            let mine = encoded.filter { $0.bridgeIDs.contains(where: wanted.contains) }
            if !mine.isEmpty {
                deliver(.changes(Batch(sequences: mine.map(\.sequence), events: mine.map(\.event))), to: client)
            }
        }
    }

    /// Queues an item for a client; a queue over `clientBuffer` changes, or a memory budget without room, ends the
    /// client's queue (it is behind: it reads the rest from the store).
    @discardableResult
    private func deliver(_ item: Item, to client: Client) -> Bool {
        if case .changes(let batch) = item, !client.reserve(batch) {
            remove(client)
            client.end(.behind)
            return false
        }
        switch client.continuation.yield(item) {
        case .enqueued: return true
        case .dropped, .terminated:
            client.took(item) // never queued
            remove(client)
            return false
        @unknown default: return false
        }
    }

    /// An entry as one Server-Sent Event: its number as the id, its JSON as the data; `event: change` for an
    /// opening's change, `event: bulk` for a bulk write's summary (read its openings again).
    static func event(_ change: ChangeLogEntryDTO, names: [String: String], clock: LocalClock) throws -> ByteBuffer {
        var buffer = ByteBuffer()
        buffer.writeString("id: \(change.sequence)\nevent: \(change.opening == nil ? "bulk" : "change")\ndata: ")
        buffer.writeString(try AnswerJSON.line(ChangeOutput(change, names: names, clock: clock)))
        buffer.writeString("\n\n")
        return buffer
    }
}
