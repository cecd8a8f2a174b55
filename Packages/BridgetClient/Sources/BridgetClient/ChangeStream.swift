import Foundation
import OpenAPIRuntime
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One event of the change stream.
public enum StreamChange: Sendable, Hashable {
    /// A change to one stored opening, with its bridge's name and local times.
    case opening(Components.Schemas.OpeningChange)
    /// A bulk write's summary (an import, a backfill): read those openings again (`eventPages`).
    case bulk(Components.Schemas.BulkChange)
    /// The server no longer holds the changes after the last one received: read the state again.
    case resync(reason: String)

    /// The change's number in the log (`nil` for a resync).
    public var sequence: Int64? {
        switch self {
        case .opening(let change): Int64(change.sequence)
        case .bulk(let summary): Int64(summary.sequence)
        case .resync: nil
        }
    }
}

/// The change stream (`GET /v1/stream`, Server-Sent Events) as an `AsyncSequence`, decoded with
/// swift-openapi-runtime's server-sent-events decoding and opened again after a drop with `Last-Event-ID`.
///
/// Read with URLSession's data delegate, which hands over the bytes as they arrive on every platform (the generated
/// client's URLSession transport buffers a whole body where it cannot stream, and a stream has no end).
public struct ChangeStream: AsyncSequence, Sendable {
    public typealias Element = StreamChange

    let serverURL: URL
    let session: URLSession
    let token: String?
    let bridges: [String]
    let after: Int64?
    let reconnectDelay: Duration
    let maximumAttempts: Int

    public func makeAsyncIterator() -> AsyncThrowingStream<StreamChange, any Error>.Iterator {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: StreamChange.self)
        let task = Task { await run(continuation) }
        continuation.onTermination = { _ in task.cancel() }
        return stream.makeAsyncIterator()
    }

    /// Connects, yields each change, and connects again after a drop from the last change received, until cancelled.
    private func run(_ output: AsyncThrowingStream<StreamChange, any Error>.Continuation) async {
        var last = after
        var failures = 0
        var wait = reconnectDelay
        while !Task.isCancelled {
            do {
                for try await event in try await connect(after: last).asDecodedServerSentEvents() {
                    if let retry = event.retry { wait = Swift.min(.milliseconds(Swift.max(0, retry)), reconnectDelay) }
                    guard let change = try Self.change(event) else { continue }
                    if let sequence = change.sequence { last = sequence }
                    failures = 0
                    output.yield(change)
                }
            } catch is CancellationError {
                break
            } catch BridgetClientError.status(let code, let detail) where (400..<500).contains(code) && code != 408
                && code != 429 {
                // The request itself is wrong (an unknown bridge, a bad id): asking again cannot help.
                output.finish(throwing: BridgetClientError.status(code, detail: detail))
                return
            } catch {
                failures += 1
                if failures >= maximumAttempts {
                    output.finish(throwing: BridgetClientError.streamFailed(attempts: failures, last: "\(error)"))
                    return
                }
            }
            // The stream ended (the server stopped, a proxy cut it) or failed: again from the last change received.
            do { try await Task.sleep(for: wait) } catch { break }
        }
        output.finish()
    }

    /// The event's change; `nil` for an event that is not one (a heartbeat comment never reaches here).
    static func change(_ event: ServerSentEvent) throws -> StreamChange? {
        let decoder = BridgetDates.decoder
        let data = Data((event.data ?? "").utf8)
        do {
            switch event.event {
            case "change": return .opening(try decoder.decode(Components.Schemas.OpeningChange.self, from: data))
            case "bulk": return .bulk(try decoder.decode(Components.Schemas.BulkChange.self, from: data))
            case "resync":
                let fields = try JSONDecoder().decode([String: String].self, from: data)
                return .resync(reason: fields["reason"] ?? "")
            default: return nil // `dropped`, `shutdown`: the connection ends, and is opened again
            }
        } catch {
            throw BridgetClientError.malformed("a stream event '\(event.event ?? "")' whose data is not its JSON: \(error)")
        }
    }

    /// Opens the stream after `last`, returning its bytes as they arrive.
    private func connect(after last: Int64?) async throws -> AsyncThrowingStream<ArraySlice<UInt8>, any Error> {
        var components = URLComponents(url: serverURL.appendingPathComponent("v1/stream"), resolvingAgainstBaseURL: false)
        if !bridges.isEmpty { components?.queryItems = bridges.map { URLQueryItem(name: "bridge", value: $0) } }
        guard let url = components?.url else { throw BridgetClientError.malformed("the server URL \(serverURL)") }
        var request = URLRequest(url: url)
        request.setValue("text/event-stream", forHTTPHeaderField: "Accept")
        if let last { request.setValue(String(last), forHTTPHeaderField: "Last-Event-ID") }
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        // Idle time between bytes: the server's heartbeats come well within it.
        request.timeoutInterval = 120
        let (bytes, continuation) = AsyncThrowingStream.makeStream(of: ArraySlice<UInt8>.self)
        let delegate = StreamDelegate(continuation)
        let connection = URLSession(configuration: session.configuration, delegate: delegate, delegateQueue: nil)
        let task = connection.dataTask(with: request)
        continuation.onTermination = { _ in
            task.cancel()
            connection.finishTasksAndInvalidate()
        }
        task.resume()
        return bytes
    }
}

/// Hands a response's bytes to a stream as they arrive; a status other than 200 ends it with that status.
private final class StreamDelegate: NSObject, URLSessionDataDelegate, Sendable {
    private let continuation: AsyncThrowingStream<ArraySlice<UInt8>, any Error>.Continuation

    init(_ continuation: AsyncThrowingStream<ArraySlice<UInt8>, any Error>.Continuation) {
        self.continuation = continuation
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void) {
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard status == 200 else {
            continuation.finish(throwing: BridgetClientError.status(status, detail: nil))
            completionHandler(.cancel)
            return
        }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        continuation.yield(ArraySlice(data))
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        continuation.finish(throwing: error)
    }
}
