import BridgetAnswers
import BridgetCaching
import BridgetContext
import BridgetCore
import BridgetDTOs
import BridgetPersistence
import Foundation
import Hummingbird
import Logging
import Prometheus

/// What the server's handlers share: the app core, the store (opened once, reopened when its file is replaced, each
/// call under the handlers' deadline), the refresher's state when this server
/// refreshes, the metrics registry, and the answers already encoded.
package struct WebContext: Sendable {
    package let app: AppContext
    package let store: ReopeningStore
    package let registry: PrometheusCollectorRegistry
    /// The refresher's state when `serve` refreshes, for `/v1/status` and `Cache-Control`.
    package let refresh: RefreshState?
    package let schedule: RefreshSchedule?
    /// Encoded answers by history version and request, within a byte budget: a popular bridge's page or forecast is
    /// encoded once per sync (or minute), not once per request. Such a key names one answer for good (a sync that
    /// changes the history changes the version), so an entry is never stale, only unused.
    package let answers: MemoryCache<String, EncodedAnswer, ContinuousClock>
    /// The history version the answers are keyed by, asked of the store at most once a second.
    package let versions: HistoryVersionMemo
    /// The models, recent openings and catalog of the store's current history, loaded once per history.
    package let memory = HistoryMemory(keepsEvidence: true)
    /// Requests being answered now (the drain says how many a stop cut short; `/metrics` shows them).
    package let inFlight: RequestCount
    /// The change log's one reader, fanning changes out to stream clients.
    package let changes: ChangeHub
    /// `/metrics`' view of the stream: clients holding a slot, bytes queued to them.
    let streamGauges: (clients: Gauge, queuedBytes: Gauge)

    package init(app: AppContext, store: ReopeningStore, registry: PrometheusCollectorRegistry = .init(),
                 refresh: RefreshState? = nil, schedule: RefreshSchedule? = nil,
                 versions: HistoryVersionMemo = HistoryVersionMemo(lifetime: .seconds(1))) {
        self.app = app
        self.store = store
        self.registry = registry
        self.refresh = refresh
        self.schedule = schedule
        self.versions = versions
        let stream = app.configuration.stream
        changes = ChangeHub(store: store, names: BridgeNames { try await store.bridges() }, clock: app.clock,
                            pollInterval: .milliseconds(Int64(stream.pollInterval * 1000)),
                            heartbeat: .milliseconds(Int64(stream.heartbeat * 1000)), clientBuffer: stream.clientBuffer,
                            memoryBudget: stream.memoryBudget,
                            slots: StreamSlots(maximum: stream.maximumClients, perAddress: stream.maximumClientsPerAddress),
                            logger: Logger(label: "bridget.stream"))
        streamGauges = (
            registry.makeGauge(descriptor: MetricNameDescriptor(
                metricName: "bridget_stream_clients", unitName: "", helpText: "Stream clients connected now.")),
            registry.makeGauge(descriptor: MetricNameDescriptor(
                metricName: "bridget_stream_queued", unitName: "bytes",
                helpText: "Bytes of events queued to stream clients now (bounded by stream.memory_mb).")))
        inFlight = RequestCount(gauge: registry.makeGauge(descriptor: MetricNameDescriptor(
            metricName: "http_server_active_requests", unitName: "", helpText: "Requests being answered now.")))
        // The budget counts what an entry holds in memory: its buffers' capacity (allocations round up), its key.
        answers = MemoryCache(
            capacity: 100_000, defaultTimeToLive: .seconds(3_600),
            budget: .init(maximumBytes: app.configuration.serve.answerCacheBytes) { key, answer in
                key.utf8.count + answer.size
            })
    }

    /// The JSON of `value` with an ETag of the history version, `varying` (what else the answer depends on) and the
    /// request's path and query, and a `Cache-Control` fitting how long the answer holds; 304 when the client has it.
    /// The encoded answer is kept under the same facts, so the next request for it costs no query.
    /// `headers` are the answer's own (kept with it).
    package func cached<Value: Encodable>(
        _ request: Request, varying: String = "", untilNextMinute: Bool = false, revalidate: Bool = false,
        contentType: String = "application/json", headers: (Value) -> HTTPFields = { _ in [:] },
        _ value: () async throws -> Value
    ) async throws -> Response {
        try await cachedAnswer(request, varying: varying, untilNextMinute: untilNextMinute, revalidate: revalidate,
                               contentType: contentType) {
            let answer = try await value()
            var bytes = try AnswerJSON.bytes(answer)
            bytes.append(UInt8(ascii: "\n"))
            return EncodedAnswer(plain: ByteBuffer(bytes: bytes), gzip: nil, fields: headers(answer))
        }
    }

    /// `cached` for a body already written (a page's HTML).
    package func cachedBody(_ request: Request, varying: String, untilNextMinute: Bool, revalidate: Bool,
                            contentType: String, _ text: () async throws -> ByteBuffer) async throws -> Response {
        try await cachedAnswer(request, varying: varying, untilNextMinute: untilNextMinute, revalidate: revalidate,
                               contentType: contentType) { EncodedAnswer(plain: try await text(), gzip: nil) }
    }

    private func cachedAnswer(_ request: Request, varying: String, untilNextMinute: Bool, revalidate: Bool,
                              contentType: String, _ make: () async throws -> EncodedAnswer) async throws -> Response {
        try store.checkKnownProblems()
        // The generation first: an answer computed while the store was reopened is kept under the old one, unused.
        let generation = store.generation
        let version = try await versions.version(generation: generation) { try await store.historyVersion() }
        let key = request.uri.path + "?" + (request.uri.query ?? "") + "#" + varying
        let stamp = generation == 0 ? "v\(version)" : "v\(version).\(generation)"
        let tag = "W/\"\(stamp)-" + FNV1a.hex(FNV1a.hash(key)) + "\""
        let control = "max-age=\(maxAge(untilNextMinute: untilNextMinute, revalidate: revalidate))"
        let given = request.headers[.ifNoneMatch].map {
            $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        } ?? []
        if given.contains(tag) {
            return Response(status: .notModified, headers: [.eTag: tag, .cacheControl: control, .vary: "Accept-Encoding"])
        }
        if given.contains("*") {
            // `*` matches an answer that exists (RFC 9110 13.1.2): a bad parameter or unknown bridge is still its error.
            _ = try await make()
            return Response(status: .notModified, headers: [.eTag: tag, .cacheControl: control, .vary: "Accept-Encoding"])
        }
        let cacheKey = stamp + " " + key
        var answer: EncodedAnswer
        if let kept = answers.value(forKey: cacheKey) {
            answer = kept
        } else {
            answer = try await make()
            answers.insert(answer, forKey: cacheKey, timeToLive: nil)
        }
        var headers: HTTPFields = [.contentType: contentType, .eTag: tag, .cacheControl: control,
                                   .vary: "Accept-Encoding"]
        headers.append(contentsOf: answer.fields)
        guard answer.plain.readableBytes >= AnswerEncoding.minimumBytes,
              AnswerEncoding.acceptsGzip(request.headers[.acceptEncoding])
        else {
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: answer.plain))
        }
        if answer.gzip == nil, let compressed = AnswerEncoding.gzip(answer.plain) {
            answer = EncodedAnswer(plain: answer.plain, gzip: compressed, fields: answer.fields)
            answers.insert(answer, forKey: cacheKey, timeToLive: nil)
        }
        guard let gzip = answer.gzip else {
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: answer.plain))
        }
        headers[.contentEncoding] = "gzip"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: gzip))
    }

    /// How many seconds an answer holds: one about now, to the end of the minute; saved routes, none (they change
    /// with a PUT, so a client asks again with its ETag); the history, until the next scheduled refresh (at most an
    /// hour), or a minute when nothing refreshes here (a sync may run elsewhere).
    func maxAge(untilNextMinute: Bool, revalidate: Bool) -> Int {
        if revalidate { return 0 }
        let now = app.assembly.now()
        if untilNextMinute {
            return max(1, 60 - Int(now.timeIntervalSince1970.truncatingRemainder(dividingBy: 60)))
        }
        guard let refresh else { return 60 }
        if refresh.isRunning { return 0 }
        guard let next = refresh.next else { return 60 }
        return min(3_600, max(0, Int(next.timeIntervalSince(now))))
    }

    /// Whether a time parameter means a moment that moves with the clock: absent, `now`, `+30m` or a time of day.
    static func isMoving(_ text: String?) -> Bool {
        guard let text = text?.lowercased() else { return true }
        return text == "now" || TimeGrammar.span(text) != nil || TimeGrammar.timeOfDay(text) != nil
    }

    /// The current minute, for the tags of answers about now.
    func minuteTag() -> String { String(Int(app.assembly.now().timeIntervalSince1970 / 60)) }

    /// The local day now, for the tags of answers about today.
    func dayTag() -> String { LocalDay(containing: app.assembly.now(), time: app.clock).description }

    /// The saved routes, where `routes.storage` keeps them (the file, or the store).
    func routeFile() async throws -> any SavedRoutes { try await app.savedRoutes(store) }

    /// A bridge by id or name from the stored catalog, or `input.unknown-bridge` (404) naming the known bridges.
    func catalogBridge(_ text: String) async throws -> BridgeInfoDTO { try await books.bridge(named: text) }

    /// Bridges named by a repeatable query parameter, each by id or name: an unknown one is a 400 naming it.
    func queryBridges(_ texts: [String], parameter: String = "bridge") async throws -> [BridgeInfoDTO] {
        guard !texts.isEmpty else { return [] }
        let catalog = try await books.book().catalog
        return try texts.map { text in
            guard let bridge = catalog.resolve(text.trimmingCharacters(in: .whitespaces)) else {
                throw Problem.badParameter(parameter, "no bridge named '\(ConfigValueType.escaped(text, limit: 80))'")
            }
            return bridge
        }
    }

    /// The book and catalog of the store's current history, from `memory`: the history is named by the version the
    /// answers are keyed by (asked at most once a second) and the store's generation.
    var books: HistoryBooks {
        let store = self.store, versions = self.versions
        return HistoryBooks(context: app, store: store, memory: memory) {
            let generation = store.generation
            let version = try await versions.version(generation: generation) { try await store.historyVersion() }
            return HistoryKey(version: version, generation: generation)
        }
    }
}

/// The store's history version, asked of the store at most once a `lifetime`: every cached answer's key starts with
/// it, so asking for each request was most of a cached answer's cost. A sync's batches show in the answers within
/// `lifetime` (the refresher in this process also says at once, with `forget()`); `/readyz` still asks the store.
package final class HistoryVersionMemo: Sendable {
    private let state = Locked<(version: Int64, generation: Int, at: ContinuousClock.Instant)?>(nil)
    package let lifetime: Duration

    package init(lifetime: Duration) { self.lifetime = lifetime }

    /// The history version of the store's `generation` (a reopened store's is asked at once).
    package func version(generation: Int = 0, _ ask: () async throws -> Int64) async throws -> Int64 {
        let now = ContinuousClock.now
        if let kept = state.withLock({ $0 }), kept.generation == generation, now - kept.at < lifetime {
            return kept.version
        }
        let version = try await ask()
        state.withLock { $0 = (version, generation, now) }
        return version
    }

    /// The next request asks the store.
    package func forget() { state.withLock { $0 = nil } }
}

/// A count of requests under way, and the gauge that shows it.
package final class RequestCount: Sendable {
    private let count = Locked(0)
    private let gauge: Gauge?

    package init(gauge: Gauge? = nil) { self.gauge = gauge }

    package var value: Int { count.withLock { $0 } }

    func begin() { change(by: 1) }

    func end() { change(by: -1) }

    private func change(by step: Int) {
        count.withLock { count in
            count += step
            gauge?.set(Int64(count)) // under the lock, so the gauge ends at the count whatever the order
        }
    }
}
