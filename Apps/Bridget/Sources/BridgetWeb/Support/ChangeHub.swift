import BridgetApp
import BridgetDTOs
import BridgetPersistence
import Foundation
import Hummingbird
import Logging
import ServiceLifecycle
import Synchronization

/// One reader of the change log for the whole server, fanning each change out to every stream client
/// (`GET /v1/stream`): the log is read once per poll, not once per client, and each change is encoded once.
///
/// Each client has a queue of at most `clientBuffer` events; a client that lets it fill (a burst of changes, a slow
/// reader) leaves the hub and reads what it missed from the store, so nothing is buffered for it without bound. A heartbeat goes to
/// every client each `heartbeat`. On graceful shutdown every stream ends, so draining the server never waits on one.
final class ChangeHub: Service, Sendable {
    /// What a client's queue holds.
    enum Item: Sendable {
        /// A change, as its Server-Sent Events text.
        case change(sequence: Int64, bridgeID: String, event: ByteBuffer)
        case heartbeat
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
        private let ending = Mutex<Ending?>(nil)

        fileprivate init(bridgeIDs: Set<String>?, limit: Int) {
            (stream, continuation) = AsyncStream<Item>.makeStream(bufferingPolicy: .bufferingOldest(limit))
            self.bridgeIDs = bridgeIDs
        }

        /// Ends the client's queue: the hub forgets it.
        func cancel() { continuation.finish() }

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
    private let pollInterval: Duration
    private let heartbeat: Duration
    private let clientBuffer: Int
    private let logger: Logger
    private let state = Mutex(State())
    private let follower = Mutex<Task<Void, Never>?>(nil)

    init(store: any ChangeLogStore, pollInterval: Duration, heartbeat: Duration, clientBuffer: Int, logger: Logger) {
        self.store = store
        self.pollInterval = pollInterval
        self.heartbeat = heartbeat
        self.clientBuffer = clientBuffer
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
                let client = Client(bridgeIDs: bridgeIDs, limit: clientBuffer)
                state.clients[ObjectIdentifier(client)] = client
                return .some((client, cursor))
            }
            if let joined {
                guard let (client, cursor) = joined else { return nil }
                client.continuation.onTermination = { [weak self] _ in self?.remove(client) }
                return (client, cursor)
            }
            guard ContinuousClock.now < deadline else {
                throw Problem(status: .serviceUnavailable, type: "store-unavailable", title: "The store is not available",
                              detail: "the change log cannot be read now", headers: [.retryAfter: "5"])
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    private func remove(_ client: Client) {
        _ = state.withLock { $0.clients.removeValue(forKey: ObjectIdentifier(client)) }
    }

    /// Runs in the server's service group: the hub reads the log from the first client on, and at graceful
    /// shutdown ends every stream.
    func run() async throws {
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
    func stop() {
        let clients = state.withLock { state in
            state.stopped = true
            defer { state.clients.removeAll() }
            return Array(state.clients.values)
        }
        for client in clients { client.end(.shutdown) }
        follower.withLock { $0?.cancel() }
    }

    private func follow() async {
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
                    broadcast(changes, through: cursor)
                    if changes.count == 1_000 { continue }
                }
            } catch {
                logger.warning("the change log cannot be read: \(error); trying again")
            }
            if ContinuousClock.now - lastHeartbeat >= heartbeat {
                lastHeartbeat = .now
                for client in state.withLock({ Array($0.clients.values) }) { deliver(.heartbeat, to: client) }
            }
            try? await Task.sleep(for: pollInterval)
        }
    }

    private func broadcast(_ changes: [OpeningChangeDTO], through cursor: Int64) {
        let items: [Item] = changes.compactMap { change in
            (try? Self.event(change)).map { Item.change(sequence: change.sequence, bridgeID: change.bridgeID, event: $0) }
        }
        let clients = state.withLock { state in
            state.cursor = cursor
            return Array(state.clients.values)
        }
        for client in clients {
            for item in items {
                if case .change(_, let bridgeID, _) = item, let wanted = client.bridgeIDs, !wanted.contains(bridgeID) {
                    continue
                }
                guard deliver(item, to: client) else { break }
            }
        }
    }

    /// Queues an item for a client; a full queue ends the client's queue (it is behind).
    @discardableResult
    private func deliver(_ item: Item, to client: Client) -> Bool {
        switch client.continuation.yield(item) {
        case .enqueued: return true
        case .dropped:
            remove(client)
            client.end(.behind)
            return false
        case .terminated:
            remove(client)
            return false
        @unknown default: return false
        }
    }

    /// A change as one Server-Sent Event: its number as the id, its JSON as the data.
    static func event(_ change: OpeningChangeDTO) throws -> ByteBuffer {
        var buffer = ByteBuffer()
        buffer.writeString("id: \(change.sequence)\nevent: change\ndata: ")
        buffer.writeString(try AnswerJSON.line(change))
        buffer.writeString("\n\n")
        return buffer
    }
}
