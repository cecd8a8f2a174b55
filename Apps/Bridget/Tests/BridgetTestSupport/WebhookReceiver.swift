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

    private let lock = NSLock()
    private var listener: Int32 = -1
    private var script: [Int] = []
    private var received: [Delivery] = []
    /// What a GET is answered with, and its type.
    private let getBody: (data: Data, type: String)?
    public private(set) var port: Int = 0

    /// Starts listening on a free port.
    public init(script: [Int] = [], getBody: (data: Data, type: String)? = nil) throws {
        self.script = script
        self.getBody = getBody
        try listen(port: 0)
    }

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
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
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
                    let status = lock.withLock { script.isEmpty ? 204 : script.removeFirst() }
                    let body = Data(data[(end + 4)..<(end + 4 + length)])
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

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for start in 0...(haystack.count - needle.count) where haystack[start] == needle[0] {
            if Array(haystack[start..<(start + needle.count)]) == needle { return start }
        }
        return nil
    }
}
