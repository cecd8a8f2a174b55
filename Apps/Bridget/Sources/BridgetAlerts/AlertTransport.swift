import AsyncHTTPClient
import BridgetCore
import BridgetRuntime
import Foundation
import NIOCore
import NIOHTTP1

/// What a receiver answered: its status and headers (names lower case), and how much of its body was read.
package struct AlertReply: Sendable, Equatable {
    package var status: Int
    package var headers: [String: String]
    /// Bytes of the body read (at most `HTTPClientAlertTransport.bodyLimit`; the rest is never read).
    package var bodyBytes: Int

    package init(status: Int, headers: [String: String], bodyBytes: Int = 0) {
        self.status = status
        self.headers = headers
        self.bodyBytes = bodyBytes
    }
}

/// Why an attempt got no answer, for the attempt's record.
package enum AlertTransportError: Error, Equatable, CustomStringConvertible {
    /// No whole answer head (and the body's first bytes) within the attempt's deadline.
    case deadline
    /// The receiver could not be reached (refused, reset, unreachable).
    case unreachable
    /// The TLS handshake failed (the certificate was refused).
    case tls
    /// Any other failure, by kind.
    case other(String)

    package var description: String {
        switch self {
        case .deadline: "no answer within the deadline"
        case .unreachable: "the receiver cannot be reached"
        case .tls: "the receiver's TLS certificate was refused"
        case .other(let kind): "a network failure (\(kind))"
        }
    }
}

/// One HTTP POST of a message to a checked destination, and what came back.
package protocol AlertTransport: Sendable {
    /// Posts `body` to `destination` (connecting to its checked address only) with `headers`, giving up after
    /// `timeout` whatever the receiver does.
    func post(_ destination: DestinationPolicy.Checked, headers: [(String, String)], body: Data, timeout: TimeInterval)
        async throws -> AlertReply
}

/// Posts with async-http-client on the server's event loops:
/// - the connection goes to the address the destination check passed (`dnsOverride`; TLS still names and verifies the
///   URL's host), so a name that resolves elsewhere a moment later is never asked again;
/// - no redirect is followed (a 3xx is the answer), no proxy is used, no answer is decompressed (none is asked for:
///   `Accept-Encoding: identity`);
/// - of the answer, the head and at most `bodyLimit` bytes of the body are read; the rest is never read and the
///   connection is closed;
/// - the whole attempt, connection to body, is held to its deadline by cancellation, which ends it cleanly.
///
/// Connections are kept and reused (a receiver is not met by a new connection, and a new TLS handshake, for each
/// message, nor by a burst of them its listen queue drops): one client per host and checked address, so a
/// connection is only ever reused for the address it was made to. At most `maximumClients` are kept, the least
/// recently used shut down first, and every one when the transport goes.
package final class HTTPClientAlertTransport: AlertTransport {
    /// The most bytes of an answer's body read.
    package static let bodyLimit = 64 * 1024
    /// Clients (host and address pairs) kept at once.
    package static let maximumClients = 16

    private struct Kept {
        var client: HTTPClient
        var used: UInt64
    }

    private let clients = Locked<(kept: [String: Kept], uses: UInt64)>(([:], 0))

    package init() {}

    deinit {
        for kept in clients.withLock({ Array($0.kept.values) }) { kept.client.shutdown { _ in } }
    }

    /// The client for `destination`'s host and address, made when first needed.
    private func client(for destination: DestinationPolicy.Checked, timeout: TimeInterval) -> HTTPClient {
        let key = destination.host + " " + destination.address
        let (client, evicted) = clients.withLock { state -> (HTTPClient, HTTPClient?) in
            state.uses += 1
            if var kept = state.kept[key] {
                kept.used = state.uses
                state.kept[key] = kept
                return (kept.client, nil)
            }
            var configuration = HTTPClient.Configuration(
                redirectConfiguration: .disallow,
                timeout: .init(connect: .milliseconds(Int64(min(timeout, 10) * 1000))),
                connectionPool: .init(idleTimeout: .seconds(30)),
                decompression: .disabled)
            configuration.httpVersion = .http1Only
            configuration.proxy = nil
            if destination.host != destination.address {
                configuration.dnsOverride = [destination.host: destination.address]
            }
            let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
            var evicted: HTTPClient?
            if state.kept.count >= Self.maximumClients,
               let oldest = state.kept.min(by: { $0.value.used < $1.value.used }) {
                evicted = oldest.value.client
                state.kept[oldest.key] = nil
            }
            state.kept[key] = Kept(client: client, used: state.uses)
            return (client, evicted)
        }
        // Its requests in flight end with it; they are retried as any failure is.
        evicted?.shutdown { _ in }
        return client
    }

    package func post(_ destination: DestinationPolicy.Checked, headers: [(String, String)], body: Data,
                      timeout: TimeInterval) async throws -> AlertReply {
        let client = client(for: destination, timeout: timeout)
        var request = HTTPClientRequest(url: destination.url.absoluteString)
        request.method = .POST
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        request.headers.replaceOrAdd(name: "Accept-Encoding", value: "identity")
        request.body = .bytes(ByteBuffer(bytes: body))
        let sent = request
        do {
            // The client's deadline ends the attempt with the reason it has (a refused connection, say); this one,
            // a moment later, holds whatever the client does.
            return try await Self.withDeadline(timeout + 0.25) {
                let response = try await client.execute(sent, deadline: .now() + .milliseconds(Int64(timeout * 1000)))
                var fields: [String: String] = [:]
                for header in response.headers {
                    let name = header.name.lowercased()
                    // A few bytes of each header at most: they go to the log and the attempt's record.
                    fields[name] = fields[name] ?? String(header.value.prefix(200))
                }
                var read = 0
                for try await chunk in response.body {
                    read += chunk.readableBytes
                    if read >= Self.bodyLimit { break } // the rest is not read: the connection closes
                }
                return AlertReply(status: Int(response.status.code), headers: fields, bodyBytes: min(read, Self.bodyLimit))
            }
        } catch {
            throw Self.classify(error)
        }
    }

    /// Runs `work` and cancels it at `timeout`: the deadline holds whatever stage the attempt is in.
    static func withDeadline<T: Sendable>(_ timeout: TimeInterval, _ work: @escaping @Sendable () async throws -> T)
        async throws -> T
    {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await work() }
            group.addTask {
                try await Task.sleep(for: .milliseconds(Int64(timeout * 1000)))
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let value = first else { throw AlertTransportError.deadline }
            return value
        }
    }

    /// A failure by kind, never with the URL (which can hold the destination's key).
    static func classify(_ error: any Error) -> AlertTransportError {
        if let known = error as? AlertTransportError { return known }
        if error is CancellationError { return .deadline }
        if let client = error as? HTTPClientError {
            switch client {
            case .deadlineExceeded, .readTimeout, .connectTimeout, .cancelled, .writeTimeout: return .deadline
            case .remoteConnectionClosed: return .unreachable
            default: return .other("HTTP client: \(String(describing: client).prefix(80))")
            }
        }
        // NIO's connection errors (refused, unreachable, reset) by their type's name: NIOPosix is not ours to import.
        let kind = String(describing: type(of: error))
        if error is IOError || error is ChannelError || kind.contains("Connection") { return .unreachable }
        let text = String(describing: error)
        if text.contains("NIOSSL") || text.contains("handshake") || text.contains("certificate") { return .tls }
        return .other(kind)
    }
}
