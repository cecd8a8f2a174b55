import BridgetAnswers
import BridgetCore
import BridgetDTOs
import BridgetPersistence
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// `GET /v1/stream`: the change log as Server-Sent Events.
///
/// Each event's `id` is the change's number: a client that reconnects with `Last-Event-ID` (or `?after=`) gets exactly
/// the changes after it (read from the store up to where the hub stood when it joined, then the hub's), or, when the
/// log no longer holds them, a `resync` event first. A comment line is a heartbeat. A burst of changes larger than a
/// client's queue is read from the store for it, a page at a time, before it rejoins the hub. A client that does not
/// take what is sent for `stream.stall_seconds` (it is not reading) is sent a `dropped` event with a `retry` hint and
/// the stream ends; so does every stream when the server stops (`shutdown`). Reconnecting with the last id received
/// resumes without a gap or a repeat.
struct StreamController {
    let web: WebContext

    /// Changes read from the store at once while catching a client up.
    static let backfillPage = 500

    func addRoutes(to endpoints: Endpoints) {
        endpoints.get("/v1/stream") { request, context in
            try await stream(request, from: context.remoteIP, closed: context.connectionClosed)
        }
    }

    func stream(_ request: Request, from address: String? = nil, closed: EventLoopFuture<Void>? = nil) async throws
        -> Response
    {
        let query = Query(request)
        let named = try await web.queryBridges(query.all("bridge"))
        let wanted: Set<String>? = named.isEmpty ? nil : Set(named.map(\.id))
        let last = try Self.lastEventID(request, query)
        // A client that does not ask for an event stream (a script, a poller) gets one page of the log as JSON.
        guard Self.acceptsEventStream(request.headers[.accept]) else {
            let limit = try query.integer("limit", in: 1...1_000, fallback: 100)
            return try Response.json(try await page(after: last ?? 0, bridgeIDs: wanted, limit: limit), status: .ok)
        }
        // A slot first: stream clients never take the connections other requests need.
        let slot = try takeSlot(address: address)
        guard let (client, joinedAt) = try await web.changes.subscribe(bridgeIDs: wanted) else {
            throw Problem(.webShuttingDown, detail: "the server is stopping; connect again")
        }
        let bounds: ChangeLogBounds
        do {
            bounds = try await web.store.changeLogBounds()
        } catch {
            client.cancel()
            throw error
        }
        let (store, resumeAfter) = (web.store, last)
        let bridgeIDs = wanted.map { Array($0).sorted() }
        // The connection ends with the stream: a client reconnects for the next one (as EventSource does).
        let headers: HTTPFields = [.contentType: "text/event-stream; charset=utf-8", .cacheControl: "no-store",
                                   Self.accelBuffering: "no", .connection: "close"]
        let (hub, stall) = (web.changes, Duration.milliseconds(Int64(web.app.configuration.stream.stall * 1000)))
        // A client that leaves ends its stream at once: no change is read or written for it after.
        let connection = ConnectionWatch(client)
        closed?.whenComplete { _ in connection.close() }
        let run = StreamRun(client: client, sent: joinedAt, store: store, bridgeIDs: bridgeIDs, wanted: wanted, hub: hub,
                            stall: stall, connection: connection)
        return Response(status: .ok, headers: headers, body: ResponseBody { writer in
            // The slot is held while the stream runs, and given back when this closure (or an unrun one) goes.
            withExtendedLifetime(slot) {}
            var run = run
            defer { run.client.cancel() }
            try await run.run(resumingAfter: resumeAfter, bounds: bounds, joinedAt: joinedAt, writer: &writer)
        })
    }

    /// `Last-Event-ID` (or `?after=`): the last change a reconnecting client was sent.
    private static func lastEventID(_ request: Request, _ query: Query) throws -> Int64? {
        guard let text = request.headers[Self.lastEventID] ?? query["after"] else { return nil }
        guard let number = Int64(text.trimmingCharacters(in: .whitespaces)), number >= 0 else {
            throw Problem.badParameter("Last-Event-ID", "\(ConfigValueType.quoted(String(text.prefix(40)))) is not an "
                                       + "event id this stream gave (a whole number)")
        }
        return number
    }

    /// A stream slot for a client at `address`, or the problem that says why there is none.
    private func takeSlot(address: String?) throws -> StreamSlots.Slot {
        switch web.changes.slots.take(address: address) {
        case .success(let taken): return taken
        case .failure(let refusal):
            let detail = switch refusal {
            case .full(let maximum): "the server streams to \(maximum) clients at most (stream.max_clients); try again later"
            case .address(let maximum):
                "the server streams to \(maximum) clients at most from one address (stream.max_clients_per_address)"
            }
            throw Problem(.webStreamFull, detail: detail)
        }
    }

    /// One page of the change log, for a client that polls.
    struct ChangePage: Encodable {
        /// Entries after `after` (of the bridges asked for), oldest first: openings' changes, and bulk writes'
        /// summaries (`kind` `bulk`: read those openings again).
        let changes: [ChangeOutput]
        /// Where the next page starts: give it as `after` (or `Last-Event-ID`).
        let next: Int64
        /// The numbers the log holds now.
        let oldest: Int64?
        let newest: Int64
        /// True when the log no longer holds the changes right after `after` (pruned, or a number from another
        /// store): the page starts at the oldest kept, and the client must read the state again.
        let resync: Bool
    }

    func page(after: Int64, bridgeIDs: Set<String>?, limit: Int) async throws -> ChangePage {
        let bounds = try await web.store.changeLogBounds()
        let resync = !bounds.continues(after: after)
        let start = resync ? max((bounds.oldest ?? 1) - 1, 0) : after
        let changes = try await web.store.changes(after: start, bridgeIDs: bridgeIDs.map { Array($0).sorted() }, limit: limit)
        // Past the last change read; a page that came back short has read the log to its end as it stood.
        let next = changes.count == limit ? (changes.last?.sequence ?? start) : max(bounds.newest, changes.last?.sequence ?? start)
        let names = await web.changes.names.names(for: changes)
        return ChangePage(changes: changes.map { ChangeOutput($0, names: names, clock: web.app.clock) }, next: next, oldest: bounds.oldest, newest: bounds.newest, resync: resync)
    }

    /// Whether an `Accept` header asks for `text/event-stream` with a quality above 0 (RFC 9110: `q=0` means "not
    /// acceptable"); a wildcard alone gets the JSON page.
    static func acceptsEventStream(_ header: String?) -> Bool {
        guard let header else { return false }
        return header.split(separator: ",").contains { range in
            let parts = range.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard parts.first == "text/event-stream" else { return false }
            for parameter in parts.dropFirst() where parameter.hasPrefix("q=") {
                guard let quality = Double(parameter.dropFirst(2)), quality.isFinite, quality > 0 else { return false }
            }
            return true
        }
    }

    // `HTTPField.Name(_:)` is nil only for a name that is not a token: these two are.
    static let lastEventID = HTTPField.Name("Last-Event-ID")!
    static let accelBuffering = HTTPField.Name("X-Accel-Buffering")! // a token, as above

    /// An event of the stream's own (no id, so a client's Last-Event-ID stays the last change it got).
    static func control(_ name: String, _ fields: [String: String], retry: Int? = nil) -> ByteBuffer {
        let data = (try? AnswerJSON.line(fields)) ?? "{}"
        return ByteBuffer(string: (retry.map { "retry: \($0)\n" } ?? "") + "event: \(name)\ndata: \(data)\n\n")
    }
}

/// One client's stream as it runs: what it was sent (`sent`, a change number), and the hub's client it reads from.
private struct StreamRun {
    var client: ChangeHub.Client
    var sent: Int64
    let store: any BridgeStore
    let bridgeIDs: [String]?
    let wanted: Set<String>?
    let hub: ChangeHub
    let stall: Duration
    let connection: ConnectionWatch

    /// The stream: its head, the changes after `resumingAfter` from the store (or a `resync` when the log no longer
    /// holds them), the hub's, and the control event that ends it.
    mutating func run(resumingAfter last: Int64?, bounds: ChangeLogBounds, joinedAt: Int64,
                      writer: inout any ResponseBodyWriter) async throws {
        var reading = try await write(ByteBuffer(string: ": bridget change stream\nretry: 3000\n\n"), to: &writer)
        if let last {
            if bounds.continues(after: last) {
                // Caught up from the store to where the hub stood when this client joined; the hub has the rest.
                sent = last
                reading = try await catchUp(through: joinedAt, writer: &writer)
            } else {
                reading = try await write(StreamController.control("resync", [
                    "reason": "the change log no longer holds the changes after \(last); read the state again",
                    "lastEventID": "\(last)", "oldest": bounds.oldest.map(String.init) ?? "", "newest": "\(joinedAt)",
                ]), to: &writer)
            }
        }
        var ending: ChangeHub.Ending?
        while reading, !connection.isClosed {
            reading = try await relay(writer: &writer)
            guard reading else { break }
            ending = client.endedBecause
            // Behind (a burst larger than the queue): the rest comes from the store, then the hub again. Memory
            // never holds more than a page for this client.
            guard ending == .behind, let (next, cursor) = try await hub.subscribe(bridgeIDs: wanted) else { break }
            client.cancel()
            client = next
            connection.follow(next)
            ending = nil
            reading = try await catchUp(through: cursor, writer: &writer)
        }
        if connection.isClosed { return }
        if !reading {
            _ = try? await write(StreamController.control("dropped", [
                "reason": "this client did not take what was sent for \(stall); connect again with Last-Event-ID",
                "lastEventID": "\(sent)",
            ], retry: 5_000), to: &writer)
        } else if ending == .shutdown || client.endedBecause == .shutdown {
            _ = try await write(StreamController.control("shutdown", [
                "reason": "the server is stopping; connect again with Last-Event-ID", "lastEventID": "\(sent)",
            ], retry: 3_000), to: &writer)
        }
        try await writer.finish(nil)
    }

    /// Sends what the hub gives this client until its queue ends; false when the client stopped reading.
    private mutating func relay(writer: inout any ResponseBodyWriter) async throws -> Bool {
        for await item in client.stream {
            client.took(item)
            var reading = true
            switch item {
            case .changes(let batch):
                guard let last = batch.sequences.last, last > sent else { continue }
                if batch.sequences[0] > sent {
                    reading = try await write(batch.combined, to: &writer)
                } else {
                    // Caught up from the store past the batch's start: only what is new.
                    var rest = ByteBuffer()
                    for (sequence, event) in zip(batch.sequences, batch.events) where sequence > sent {
                        rest.writeImmutableBuffer(event)
                    }
                    reading = try await write(rest, to: &writer)
                }
                sent = last
            case .heartbeat:
                reading = try await write(ByteBuffer(string: ": heartbeat\n\n"), to: &writer)
            }
            if !reading { return false }
        }
        return true
    }

    /// Writes `buffer`; false when the client took longer than `stream.stall_seconds` to take it (it is not
    /// reading: it is dropped).
    private func write(_ buffer: ByteBuffer, to writer: inout any ResponseBodyWriter) async throws -> Bool {
        let started = ContinuousClock.now
        try await writer.write(buffer)
        return ContinuousClock.now - started <= stall
    }

    /// The changes after `sent` up to `through`, from the store, a page at a time (one write a page).
    private mutating func catchUp(through newest: Int64, writer: inout any ResponseBodyWriter) async throws -> Bool {
        while sent < newest, !connection.isClosed {
            let page = try await store.changes(after: sent, bridgeIDs: bridgeIDs, limit: StreamController.backfillPage)
            let names = await hub.names.names(for: page)
            var events = ByteBuffer()
            var through = sent
            for change in page where change.sequence <= newest {
                events.writeImmutableBuffer(try ChangeHub.event(change, names: names, clock: hub.clock))
                through = change.sequence
            }
            if events.readableBytes > 0 {
                guard try await write(events, to: &writer) else { return false }
                sent = through
            }
            guard let last = page.last?.sequence, page.count == StreamController.backfillPage else { break }
            sent = max(sent, min(last, newest))
        }
        sent = max(sent, newest) // what remains up to `newest` is other bridges'
        return true
    }
}

/// A stream's connection as its handler sees it: closed (the client left) or not, and the hub client to end when it
/// closes.
final class ConnectionWatch: Sendable {
    private let state: Locked<(closed: Bool, client: ChangeHub.Client)>

    init(_ client: ChangeHub.Client) { state = Locked((false, client)) }

    var isClosed: Bool { state.withLock { $0.closed } }

    /// The client to end when the connection closes (it is ended at once if it has).
    func follow(_ client: ChangeHub.Client) {
        if state.withLock({ state -> Bool in
            state.client = client
            return state.closed
        }) { client.cancel() }
    }

    func close() {
        state.withLock { state -> ChangeHub.Client in
            state.closed = true
            return state.client
        }.cancel()
    }
}
