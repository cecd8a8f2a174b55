import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The system's resolver (`getaddrinfo`): the numeric addresses a host name stands for, as a connection to it would
/// find them; `localhost` and every name under it are the loopback addresses whatever the system says (RFC 6761
/// §6.3), as libcurl connects to them.
public enum HostResolver {
    /// A host name that did not resolve, with the resolver's reason.
    public struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// The name, as asked (cut to 80 characters when shown).
        public let host: String
        public let reason: String

        public var description: String {
            let shown = host.count > 80 ? String(host.prefix(80)) + "…" : host
            return "\(shown) does not resolve: \(reason)"
        }
    }

    /// The numeric addresses `host` resolves to (the address itself when it is one), without repeats, in the
    /// resolver's order. Blocks while the resolver works, which can take seconds: call it off Swift's cooperative
    /// threads.
    @Sendable public static func addresses(of host: String) throws(Failure) -> [String] {
        let name = (host.hasSuffix(".") ? String(host.dropLast()) : host).lowercased()
        if name == "localhost" || name.hasSuffix(".localhost") { return ["127.0.0.1", "::1"] }
        var hints = addrinfo()
        #if canImport(Glibc)
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
        hints.ai_socktype = SOCK_STREAM
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, nil, &hints, &list)
        guard status == 0, let first = list else {
            throw Failure(host: host, reason: String(cString: gai_strerror(status)))
        }
        defer { freeaddrinfo(first) }
        var addresses: [String] = []
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let current = entry {
            var buffer = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            if getnameinfo(current.pointee.ai_addr, current.pointee.ai_addrlen, &buffer, socklen_t(buffer.count),
                           nil, 0, NI_NUMERICHOST) == 0 {
                let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                if !addresses.contains(text) { addresses.append(text) }
            }
            entry = current.pointee.ai_next
        }
        return addresses
    }

    /// `resolve(host)` on a thread of its own, waited for `timeout` seconds at most; past it a `Failure` is thrown
    /// and the resolution finishes alone. Blocks the calling thread meanwhile (not one of Swift's cooperative ones).
    static func addresses(of host: String, within timeout: TimeInterval,
                          resolve: @escaping @Sendable (String) throws -> [String]) throws -> [String] {
        let answer = Answer()
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            answer.result.withLock { $0 = Result { try resolve(host) } }
            done.signal()
        }
        guard done.wait(timeout: .now() + max(timeout, 0)) == .success, let result = answer.result.withLock({ $0 })
        else {
            throw Failure(host: host, reason: "no answer within " + String(format: "%g", max(timeout, 0)) + " s")
        }
        return try result.get()
    }

    /// A resolution's outcome, handed from the resolving thread to the waiting one.
    private final class Answer: Sendable {
        let result = Mutex<Result<[String], any Error>?>(nil)
    }
}
