import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A receiver of alert messages on 127.0.0.1 for the tests: it records every POST (headers, body) and answers each
/// with the status its script gives (then 204), with `Retry-After` on a 429. It can go down (stop listening, refuse
/// connections) and come back on the same port. A GET is answered with `getBody` (a map tile, for the pages' tests)
/// and recorded too. Blocking socket calls run on threads of their own.
public final class WebhookReceiver: @unchecked Sendable {
    /// One request as it arrived.
    public struct Delivery: Sendable {
        public let path: String
        public let headers: [String: String]
        public let body: Data
        public let answered: Int
    }

    /// An answer beyond a bare status: what a misbehaving receiver sends.
    public enum Reply: Sendable {
        /// A status with these headers and no body.
        case status(Int, headers: [(String, String)])
        /// A status whose body (`prefix`, then zeros) is `bytes` long, as its Content-Length says; sent until the client
        /// stops taking it.
        case body(Int, headers: [(String, String)], bytes: Int, prefix: [UInt8])
        /// A status whose Content-Length promises `declared` bytes, of which `sent` come; then nothing, until the client
        /// gives up.
        case stops(Int, declared: Int, sent: [UInt8])
        /// A status whose body comes a byte every `every`, until the client gives up.
        case drip(Int, every: Duration)
    }

    private let lock = NSLock()
    private var listener: Int32 = -1
    private var script: [Int] = []
    private var replies: [Reply] = []
    private var sentBodies: [Int] = []
    /// The address listened on.
    public let host: String
    private var received: [Delivery] = []
    /// What a GET is answered with, and its type.
    private let getBody: (data: Data, type: String)?
    public private(set) var port: Int = 0

    /// Starts listening on a free port.
    public init(script: [Int] = [], getBody: (data: Data, type: String)? = nil, host: String = "127.0.0.1",
                port: Int = 0) throws {
        self.script = script
        self.getBody = getBody
        self.host = host
        try listen(port: port)
    }

    /// Answers the next requests (before any scripted status) with these replies.
    public func reply(_ answers: [Reply]) { lock.withLock { replies.append(contentsOf: answers) } }

    /// For each reply with a body, how many of its bytes the client took before it closed the connection.
    public var bodyBytesSent: [Int] { lock.withLock { sentBodies } }

    /// A 1×1 PNG, a map tile's stand-in.
    public static let pixel = Data([
        0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52, 0x00, 0x00, 0x00,
        0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x02, 0x00, 0x00, 0x00, 0x90, 0x77, 0x53, 0xDE, 0x00, 0x00, 0x00, 0x0C, 0x49,
        0x44, 0x41, 0x54, 0x08, 0xD7, 0x63, 0xF8, 0xCF, 0xC0, 0x00, 0x00, 0x03, 0x01, 0x01, 0x00, 0x18, 0xDD, 0x8D, 0xB0,
        0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82,
    ])

    deinit { down() }

    /// Every request so far.
    public var deliveries: [Delivery] { lock.withLock { received } }

    /// A status in a script that means: answer nothing, hold the connection (a receiver that hangs).
    public static let hang = 0

    /// Answers the next requests with these statuses.
    public func answer(_ statuses: [Int]) { lock.withLock { script.append(contentsOf: statuses) } }

    /// Stops listening: connections are refused until `up()`.
    public func down() {
        let socket = lock.withLock { () -> Int32 in
            defer { listener = -1 }
            return listener
        }
        if socket >= 0 {
            shutdown(socket, Int32(SHUT_RDWR))
            close(socket)
        }
    }

    /// Listens again on the same port.
    public func up() throws { try listen(port: port) }

    private func listen(port wanted: Int) throws {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var yes: Int32 = 1
        setsockopt(socket, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(wanted).bigEndian
        _ = inet_pton(AF_INET, host, &address.sin_addr)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, Glibc.listen(socket, 128) == 0 else {
            close(socket)
            throw POSIXError(.EADDRINUSE)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) }
        }
        lock.withLock {
            listener = socket
            port = Int(UInt16(bigEndian: address.sin_port))
        }
        Thread.detachNewThread { [self] in acceptLoop(socket) }
    }

    private func acceptLoop(_ socket: Int32) {
        while true {
            let connection = accept(socket, nil, nil)
            guard connection >= 0 else { return }
            Thread.detachNewThread { [self] in serve(connection) }
        }
    }

    private func serve(_ connection: Int32) {
        defer { close(connection) }
        var data = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            // The head, then a body of its Content-Length.
            if let end = Self.find([13, 10, 13, 10], in: data) {
                let lines = String(decoding: data[..<end], as: UTF8.self).components(separatedBy: "\r\n")
                var headers: [String: String] = [:]
                for line in lines.dropFirst() {
                    guard let colon = line.firstIndex(of: ":") else { continue }
                    headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                }
                let length = headers["content-length"].flatMap { Int($0) } ?? 0
                if data.count >= end + 4 + length {
                    let path = lines.first?.split(separator: " ").dropFirst().first.map(String.init) ?? "/"
                    if lines.first?.hasPrefix("GET ") == true, let getBody {
                        lock.withLock { received.append(Delivery(path: path, headers: headers, body: Data(), answered: 200)) }
                        let head = Array("HTTP/1.1 200 OK\r\nContent-Type: \(getBody.type)\r\nContent-Length: \(getBody.data.count)\r\n"
                            .utf8) + Array("Connection: close\r\n\r\n".utf8) + Array(getBody.data)
                        _ = head.withUnsafeBytes { send(connection, $0.baseAddress!, head.count, Int32(MSG_NOSIGNAL)) }
                        return
                    }
                    let body = Data(data[(end + 4)..<(end + 4 + length)])
                    if let reply = lock.withLock({ replies.isEmpty ? nil : replies.removeFirst() }) {
                        lock.withLock { received.append(Delivery(path: path, headers: headers, body: body, answered: reply.status)) }
                        answer(reply, on: connection)
                        return
                    }
                    let status = lock.withLock { script.isEmpty ? 204 : script.removeFirst() }
                    lock.withLock { received.append(Delivery(path: path, headers: headers, body: body, answered: status)) }
                    if status == Self.hang { // no answer: read until the client gives up and closes
                        while buffer.withUnsafeMutableBytes({ recv(connection, $0.baseAddress, $0.count, 0) }) > 0 {}
                        return
                    }
                    var answer = "HTTP/1.1 \(status) X\r\nContent-Length: 0\r\nConnection: close\r\n"
                    if status == 429 || status == 503 { answer += "Retry-After: 1\r\n" }
                    answer += "\r\n"
                    let bytes = Array(answer.utf8)
                    _ = bytes.withUnsafeBytes { send(connection, $0.baseAddress!, bytes.count, Int32(MSG_NOSIGNAL)) }
                    return
                }
            }
            let count = buffer.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return }
            data.append(contentsOf: buffer[0..<count])
        }
    }

    /// Sends `bytes`; false once the client is gone.
    private static func write(_ bytes: [UInt8], on connection: Int32) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(connection, $0.baseAddress!, $0.count, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { return false }
            offset += sent
        }
        return true
    }

    private func answer(_ reply: Reply, on connection: Int32) {
        func head(_ status: Int, _ headers: [(String, String)], length: Int) -> [UInt8] {
            Array(("HTTP/1.1 \(status) X\r\nContent-Length: \(length)\r\n"
                   + headers.map { "\($0.0): \($0.1)\r\n" }.joined() + "\r\n").utf8)
        }
        var sent = 0
        defer { if case .status = reply {} else { lock.withLock { sentBodies.append(sent) } } }
        switch reply {
        case .status(let status, let headers):
            _ = Self.write(head(status, headers, length: 0), on: connection)
        case .body(let status, let headers, let bytes, let prefix):
            guard Self.write(head(status, headers, length: bytes), on: connection) else { return }
            var chunk = prefix + [UInt8](repeating: 0, count: max(0, 65_536 - prefix.count))
            while sent < bytes {
                chunk = Array(chunk.prefix(bytes - sent))
                guard Self.write(chunk, on: connection) else { return }
                sent += chunk.count
                chunk = [UInt8](repeating: 0, count: 65_536)
            }
        case .stops(let status, let declared, let part):
            guard Self.write(head(status, [], length: declared) + part, on: connection) else { return }
            sent = part.count
            var buffer = [UInt8](repeating: 0, count: 4_096)
            while buffer.withUnsafeMutableBytes({ recv(connection, $0.baseAddress, $0.count, 0) }) > 0 {}
        case .drip(let status, let every):
            guard Self.write(head(status, [], length: 100_000_000), on: connection) else { return }
            while Self.write([UInt8(ascii: "x")], on: connection) {
                sent += 1
                Thread.sleep(forTimeInterval: Double(every.components.attoseconds) / 1e18 + Double(every.components.seconds))
            }
        }
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for start in 0...(haystack.count - needle.count) where haystack[start] == needle[0] {
            if Array(haystack[start..<(start + needle.count)]) == needle { return start }
        }
        return nil
    }
}

extension WebhookReceiver.Reply {
    var status: Int {
        switch self {
        case .status(let status, _), .body(let status, _, _, _), .stops(let status, _, _), .drip(let status, _): status
        }
    }
}
