import BridgetApp
import BridgetDTOs
import BridgetPersistence
import Foundation
import HTTPTypes
import Hummingbird

/// `GET /v1/stream`: the change log as Server-Sent Events.
///
/// Each event's `id` is the change's number: a client that reconnects with `Last-Event-ID` (or `?after=`) gets exactly
/// the changes after it (read from the store up to where the hub stood when it joined, then the hub's), or, when the
/// log no longer holds them, a `resync` event first. A comment line is a heartbeat. A client too slow to keep up is
/// sent a `dropped` event with a `retry` hint and the stream ends; so does every stream when the server stops
/// (`shutdown`). Reconnecting with the last id received resumes without a gap or a repeat.
struct StreamController {
    let web: WebContext

    /// Changes read from the store at once while catching a client up.
    static let backfillPage = 500

    func addRoutes(to endpoints: Endpoints) {
        endpoints.get("/v1/stream") { request, _ in try await stream(request) }
    }

    func stream(_ request: Request) async throws -> Response {
        let query = Query(request)
        var wanted: Set<String>?
        let named = query.all("bridge")
        if !named.isEmpty {
            var ids = Set<String>()
            for text in named { ids.insert(try await web.catalogBridge(text).id) }
            wanted = ids
        }
        var last: Int64?
        if let text = request.headers[Self.lastEventID] ?? query["after"] {
            guard let number = Int64(text.trimmingCharacters(in: .whitespaces)), number >= 0 else {
                throw Problem.badParameter("Last-Event-ID", "'\(text)' is not an event id this stream gave (a whole number)")
            }
            last = number
        }
        guard let (client, joinedAt) = try await web.changes.subscribe(bridgeIDs: wanted) else {
            throw Problem(status: .serviceUnavailable, type: "shutting-down", title: "The server is stopping",
                          detail: "the server is stopping; connect again", headers: [.retryAfter: "5"])
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
        let headers: HTTPFields = [.contentType: "text/event-stream; charset=utf-8", .cacheControl: "no-store",
                                   Self.accelBuffering: "no"]
        return Response(status: .ok, headers: headers, body: ResponseBody { writer in
            defer { client.cancel() }
            var sent = joinedAt
            try await writer.write(ByteBuffer(string: ": bridget change stream\nretry: 3000\n\n"))
            if let last = resumeAfter {
                if bounds.continues(after: last) {
                    // Caught up from the store to where the hub stood when this client joined; the hub has the rest.
                    var cursor = last
                    while cursor < joinedAt {
                        let page = try await store.changes(after: cursor, bridgeIDs: bridgeIDs, limit: Self.backfillPage)
                        for change in page where change.sequence <= joinedAt {
                            try await writer.write(try ChangeHub.event(change))
                        }
                        guard let newest = page.last?.sequence else { break }
                        cursor = newest
                        if page.count < Self.backfillPage { break }
                    }
                } else {
                    try await writer.write(Self.control("resync", [
                        "reason": "the change log no longer holds the changes after \(last); read the state again",
                        "lastEventID": "\(last)", "oldest": bounds.oldest.map(String.init) ?? "", "newest": "\(joinedAt)",
                    ]))
                }
            }
            for await item in client.stream {
                if client.endedBecause == .tooSlow { break }
                switch item {
                case .change(let sequence, _, let event):
                    guard sequence > sent else { continue }
                    try await writer.write(event)
                    sent = sequence
                case .heartbeat:
                    try await writer.write(ByteBuffer(string: ": heartbeat\n\n"))
                }
            }
            switch client.endedBecause {
            case .tooSlow:
                try await writer.write(Self.control("dropped", [
                    "reason": "this client fell behind the changes; connect again with Last-Event-ID", "lastEventID": "\(sent)",
                ], retry: 5_000))
            case .shutdown:
                try await writer.write(Self.control("shutdown", [
                    "reason": "the server is stopping; connect again with Last-Event-ID", "lastEventID": "\(sent)",
                ], retry: 3_000))
            case nil: break
            }
            try await writer.finish(nil)
        })
    }

    static let lastEventID = HTTPField.Name("Last-Event-ID")!
    static let accelBuffering = HTTPField.Name("X-Accel-Buffering")!

    /// An event of the stream's own (no id, so a client's Last-Event-ID stays the last change it got).
    static func control(_ name: String, _ fields: [String: String], retry: Int? = nil) -> ByteBuffer {
        let data = (try? AnswerJSON.line(fields)) ?? "{}"
        return ByteBuffer(string: (retry.map { "retry: \($0)\n" } ?? "") + "event: \(name)\ndata: \(data)\n\n")
    }
}
