import BridgetCaching
import BridgetDTOs
import struct BridgetNetworking.SocrataRow
import FlyingFox
import Foundation
import Synchronization

/// A Socrata SODA 2-shaped HTTP server on 127.0.0.1, for tests, benchmarks and trying Bridget offline.
///
/// It serves one dataset at `/resource/<id>.json`, honouring `$select` (the count/max summary), `$where`
/// (`opendatetime >= '…'` or `>`), `$order` (`opendatetime,:id`), `$limit` and `$offset`; sends weak ETags and
/// `Last-Modified`, answering `If-None-Match` with 304; and injects queued faults into the next responses.
public final class SocrataFixtureServer: Sendable {
    /// One request as the server saw it.
    public struct LoggedRequest: Sendable {
        public let path: String
        public let query: [String: String]
        public let headers: [String: String]
        public let status: Int
    }

    private struct State {
        var dataset: FixtureDataset
        var version = 1
        var faults: [FixtureFault] = []
        var ignoresOffset = false
        var maximumLimit: Int?
        var files: [String: (body: Data, contentType: String)] = [:]
        var log: [LoggedRequest] = []
    }

    /// The dataset id served.
    public let datasetID: String
    /// Seattle's live bridge state, served at `StateFeedFixture.path` (its faults are its own, not `inject`'s).
    public let stateFeed = StateFeedFixture()
    /// When set, requests without this `X-App-Token` get 403.
    public let requiredToken: String?
    private let state: Mutex<State>
    private let server: HTTPServer
    private let runner = Mutex<Task<Void, any Error>?>(nil)
    private let nagleOff = Mutex(false)

    /// Whether `start` turned Nagle's algorithm off for its connections (see `disableNagle`); when false, a client
    /// may wait 40 ms at the end of a response, and timings measure that.
    public var sendsWithoutDelay: Bool { nagleOff.withLock { $0 } }

    /// Creates a server on 127.0.0.1:`port` (0 picks a free port).
    public init(dataset: FixtureDataset, datasetID: String = "gm8h-9449", port: UInt16 = 0, requiredToken: String? = nil)
        throws
    {
        self.datasetID = datasetID
        self.requiredToken = requiredToken
        state = Mutex(State(dataset: dataset))
        // FlyingFox answers 500 for a handler still running at its timeout: longer than the longest hang a fault asks
        // for (`hang:600`, ten minutes), so that a hang holds for as long as it says.
        server = HTTPServer(address: try .inet(ip4: "127.0.0.1", port: port), timeout: 660, logger: .disabled)
    }

    /// Starts listening; returns the base URL (`http://127.0.0.1:PORT`).
    public func start() async throws -> URL {
        await server.appendRoute("*") { [self] request in await self.respond(to: request) }
        let task = Task { try await server.run() }
        runner.withLock { $0 = task }
        try await server.waitUntilListening(timeout: 120) // a hang detector: a loaded machine starts it late
        guard case .ip4(_, let port)? = await server.listeningAddress, let url = URL(string: "http://127.0.0.1:\(port)")
        else { throw URLError(.cannotConnectToHost) }
        let turnedOff = Self.disableNagle(onListenerAt: port)
        nagleOff.withLock { $0 = turnedOff }
        return url
    }

    /// Turns Nagle's algorithm off on the listening socket at `port`, which the connections it accepts inherit (on
    /// Linux), as production HTTP servers do (nginx's `tcp_nodelay`, Socrata's front end). FlyingFox writes a
    /// response's header and body separately and has no hook for its sockets' options; with Nagle on, the end of
    /// a response waited for the client's delayed ACK, and 17 of 40 pages of 5,000 rows took 40 ms more than the
    /// other 23 (curl, one at a time). Done before the URL is handed out, so no connection comes before it (with a
    /// fixed port, a client that guessed it could come first). Returns whether the listening socket was found and
    /// changed (never on a system without `/proc`).
    private static func disableNagle(onListenerAt port: UInt16) -> Bool {
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        for descriptor in descriptors.compactMap(Int32.init) {
            var listening: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            guard getsockopt(descriptor, SOL_SOCKET, SO_ACCEPTCONN, &listening, &length) == 0, listening == 1 else { continue }
            var address = sockaddr_in()
            var addressLength = socklen_t(MemoryLayout<sockaddr_in>.size)
            let named = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &addressLength) }
            }
            guard named == 0, address.sin_family == sa_family_t(AF_INET), UInt16(bigEndian: address.sin_port) == port
            else { continue }
            var on: Int32 = 1
            return setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size)) == 0
        }
        return false
    }

    /// Stops at once, dropping open connections.
    public func stop() async {
        await server.stop(timeout: 0)
        runner.withLock { $0?.cancel() }
    }

    /// Queues faults; each is used by one response, in order.
    public func inject(_ faults: [FixtureFault]) { state.withLock { $0.faults += faults } }

    /// Adds rows, as a dataset update does (new version, new ETags).
    public func append(_ rows: [SocrataRow]) {
        state.withLock {
            $0.dataset.append(rows)
            $0.version += 1
        }
    }

    /// Misbehave like a broken proxy: answer every page as if `$offset` were 0.
    public func ignoreOffset(_ ignore: Bool) { state.withLock { $0.ignoresOffset = ignore } }

    /// Serves `body` at `path` (another source's feed file, such as NDW's gzip), with an ETag, honouring
    /// `If-None-Match`; queued faults apply to it as to every response.
    public func serve(file body: Data, at path: String, contentType: String = "application/octet-stream") {
        state.withLock { $0.files[path] = (body, contentType) }
    }

    /// Answer at most `limit` rows a page whatever `$limit` asks (as a server with a lower cap does); `nil` honours
    /// `$limit`.
    public func capLimit(at limit: Int?) { state.withLock { $0.maximumLimit = limit } }

    /// Every request so far.
    public var requests: [LoggedRequest] { state.withLock { $0.log } }

    /// Injected faults not yet taken by a request; a test waits for 0 to know its fault is being served.
    public var pendingFaults: Int { state.withLock { $0.faults.count } }

    /// Rows currently served.
    public var rowCount: Int { state.withLock { $0.dataset.records.count } }

    // MARK: - Responding

    private func respond(to request: HTTPRequest) async -> HTTPResponse {
        var query: [String: String] = [:]
        for item in request.query { query[item.name] = item.value }
        if request.path == StateFeedFixture.path {
            let answer = await stateFeed.answer()
            var headers = HTTPHeaders()
            for (name, value) in answer.headers { headers[HTTPHeader(name)] = value }
            return HTTPResponse(statusCode: HTTPStatusCode(answer.status, phrase: "Status"), headers: headers,
                                body: answer.body)
        }
        if request.path.hasPrefix("/control/") { return await control(request, query: query) }
        var headers: [String: String] = [:]
        for (name, value) in request.headers { headers[name.rawValue.lowercased()] = value }
        // A fault is for a request of this server's dataset: a client of another test that still calls a port
        // this server now has (a refresher whose fixture stopped) gets its 404 and takes none.
        let ours = request.path == "/resource/\(datasetID).json"
        let fault = ours ? state.withLock { $0.faults.isEmpty ? nil : $0.faults.removeFirst() } : nil
        let response = await makeResponse(path: request.path, query: query, headers: headers, fault: fault)
        state.withLock {
            $0.log.append(LoggedRequest(path: request.path, query: query, headers: headers,
                                        status: response.statusCode.code))
        }
        return response
    }

    /// A drill's controls: the state feed's statuses and faults, and rows to publish.
    private func control(_ request: HTTPRequest, query: [String: String]) async -> HTTPResponse {
        func answer(_ status: Int, _ text: String) -> HTTPResponse {
            HTTPResponse(statusCode: HTTPStatusCode(status, phrase: status == 200 ? "OK" : "Bad Request"),
                         headers: [.contentType: "text/plain"], body: Data((text + "\n").utf8))
        }
        switch request.path {
        case "/control/state":
            guard let bridge = query["bridge"], let status = query["status"] else {
                return answer(400, "give bridge= and status= (Open, Closed, missing or any text)")
            }
            stateFeed.set(bridge, status == "missing" ? nil : status)
            return answer(200, "bridge \(bridge): \(status)")
        case "/control/state-fault":
            var faults: [StateFeedFixture.Fault] = []
            for plan in (query["plan"] ?? "").split(separator: ",") {
                guard let fault = StateFeedFixture.Fault(plan: String(plan)) else { return answer(400, "unknown fault \(plan)") }
                faults.append(fault)
            }
            stateFeed.inject(faults)
            return answer(200, "\(faults.count) faults queued")
        case "/control/polls":
            return answer(200, "\(stateFeed.polls)")
        case "/control/rows":
            guard let body = try? await request.bodyData,
                  let rows = try? JSONDecoder().decode([SocrataRow].self, from: body)
            else { return answer(400, "give a JSON array of Socrata rows") }
            append(rows)
            return answer(200, "\(rows.count) rows added")
        default:
            return answer(404, "no such control")
        }
    }

    private func makeResponse(path: String, query: [String: String], headers: [String: String],
                              fault: FixtureFault?) async -> HTTPResponse {
        if let fault, let faulty = await faultResponse(fault, path: path, query: query) { return faulty }
        if let file = state.withLock({ $0.files[path] }) {
            let etag = "\"" + DiskCache.checksum(file.body) + "\""
            let fileHeaders: HTTPHeaders = [.contentType: file.contentType, HTTPHeader("ETag"): etag]
            if headers["if-none-match"] == etag { return HTTPResponse(statusCode: .notModified, headers: fileHeaders) }
            return HTTPResponse(statusCode: .ok, headers: fileHeaders,
                                body: HTTPBodySequence(data: file.body, suggestedBufferSize: 1 << 20))
        }
        guard path == "/resource/\(datasetID).json" else {
            return errorResponse(404, shape: 2, message: "Dataset not found", code: "not_found")
        }
        if let requiredToken, headers["x-app-token"] != requiredToken {
            return errorResponse(403, shape: 2, message: "You must be logged in to access this resource", code: nil)
        }
        let (dataset, version, ignoresOffset, cap) = state.withLock {
            ($0.dataset, $0.version, $0.ignoresOffset, $0.maximumLimit)
        }
        var query = query
        if ignoresOffset { query["$offset"] = nil }
        if let cap, query["$select"] == nil, Int(query["$limit"] ?? "1000").map({ $0 > cap }) ?? true {
            query["$limit"] = String(cap)
        }
        var body: Data
        do {
            body = try FixtureQuery(parameters: query).evaluate(on: dataset)
            if case .shortPage(let rows)? = fault, query["$select"] == nil {
                let page = try FixtureQuery(parameters: query).rows(on: dataset)
                body = FixtureQuery.encode(Array(page.prefix(rows)))
            }
        } catch let failure as FixtureQuery.Failure {
            return errorResponse(400, shape: 0, message: failure.message, code: "query.compiler.malformed")
        } catch {
            return errorResponse(500, shape: 0, message: "\(error)", code: "internal")
        }
        let etag = "W/\"v\(version)-\(DiskCache.checksum(Data(query.sorted { $0.key < $1.key }.description.utf8)))\""
        var responseHeaders: HTTPHeaders = [
            .contentType: version % 2 == 0 ? "application/json; charset=utf-8" : "application/json;charset=utf-8",
            HTTPHeader("ETag"): etag,
            HTTPHeader("Last-Modified"): "Mon, 0\(min(version, 9)) Jun 2026 12:00:00 GMT",
            HTTPHeader("X-SODA2-Fields"): "[\"entitytype\",\"entityname\",\"entityid\",\"opendatetime\"]",
        ]
        if headers["if-none-match"] == etag {
            responseHeaders[.contentType] = nil
            return HTTPResponse(statusCode: .notModified, headers: responseHeaders)
        }
        // Written in pieces of up to 1 MiB rather than FlyingFox's default 4 KiB: a page is then a few writes, not
        // hundreds, as from a production server, and the server takes less of the CPU its clients are measured on.
        return HTTPResponse(statusCode: .ok, headers: responseHeaders,
                            body: HTTPBodySequence(data: body, suggestedBufferSize: 1 << 20))
    }

    private func faultResponse(_ fault: FixtureFault, path: String, query: [String: String]) async -> HTTPResponse? {
        switch fault {
        case .pass, .shortPage:
            return nil
        case .emptyBody:
            return HTTPResponse(statusCode: .ok, headers: [.contentType: "application/json"], body: Data())
        case .redirect(let port):
            var components = URLComponents()
            components.scheme = "http"
            components.host = "127.0.0.1"
            components.port = port
            components.path = path
            components.queryItems = query.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) }
            return HTTPResponse(statusCode: HTTPStatusCode(302, phrase: "Found"),
                                headers: [HTTPHeader("Location"): components.url?.absoluteString ?? "/"])
        case .status(let status, let retryAfter, let shape):
            var response = errorResponse(status, shape: shape, message: "injected \(status)", code: "fault.injected")
            if let retryAfter { response.headers[HTTPHeader("Retry-After")] = retryAfter }
            return response
        case .processing:
            return HTTPResponse(statusCode: HTTPStatusCode(202, phrase: "Accepted"),
                                headers: [.contentType: "application/json"],
                                body: Data(#"{"message":"Request processing, retry"}"#.utf8))
        case .hang(let seconds):
            try? await Task.sleep(for: .seconds(seconds))
            return nil
        case .truncated:
            let body = Data(#"[{"entityid":"3","opendatetime":"2024-01-01T00:00:00.000"}"#.utf8)
            return HTTPResponse(statusCode: .ok, headers: [.contentType: "application/json",
                                                           .contentLength: String(body.count + 4_096)], body: body)
        case .html(let status):
            return HTTPResponse(statusCode: HTTPStatusCode(status, phrase: "Error"), headers: [.contentType: "text/html"],
                                body: Data("<html><body><h1>Service Unavailable</h1><p>Try later.</p></body></html>".utf8))
        case .oversized:
            let row = #"{"entityid":"3","entityname":"Fremont","opendatetime":"2024-01-01T00:00:00.000"}"#
            let body = Data(("[" + Array(repeating: row, count: 80_000).joined(separator: "\n,") + "]\n").utf8)
            return HTTPResponse(statusCode: .ok, headers: [.contentType: "application/json"], body: body)
        case .malformedJSON:
            return HTTPResponse(statusCode: .ok, headers: [.contentType: "application/json"],
                                body: Data(#"[{"entityid":"3","opendatetime": oops}]"#.utf8))
        case .wrongContentType:
            return HTTPResponse(statusCode: .ok, headers: [.contentType: "text/html"],
                                body: Data("<html>maintenance</html>".utf8))
        }
    }

    /// A Socrata error body in one of its three shapes.
    private func errorResponse(_ status: Int, shape: Int, message: String, code: String?) -> HTTPResponse {
        let object: [String: Any] = switch shape % 3 {
        case 0: ["code": code ?? "error", "error": true, "message": message, "data": [String: String]()]
        case 1: ["message": message, "errorCode": code ?? "error", "data": [String: String]()]
        default: ["message": message, "error": true]
        }
        let body = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        return HTTPResponse(statusCode: HTTPStatusCode(status, phrase: "Error"),
                            headers: [.contentType: "application/json;charset=utf-8"], body: body)
    }
}
