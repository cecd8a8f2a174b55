import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A TCP relay on 127.0.0.1 in front of the server, which cuts its first connection after the server has sent
/// `cutFirstAfter` bytes through it (as a network that fails mid-answer does: the client gets part of an answer, then
/// a reset) and relays every later one whole. Plain POSIX sockets, a thread a direction.
final class Relay: @unchecked Sendable { // `sockets` and `connections` are only touched under `lock`
    private let lock = NSLock()
    private var sockets: Set<Int32> = []
    private var accepted = 0
    private let listener: Int32
    private let upstream: UInt16
    let port: UInt16

    private let cutFirstAfter: Int?

    init(upstreamPort: UInt16, cutFirstAfter: Int? = nil) throws {
        upstream = upstreamPort
        self.cutFirstAfter = cutFirstAfter
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.listener = listener
        var address = Self.loopback(port: 0)
        var one: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, Self.listen(listener) == 0 else { throw RelayError.listen(errno) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        port = UInt16(bigEndian: address.sin_port)
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    enum RelayError: Error { case listen(Int32) }

    /// The system's `listen`, which the type's own names would hide.
    private static func listen(_ socket: Int32) -> Int32 {
        #if canImport(Glibc)
        Glibc.listen(socket, 64)
        #else
        Darwin.listen(socket, 64)
        #endif
    }

    /// Connections accepted so far.
    var connections: Int { lock.withLock { accepted } }

    private static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { return }
            let server = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = Self.loopback(port: upstream)
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(server, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard connected == 0 else {
                close(client)
                close(server)
                continue
            }
            let first = lock.withLock {
                accepted += 1
                sockets.formUnion([client, server])
                return accepted == 1
            }
            let limit = first ? cutFirstAfter : nil
            // Both descriptors are closed once both directions are done, so neither thread writes to a number the
            // other closed (and a new connection may have been given).
            let pending = Pending()
            Thread.detachNewThread { [self] in pump(from: client, to: server, limit: nil, done: pending) }
            Thread.detachNewThread { [self] in pump(from: server, to: client, limit: limit, done: pending) }
        }
    }

    /// The directions of one connection still running.
    private final class Pending: @unchecked Sendable { // only touched under the relay's lock
        var directions = 2
    }

    private func pump(from source: Int32, to target: Int32, limit: Int?, done pending: Pending) {
        var buffer = [UInt8](repeating: 0, count: 16_384)
        var left = limit ?? .max
        while left > 0 {
            var count = buffer.withUnsafeMutableBytes { read(source, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            count = Swift.min(count, left)
            left -= count
            var sent = 0
            while sent < count {
                let written = buffer.withUnsafeBytes { write(target, $0.baseAddress! + sent, count - sent) }
                guard written > 0 else { break }
                sent += written
            }
            if sent < count { break }
        }
        shutdown(source, Int32(SHUT_RDWR))
        shutdown(target, Int32(SHUT_RDWR))
        lock.withLock {
            pending.directions -= 1
            guard pending.directions == 0 else { return }
            for socket in [source, target] {
                sockets.remove(socket)
                close(socket)
            }
        }
    }
}
