import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A raw TCP connection to a server on 127.0.0.1 (the in-process server's tests, and the built executable's), for what
/// an HTTP client will not do: say nothing, send half a head
/// or half a body, send bytes that are not HTTP, hang up mid-request. Blocking POSIX calls run on a thread of their
/// own, never on the tasks' threads the server in the same process answers on.
public final class RawConnection: Sendable {
    private let socket: Int32

    /// Connects `socket` to 127.0.0.1:`port`; false when nothing listens there.
    public static func connect(_ socket: Int32, toLoopbackPort port: Int) -> Bool {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        } == 0
    }

    /// The longest a read waits for the server: a hang detector, not a timing.
    public static let hangDetector: Int32 = 120_000

    /// Connects to 127.0.0.1:`port`; `receiveBuffer`, when given, is the socket's receive buffer in bytes (a small one
    /// fills at once: a client that never reads).
    public init(port: Int, receiveBuffer: Int32? = nil) throws {
        socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        if var size = receiveBuffer {
            setsockopt(socket, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        guard Self.connect(socket, toLoopbackPort: port) else {
            close(socket)
            throw POSIXError(.ECONNREFUSED)
        }
    }

    deinit { close(socket) }

    /// Sends `bytes` whole; false when the server has closed the connection.
    @discardableResult
    public func send(_ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let written = bytes.withUnsafeBytes { Glibc.send(socket, $0.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL)) }
            guard written > 0 else { return false }
            sent += written
        }
        return true
    }

    @discardableResult
    public func send(_ text: String) -> Bool { send(Array(text.utf8)) }

    /// Ends the connection from this side (a client that hangs up).
    public func hangUp() { shutdown(socket, Int32(SHUT_RDWR)) }

    /// Whether the server sends anything (or closes) within `milliseconds`, without reading it.
    public func hasNews(within milliseconds: Int32) async -> Bool {
        let socket = self.socket
        return await Self.blocking {
            var entry = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            return poll(&entry, 1, milliseconds) > 0
        }
    }

    /// What the server sends until it closes the connection; `closed` is false when it did not within the hang
    /// detector.
    public func receiveUntilClosed() async -> (data: Data, closed: Bool) {
        let socket = self.socket
        return await Self.blocking {
            var data = Data()
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                var entry = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
                guard poll(&entry, 1, Self.hangDetector) > 0 else { return (data, false) }
                let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
                guard count > 0 else { return (data, true) }
                data.append(contentsOf: buffer[0..<count])
            }
        }
    }

    /// One response: its head and a body of its `Content-Length`; `nil` when the connection closed first.
    public func receiveResponse() async -> RawResponse? {
        let socket = self.socket
        return await Self.blocking {
            var data = Data()
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                if let response = RawResponse(data) { return response }
                var entry = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
                guard poll(&entry, 1, Self.hangDetector) > 0 else { return nil }
                let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
                guard count > 0 else { return RawResponse(data) }
                data.append(contentsOf: buffer[0..<count])
            }
        }
    }

    /// `work`'s result, computed on a thread of its own; with `computing`, one of lower priority (a nice of 10):
    /// seconds of arithmetic that must not take the CPU from the in-process servers and clients of other tests.
    public static func blocking<T: Sendable>(computing: Bool = false, _ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                if computing { _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10) }
                continuation.resume(returning: work())
            }
        }
    }
}

/// An HTTP/1.1 response as bytes arrived: its status, headers (names in lower case) and body.
public struct RawResponse: Sendable {
    public let status: Int
    public let headers: [String: String]
    public let body: String

    /// The response at the start of `data`, once its head and its `Content-Length` of body have arrived.
    public init?(_ data: Data) {
        guard let end = data.range(of: Data("\r\n\r\n".utf8)) else { return nil }
        let head = String(decoding: data[..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        guard let statusLine = head.first, let code = statusLine.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
        else { return nil }
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let body = data[end.upperBound...]
        let length = headers["content-length"].flatMap { Int($0) } ?? 0
        guard body.count >= length else { return nil }
        status = code
        self.headers = headers
        self.body = String(decoding: body.prefix(length), as: UTF8.self)
    }
}

extension RawConnection {
    /// Sends the head of a `PUT` of `path` with the bearer `token`, promising a body of `length` bytes, and the
    /// body's first bytes only: a request the server waits on.
    public func sendUnfinishedPut(_ path: String, token: String, length: Int = 1_000) {
        send("PUT \(path) HTTP/1.1\r\nHost: bridget\r\nAuthorization: Bearer \(token)\r\n"
             + "Content-Type: application/json\r\nContent-Length: \(length)\r\n\r\n{\"crossings\": [")
    }
}
