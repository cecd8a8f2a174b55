import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A raw TCP connection to 127.0.0.1, for a request an HTTP client will not leave unfinished.
final class RawSocket: Sendable {
    private let socket: Int32

    init(port: Int) throws {
        socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            Glibc.close(socket)
            throw POSIXError(.ECONNREFUSED)
        }
    }

    /// Sends `text` whole (what the server has not closed).
    func send(_ text: String) {
        let bytes = Array(text.utf8)
        var sent = 0
        while sent < bytes.count {
            let written = bytes.withUnsafeBytes { Glibc.send(socket, $0.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL)) }
            guard written > 0 else { return }
            sent += written
        }
    }

    func close() { Glibc.close(socket) }
}
