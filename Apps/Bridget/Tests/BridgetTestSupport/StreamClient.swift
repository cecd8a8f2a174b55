import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One Server-Sent Event as a stream client reads it.
public struct StreamEvent: Sendable, Equatable {
    /// The `id:` field, if any.
    public let id: String?
    /// The `event:` field (`message` when absent).
    public let event: String
    /// The `data:` lines, joined by newlines.
    public let data: String
    /// The `retry:` field, if any.
    public let retry: Int?
}

/// A client of `GET /v1/stream` over a raw socket on 127.0.0.1: sends the request (with `Last-Event-ID` when
/// given), reads the chunked body on a thread of its own and hands each event on as it arrives. Comments
/// (heartbeats) are not handed on. Ends when the server closes the stream or `hangUp()` is called.
public final class StreamClient: Sendable {
    /// The response's status and headers (names in lower case), once read.
    public struct Head: Sendable {
        public let status: Int
        public let headers: [String: String]
    }

    public let events: AsyncStream<StreamEvent>
    private let continuation: AsyncStream<StreamEvent>.Continuation
    private let socket: Int32
    private let state = NSLock()
    nonisolated(unsafe) private var headValue: Head?

    public init(port: Int, path: String = "/v1/stream", lastEventID: String? = nil) throws {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.socket = socket
        guard RawConnection.connect(socket, toLoopbackPort: port) else {
            Glibc.close(socket)
            throw POSIXError(.ECONNREFUSED)
        }
        (events, continuation) = AsyncStream<StreamEvent>.makeStream()
        var request = "GET \(path) HTTP/1.1\r\nHost: bridget\r\nAccept: text/event-stream\r\n"
        if let lastEventID { request += "Last-Event-ID: \(lastEventID)\r\n" }
        request += "\r\n"
        let bytes = Array(request.utf8)
        _ = bytes.withUnsafeBytes { Glibc.send(socket, $0.baseAddress!, bytes.count, Int32(MSG_NOSIGNAL)) }
        Thread.detachNewThread { [self] in self.read(socket) }
    }

    deinit { Glibc.close(socket) }

    /// The response's head, once it has arrived.
    public var head: Head? { state.withLock { headValue } }

    /// Hangs up (a client that goes away); the events end.
    public func hangUp() { shutdown(socket, Int32(SHUT_RDWR)) }

    /// Events until `count` have arrived or the stream ends; a hang detector of 120 s ends the wait too.
    public func next(_ count: Int) async -> [StreamEvent] {
        var got: [StreamEvent] = []
        guard count > 0 else { return got }
        let timer = Task { [continuation] in
            try await Task.sleep(for: .seconds(120))
            continuation.finish()
        }
        defer { timer.cancel() }
        for await event in events {
            got.append(event)
            if got.count == count { break }
        }
        return got
    }

    private func read(_ socket: Int32) {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var raw: [UInt8] = []       // bytes not yet parsed as the head or a chunk
        var text: [UInt8] = []      // the body, de-chunked, not yet parsed as events
        var inBody = false
        var chunked = false
        defer { continuation.finish() }
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return }
            raw.append(contentsOf: buffer[0..<count])
            if !inBody {
                guard let end = Self.find([13, 10, 13, 10], in: raw) else { continue }
                let lines = String(decoding: raw[..<end], as: UTF8.self).components(separatedBy: "\r\n")
                let status = lines.first?.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
                var headers: [String: String] = [:]
                for line in lines.dropFirst() {
                    guard let colon = line.firstIndex(of: ":") else { continue }
                    headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                }
                state.withLock { headValue = Head(status: status, headers: headers) }
                chunked = headers["transfer-encoding"]?.lowercased() == "chunked"
                raw.removeFirst(end + 4)
                inBody = true
            }
            if chunked {
                while let lineEnd = Self.find([13, 10], in: raw) {
                    let size = Int(String(decoding: raw[..<lineEnd], as: UTF8.self).split(separator: ";").first ?? "", radix: 16) ?? 0
                    guard raw.count >= lineEnd + 2 + size + 2 else { break }
                    if size == 0 { return }
                    text.append(contentsOf: raw[(lineEnd + 2)..<(lineEnd + 2 + size)])
                    raw.removeFirst(lineEnd + 2 + size + 2)
                }
            } else {
                text.append(contentsOf: raw)
                raw.removeAll()
            }
            while let end = Self.find([10, 10], in: text) {
                let block = String(decoding: text[..<end], as: UTF8.self)
                text.removeFirst(end + 2)
                parse(block)
            }
        }
    }

    private func parse(_ block: String) {
        var id: String?
        var event = "message"
        var data: [String] = []
        var retry: Int?
        var fields = 0
        for line in block.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix(":") { continue } // a comment: a heartbeat
            let parts = line.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0])
            var value = parts.count > 1 ? String(parts[1]) : ""
            if value.hasPrefix(" ") { value.removeFirst() }
            fields += 1
            switch name {
            case "id": id = value
            case "event": event = value
            case "data": data.append(value)
            case "retry": retry = Int(value)
            default: break
            }
        }
        guard fields > 0, !(data.isEmpty && retry != nil && id == nil && event == "message") else { return }
        continuation.yield(StreamEvent(id: id, event: event, data: data.joined(separator: "\n"), retry: retry))
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for start in 0...(haystack.count - needle.count) where haystack[start] == needle[0] {
            if Array(haystack[start..<(start + needle.count)]) == needle { return start }
        }
        return nil
    }
}
