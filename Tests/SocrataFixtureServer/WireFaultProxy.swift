import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Faults a well-formed HTTP server cannot make: bytes on the wire that break HTTP's own promises.
public enum WireFault: Sendable, Equatable {
    /// The upstream's `Content-Length`, then half the body, then the connection closes.
    case cutBody
    /// No `Content-Length` (a body that ends when the connection does), and the connection closes mid-JSON.
    case closeMidBody
    /// The body one byte every `interval` seconds, until the client hangs up.
    case drip(interval: TimeInterval)
    /// A gzip body (`Content-Encoding: gzip`) that expands to `expandedBytes` bytes.
    case gzipBomb(expandedBytes: Int)
    /// A `Content-Length` of `bytes` announced, then spaces sent until the client hangs up (64 MiB at most).
    case declaredLength(Int64)

    /// Parses a plan item: `cut`, `eof`, `drip[:SECONDS]`, `gzipbomb[:BYTES]`, `declared:BYTES`.
    public init?(plan text: String) {
        let parts = text.split(separator: ":", maxSplits: 1).map(String.init)
        switch (parts.first ?? "", parts.count > 1 ? parts[1] : nil) {
        case ("cut", nil): self = .cutBody
        case ("eof", nil): self = .closeMidBody
        case ("drip", let seconds): self = .drip(interval: seconds.flatMap(TimeInterval.init) ?? 0.1)
        case ("gzipbomb", let bytes): self = .gzipBomb(expandedBytes: bytes.flatMap(Int.init) ?? 200_000_000)
        case ("declared", let bytes?):
            guard let bytes = Int64(bytes) else { return nil }
            self = .declaredLength(bytes)
        default: return nil
        }
    }
}

/// An HTTP/1.1 proxy on 127.0.0.1 in front of a fixture server, which answers most requests by forwarding them and
/// the next ones with a queued `WireFault`. Plain POSIX sockets and one thread a connection, so it can do what a
/// server library never would (close mid-body, drip, lie about lengths); each connection serves one request.
///
/// It also logs every request's headers, so a test can use it as "another origin" and see what reached it.
public final class WireFaultProxy: Sendable {
    /// One request as the proxy saw it.
    public struct LoggedRequest: Sendable {
        public let target: String
        /// Header fields with lower-cased names.
        public let headers: [String: String]
        /// The fault it was answered with, if any.
        public let fault: WireFault?
        /// Bytes of the response written before the connection ended.
        public let bytesWritten: Int
        /// Whether all of the response was written (false when the client hung up first).
        public let completed: Bool
    }

    private struct State {
        var faults: [WireFault] = []
        var log: [LoggedRequest] = []
        var listener: Int32 = -1
        var stopped = false
    }

    private let upstreamPort: UInt16
    private let state = Mutex(State())

    /// A proxy forwarding to the server at `upstream` (`http://127.0.0.1:PORT`).
    public init(upstream: URL) {
        upstreamPort = UInt16(upstream.port ?? 80)
    }

    /// Listens on 127.0.0.1:`port` (0 picks a free one); returns the proxy's base URL.
    public func start(port: UInt16 = 0) throws -> URL {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw URLError(.cannotConnectToHost) }
        var on: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        var address = Self.loopback(port: port)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(listener, 64) == 0 else {
            close(listener)
            throw URLError(.cannotConnectToHost)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        state.withLock { $0.listener = listener }
        let thread = Thread { [self] in acceptLoop(listener) }
        thread.start()
        return URL(string: "http://127.0.0.1:\(UInt16(bigEndian: address.sin_port))")!
    }

    /// Stops accepting connections.
    public func stop() {
        let listener = state.withLock { state -> Int32 in
            state.stopped = true
            defer { state.listener = -1 }
            return state.listener
        }
        if listener >= 0 {
            shutdown(listener, Int32(SHUT_RDWR))
            close(listener)
        }
    }

    /// Queues faults; each answers one request, in order.
    public func inject(_ faults: [WireFault]) { state.withLock { $0.faults += faults } }

    /// Every request so far.
    public var requests: [LoggedRequest] { state.withLock { $0.log } }

    /// Faults not yet used.
    public var pendingFaults: Int { state.withLock { $0.faults.count } }

    // MARK: - Serving

    private func acceptLoop(_ listener: Int32) {
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else {
                if errno == EINTR { continue }
                return // the listener was closed
            }
            var on: Int32 = 1
            setsockopt(connection, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
            // A small send buffer, so what was written is close to what the client took (a client that stops
            // reading early leaves most of a large body unwritten).
            var buffer: Int32 = 65_536
            setsockopt(connection, SOL_SOCKET, SO_SNDBUF, &buffer, socklen_t(MemoryLayout<Int32>.size))
            Thread { [self] in
                serve(connection)
                close(connection)
            }.start()
        }
    }

    private func serve(_ connection: Int32) {
        guard let head = Self.readHead(connection) else { return }
        let lines = head.split(separator: "\r\n", omittingEmptySubsequences: false).map(String.init)
        let target = lines.first?.split(separator: " ").dropFirst().first.map(String.init) ?? "/"
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let fault = state.withLock { $0.faults.isEmpty ? nil : $0.faults.removeFirst() }
        var written = 0
        var completed = false
        if case .gzipBomb(let expanded)? = fault {
            let body = GzipBomb.make(expandedBytes: expanded)
            let response = Data(
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n".utf8) + body
            written = Self.write(connection, response)
            completed = written == response.count
        } else if let upstream = forward(target: target, headers: headers) {
            (written, completed) = answer(connection, upstream: upstream, fault: fault)
        } else {
            written = Self.write(connection, Data("HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8))
        }
        let entry = LoggedRequest(target: target, headers: headers, fault: fault, bytesWritten: written, completed: completed)
        state.withLock { $0.log.append(entry) }
    }

    /// Writes the upstream's response as is, or broken as `fault` says; returns the bytes written, and whether the
    /// response (as the fault shapes it) went out whole.
    private func answer(_ connection: Int32, upstream: (head: [String], body: Data), fault: WireFault?)
        -> (written: Int, completed: Bool)
    {
        let status = upstream.head.first ?? "HTTP/1.1 502 Bad Gateway"
        let kept = upstream.head.dropFirst().filter { line in
            let name = line.split(separator: ":").first.map { $0.lowercased() } ?? ""
            return !["content-length", "connection", "transfer-encoding", "keep-alive"].contains(name)
        }
        func head(_ extra: [String]) -> Data {
            Data(([status] + kept + extra + ["Connection: close", "", ""]).joined(separator: "\r\n").utf8)
        }
        let body = upstream.body
        switch fault {
        case nil, .gzipBomb:
            let response = head(["Content-Length: \(body.count)"]) + body
            let written = Self.write(connection, response)
            return (written, written == response.count)
        case .cutBody:
            let response = head(["Content-Length: \(body.count)"]) + body.prefix(body.count / 2)
            let written = Self.write(connection, response)
            return (written, written == response.count)
        case .closeMidBody:
            let response = head([]) + body.prefix(body.count / 2)
            let written = Self.write(connection, response)
            return (written, written == response.count)
        case .declaredLength(let bytes):
            var written = Self.write(connection, head(["Content-Length: \(bytes)"]))
            let filler = Data(repeating: UInt8(ascii: " "), count: 1 << 16)
            while written < Int(min(bytes, 1 << 26)) {
                let sent = Self.write(connection, filler)
                if sent < filler.count { break }
                written += sent
            }
            return (written, written >= Int(min(bytes, 1 << 26)))
        case .drip(let interval):
            var written = Self.write(connection, head(["Content-Length: \(body.count)"]))
            var sentBody = 0
            for byte in body {
                Thread.sleep(forTimeInterval: interval)
                guard Self.write(connection, Data([byte])) == 1 else { break }
                written += 1
                sentBody += 1
            }
            return (written, sentBody == body.count)
        }
    }

    /// Sends the request upstream and reads the whole response (one request a connection).
    private func forward(target: String, headers: [String: String]) -> (head: [String], body: Data)? {
        let upstream = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard upstream >= 0 else { return nil }
        defer { close(upstream) }
        var address = Self.loopback(port: upstreamPort)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(upstream, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { return nil }
        var request = "GET \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(upstreamPort)\r\nConnection: close\r\n"
        for (name, value) in headers where !["host", "connection", "accept-encoding"].contains(name) {
            request += "\(name): \(value)\r\n"
        }
        request += "\r\n"
        guard Self.write(upstream, Data(request.utf8)) == request.utf8.count,
              let head = Self.readHead(upstream) else { return nil }
        let lines = head.split(separator: "\r\n").map(String.init)
        let length = lines.lazy.compactMap { line -> Int? in
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2, parts[0].lowercased() == "content-length" else { return nil }
            return Int(parts[1].trimmingCharacters(in: .whitespaces))
        }.first
        var body = Data()
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while length.map({ body.count < $0 }) ?? true {
            let count = read(upstream, &buffer, buffer.count)
            if count <= 0 { break }
            body.append(contentsOf: buffer[0..<count])
        }
        return (lines, body)
    }

    /// Reads up to the blank line that ends a head; `nil` when the peer closed first.
    private static func readHead(_ socket: Int32) -> String? {
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while !(bytes.count >= 4 && bytes.suffix(4).elementsEqual([13, 10, 13, 10])) {
            guard read(socket, &byte, 1) == 1, bytes.count < 65_536 else { return nil }
            bytes.append(byte)
        }
        return String(decoding: bytes.dropLast(4), as: UTF8.self)
    }

    /// Writes all of `data` or until the peer hangs up (`MSG_NOSIGNAL`: a write to a closed connection fails with
    /// EPIPE instead of killing the process); returns the bytes written.
    @discardableResult
    private static func write(_ socket: Int32, _ data: Data) -> Int {
        data.withUnsafeBytes { raw -> Int in
            var written = 0
            while written < raw.count {
                let count = send(socket, raw.baseAddress! + written, raw.count - written, Int32(MSG_NOSIGNAL))
                if count <= 0 {
                    if count < 0, errno == EINTR { continue }
                    break
                }
                written += count
            }
            return written
        }
    }

    private static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return address
    }
}

/// A gzip stream that expands many times over: one byte, then back-references of 258 bytes at distance 1, in a
/// fixed-Huffman deflate block (13 bits a reference, so about 160 times smaller than what it expands to).
public enum GzipBomb {
    /// The bomb for `expandedBytes` bytes of `[`. Eight references are 104 bits, 13 whole bytes, so after the
    /// first reference (which ends on a byte boundary) the stream is one 13-byte pattern repeated: a bomb of
    /// gigabytes is made in milliseconds.
    public static func make(expandedBytes: Int) -> Data {
        var head = BitWriter()
        head.write(1, count: 1) // BFINAL
        head.write(1, count: 2) // BTYPE 01: fixed Huffman
        head.writeCode(0x30 + UInt32(UInt8(ascii: "[")), length: 8) // a literal byte's fixed code is 0x30 + byte
        var references = max(expandedBytes - 1, 0) / 258
        var data = Data([0x1F, 0x8B, 0x08, 0x00, 0, 0, 0, 0, 0x00, 0xFF])
        if references > 0 {
            head.writeReference()
            references -= 1
        }
        data.append(contentsOf: head.finished) // 3 + 8 + 13 bits: exactly 3 bytes when a reference follows
        var pattern = BitWriter()
        for _ in 0..<8 { pattern.writeReference() }
        let period = Data(pattern.finished)
        for _ in 0..<(references / 8) { data.append(period) }
        var tail = BitWriter()
        for _ in 0..<(references % 8) { tail.writeReference() }
        tail.writeCode(0, length: 7) // end of block (code 256)
        data.append(contentsOf: tail.finished)
        // The CRC is not computed (a client that stops at its limit never reads the trailer); the length is.
        let expanded = UInt32(truncatingIfNeeded: 1 + (max(expandedBytes - 1, 0) / 258) * 258)
        data.append(contentsOf: [0, 0, 0, 0])
        data.append(contentsOf: withUnsafeBytes(of: expanded.littleEndian, Array.init))
        return data
    }

    /// Deflate's bit order: values least significant bit first, Huffman codes most significant bit first.
    private struct BitWriter {
        private var bytes: [UInt8] = []
        private var current: UInt8 = 0
        private var used = 0

        mutating func write(_ value: UInt32, count: Int) {
            for bit in 0..<count { append(UInt8((value >> UInt32(bit)) & 1)) }
        }

        mutating func writeCode(_ code: UInt32, length: Int) {
            for bit in stride(from: length - 1, through: 0, by: -1) { append(UInt8((code >> UInt32(bit)) & 1)) }
        }

        /// 258 bytes copied from distance 1: length code 285 (no extra bits), distance code 0 (no extra bits).
        mutating func writeReference() {
            writeCode(0b1100_0101, length: 8)
            writeCode(0, length: 5)
        }

        private mutating func append(_ bit: UInt8) {
            current |= bit << UInt8(used)
            used += 1
            if used == 8 {
                bytes.append(current)
                current = 0
                used = 0
            }
        }

        /// The bytes with the last partial byte.
        var finished: [UInt8] { used > 0 ? bytes + [current] : bytes }
    }
}
