import FlyingFox
import Foundation
import Synchronization

/// A real HTTP server on 127.0.0.1 for the transport's tests: answers each request as `answer` says for its path,
/// and keeps every request it saw.
final class LocalHTTPServer: Sendable {
    /// What the server answers.
    struct Answer: Sendable {
        var status: Int
        var headers: [String: String] = [:]
        var body = Data()
        /// How long the server waits before it answers.
        var delay: Duration = .zero
    }

    /// A request as the server saw it; header names lower-cased.
    struct Seen: Sendable {
        let path: String
        let headers: [String: String]
    }

    private let server: HTTPServer
    private let answer: @Sendable (String) -> Answer
    private let log = Mutex<[Seen]>([])
    private let runner = Mutex<Task<Void, any Error>?>(nil)

    /// Every request so far.
    var requests: [Seen] { log.withLock { $0 } }

    private init(answer: @escaping @Sendable (String) -> Answer) throws {
        self.answer = answer
        server = HTTPServer(address: try .inet(ip4: "127.0.0.1", port: 0), timeout: 60, logger: .disabled)
    }

    /// A server already listening, and its base URL (`http://127.0.0.1:PORT`).
    static func started(answer: @escaping @Sendable (_ path: String) -> Answer) async throws -> (LocalHTTPServer, URL) {
        let local = try LocalHTTPServer(answer: answer)
        await local.server.appendRoute("*") { [local] request in await local.respond(to: request) }
        let task = Task { [server = local.server] in try await server.run() }
        local.runner.withLock { $0 = task }
        try await local.server.waitUntilListening(timeout: 120) // a hang detector: a loaded machine starts it late
        guard case .ip4(_, let port)? = await local.server.listeningAddress,
              let url = URL(string: "http://127.0.0.1:\(port)")
        else { throw URLError(.cannotConnectToHost) }
        return (local, url)
    }

    /// Stops at once, dropping open connections.
    func stop() async {
        await server.stop(timeout: 0)
        runner.withLock { $0?.cancel() }
    }

    private func respond(to request: FlyingFox.HTTPRequest) async -> FlyingFox.HTTPResponse {
        var seenHeaders: [String: String] = [:]
        for (name, value) in request.headers { seenHeaders[name.rawValue.lowercased()] = value }
        log.withLock { $0.append(Seen(path: request.path, headers: seenHeaders)) }
        let reply = answer(request.path)
        if reply.delay > .zero { try? await Task.sleep(for: reply.delay) }
        var headers = HTTPHeaders()
        for (name, value) in reply.headers { headers[HTTPHeader(name)] = value }
        return FlyingFox.HTTPResponse(statusCode: HTTPStatusCode(reply.status, phrase: "Status"), headers: headers,
                                      body: reply.body)
    }
}
