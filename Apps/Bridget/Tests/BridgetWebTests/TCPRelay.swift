import BridgetCore
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A TCP relay on 127.0.0.1 in front of a real server (the test command's PostgreSQL), which a test can cut, as a
/// server that stops or a network that fails does: every connection through it is reset and new ones are refused,
/// until `resume()` listens on the same port again. Or it can `stall()`, as a server that hangs or a network that
/// drops packets does: nothing passes either way and new connections wait, until `flow()`. Plain POSIX sockets, a
/// thread a direction.
final class TCPRelay: Sendable {
    private struct State {
        var listener: Int32 = -1
        var sockets: Set<Int32> = []
        var port: UInt16 = 0
        var stalled = false
    }

    private let upstream: UInt16
    private let state = Locked(State())

    /// The port clients connect to.
    var port: UInt16 { state.withLock { $0.port } }

    init(upstreamPort: UInt16) throws {
        upstream = upstreamPort
        try listen(on: 0)
    }

    /// Resets every connection through the relay and stops listening: clients see the server gone. Sockets are shut
    /// down here and closed by the threads that use them, so no descriptor is reused while a thread still holds it.
    func cut() {
        state.withLock { state in
            for socket in [state.listener] + Array(state.sockets) where socket >= 0 { shutdown(socket, Int32(SHUT_RDWR)) }
            state.listener = -1
            state.sockets = []
        }
    }

    /// Listens again on the same port.
    func resume() throws { try listen(on: port) }

    /// Passes nothing on, either way, and connects no new connection, until `flow()`: the server hangs.
    func stall() { state.withLock { $0.stalled = true } }

    /// Passes bytes on again.
    func flow() { state.withLock { $0.stalled = false } }

    /// Returns once the relay is not stalled.
    private func waitWhileStalled() {
        while state.withLock({ $0.stalled }) { usleep(10_000) }
    }

    private func listen(on port: UInt16) throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var yes: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = Self.loopback(port)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, Glibc.listen(listener, 64) == 0 else {
            close(listener)
            throw POSIXError(.EADDRINUSE)
        }
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        state.withLock { state in
            state.listener = listener
            state.port = UInt16(bigEndian: actual.sin_port)
        }
        let upstream = self.upstream
        Thread.detachNewThread { [self] in
            while true {
                let client = accept(listener, nil, nil)
                guard client >= 0 else { // the relay was cut
                    close(listener)
                    return
                }
                waitWhileStalled()
                let server = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
                var target = Self.loopback(upstream)
                let connected = withUnsafePointer(to: &target) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        connect(server, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                    }
                }
                guard connected == 0, track(client, server) else {
                    close(client)
                    close(server)
                    continue
                }
                let pair = Pair(client, server, relay: self)
                Thread.detachNewThread { self.pump(from: client, to: server, pair: pair) }
                Thread.detachNewThread { self.pump(from: server, to: client, pair: pair) }
            }
        }
    }

    /// Keeps the pair to cut later; false when the relay was cut meanwhile.
    private func track(_ first: Int32, _ second: Int32) -> Bool {
        state.withLock { state in
            guard state.listener >= 0 else { return false }
            state.sockets.formUnion([first, second])
            return true
        }
    }

    /// A connection's two sockets, closed when both of its pumps are done.
    private final class Pair: Sendable {
        let sockets: (Int32, Int32)
        let relay: TCPRelay
        let running = Locked(2)

        init(_ first: Int32, _ second: Int32, relay: TCPRelay) {
            sockets = (first, second)
            self.relay = relay
        }

        func pumpEnded() {
            guard running.withLock({ count in count -= 1; return count == 0 }) else { return }
            relay.state.withLock { state in
                state.sockets.subtract([sockets.0, sockets.1])
                close(sockets.0)
                close(sockets.1)
            }
        }
    }

    private func pump(from source: Int32, to destination: Int32, pair: Pair) {
        defer { pair.pumpEnded() }
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(source, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { break }
            waitWhileStalled()
            var sent = 0
            while sent < count {
                let written = buffer.withUnsafeBytes { send(destination, $0.baseAddress! + sent, count - sent, Int32(MSG_NOSIGNAL)) }
                guard written > 0 else { shutdown(source, Int32(SHUT_RDWR)); return }
                sent += written
            }
        }
        shutdown(destination, Int32(SHUT_RDWR))
    }

    private static func loopback(_ port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return address
    }
}
