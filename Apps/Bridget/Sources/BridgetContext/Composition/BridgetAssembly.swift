import BridgetAnalysis
import BridgetCaching
import BridgetCore
import BridgetDTOs
import BridgetNDW
import BridgetNetworking
import BridgetPersistence
import BridgetSQLite
import Foundation

/// The composition root: the only place that knows every implementation and picks one per boundary from the
/// configuration, with an exhaustive switch per kind (no `default:`; the compiler finds a forgotten arm).
package struct BridgetAssembly: Sendable {
    package let configuration: BridgetConfiguration
    package let now: @Sendable () -> Date
    /// Where the parts' notes to the user go (a retried request, a store read as it is).
    package let notes: @Sendable (String) -> Void
    /// The opening-model rebuilds of this process's stores, shared by whoever asks (`OpeningModelRebuilds`).
    package let modelRebuilds = OpeningModelRebuildsByStore()

    package init(configuration: BridgetConfiguration, now: @escaping @Sendable () -> Date = { Date() },
                 notes: @escaping @Sendable (String) -> Void = { _ in }) {
        self.configuration = configuration
        self.now = now
        self.notes = notes
    }

    /// Who this process is, as another process sees it when this one holds a store's sync lock: "HOST pid N". The
    /// host name is cut to 40 characters: PostgreSQL keeps 63 bytes of an `application_name`, and the pid must stay.
    package static let processIdentity =
        "\(ProcessInfo.processInfo.hostName.prefix(40)) pid \(ProcessInfo.processInfo.processIdentifier)"

    /// The configured data source.
    package func makeProvider() throws -> any NetworkProcessing {
        switch configuration.provider {
        case .sample:
            let settings = configuration.sample
            let lastDay = settings.endDate ?? LocalDay(number: LocalDay(containing: now()).number - 1)
            let generator = SampleOpeningGenerator(seed: settings.seed, invalidRowRate: settings.invalidRate,
                                                   world: .seattle(rateScale: settings.rateScale))
            return SampleProvider(
                generator: generator, lastDay: lastDay.number, days: settings.days, pageSize: settings.pageSize)
        case .live:
            return LiveProvider(client: try makeClient(), query: try makeQuery(), pageSize: configuration.live.pageSize)
        case .cached:
            return CachedProvider(cache: try makeDiskCache(), query: try makeQuery(), pageSize: configuration.live.pageSize)
        case .ndw:
            let ndw = configuration.ndw
            let lowered = ndw.source.lowercased()
            guard lowered.hasPrefix("http://") || lowered.hasPrefix("https://") else {
                return NDWProvider(source: .file(ndw.source), client: nil, maximumBytes: ndw.maximumBytes)
            }
            guard let url = URL(string: ndw.source), url.host != nil else {
                throw BridgetError(.configNDWSource, "provider.ndw.source '\(ndw.source)' is not a URL")
            }
            let settings = FeedClient.Settings(
                timeout: ndw.timeout, maximumBodyBytes: ndw.maximumBytes, retry: RetryPolicy(),
                cachePolicy: CachePolicy(name: configuration.cache.policy, maxAge: configuration.cache.maximumAge)
                    ?? .networkFirst,
                body: .any)
            let client = FeedClient(transport: URLSessionTransport(timeout: ndw.timeout), cache: try makeDiskCache(),
                                    settings: settings, warn: notes)
            return NDWProvider(source: .url(url), client: client, maximumBytes: ndw.maximumBytes)
        }
    }

    /// The live state feed of the configured provider, or `nil` when there is none: the live provider's
    /// `state_url` (null turns it off). Its bridges are the store's catalog (Seattle's when the store has none yet).
    package func makeStateSource(store: (any BridgeStore)?) async throws -> (any BridgeStateSource)? {
        guard configuration.provider == .live, let text = configuration.live.stateURL else { return nil }
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              url.host != nil
        else {
            throw BridgetError(.configStateURL, "provider.live.state_url '\(text)' is not an http(s) URL")
        }
        var ids = Set(try await store?.bridges().map(\.id) ?? [])
        if ids.isEmpty { ids = Set(BridgeCatalog.seattle.bridges.map(\.id)) }
        let timeout = min(10, max(1, configuration.live.statePollSeconds))
        return SDOTStateFeed(url: url, knownBridgeIDs: ids, transport: URLSessionTransport(timeout: timeout),
                             timeout: timeout)
    }

    /// The clock people read times in: the configured source's zone (Seattle's, or Amsterdam's for NDW).
    package var clock: LocalClock {
        switch configuration.provider {
        case .sample, .live, .cached: .seattle
        case .ndw: LocalClock(identifier: "Europe/Amsterdam") ?? .seattle
        }
    }

    /// The Socrata URL builder for `provider.live.base_url` and `dataset`.
    package func makeQuery() throws -> SocrataQuery {
        let live = configuration.live
        guard let url = URL(string: live.baseURL) else {
            throw BridgetError(.configBaseURL, "provider.live.base_url '\(live.baseURL)' is not a URL")
        }
        return try SocrataQuery(baseURL: url, dataset: live.dataset)
    }

    /// The HTTP cache at `cache.path`.
    package func makeDiskCache() throws -> DiskCache {
        try DiskCache(directory: configuration.cache.path, maximumBytes: configuration.cache.maximumBytes, now: now)
    }

    /// The HTTP client of the live provider.
    package func makeClient() throws -> FeedClient {
        let live = configuration.live
        // About 330 bytes a row on the wire; a page that cannot fit the limit would fail on every sync.
        guard live.pageSize * 400 <= live.maximumPageBytes else {
            throw BridgetError(.configPageSize, "provider.live.page_size \(live.pageSize) rows can exceed provider.live.max_page_bytes "
                    + "\(live.maximumPageBytes) (rows are up to ~400 bytes)",
                hint: "use a page_size of at most \(live.maximumPageBytes / 400)")
        }
        try checkTokenTransport()
        guard let policy = CachePolicy(name: configuration.cache.policy, maxAge: configuration.cache.maximumAge) else {
            throw BridgetError(.configCachePolicy, "unknown cache.policy '\(configuration.cache.policy)'")
        }
        let settings = FeedClient.Settings(
            timeout: live.timeout, maximumBodyBytes: live.maximumPageBytes,
            retry: RetryPolicy(maxAttempts: live.retryMaxAttempts, baseDelay: live.retryBaseDelay,
                               maxDelay: live.retryMaxDelay),
            cachePolicy: policy, appToken: configuration.appToken)
        return FeedClient(transport: URLSessionTransport(timeout: live.timeout), cache: try makeDiskCache(), settings: settings,
                             seed: UInt64(truncatingIfNeeded: Int64(now().timeIntervalSince1970)),
                             warn: notes)
    }

    /// Refuses a live provider whose app token would cross the network unencrypted: a plain-http base URL is fine
    /// for loopback only. Checked when a command starts, before anything is written.
    package func checkTokenTransport() throws {
        let live = configuration.live
        guard configuration.provider == .live, configuration.appToken != nil, let url = URL(string: live.baseURL),
              url.scheme?.lowercased() == "http", !Self.isLoopback(host: url.host ?? "")
        else { return }
        throw BridgetError(.configInsecureToken, "provider.live.base_url '\(live.baseURL)' is plain http, and an app token is set "
                + "($\(live.appTokenVariable)): the token would cross the network unencrypted",
            hint: "use an https:// base_url, or unset $\(live.appTokenVariable)")
    }

    /// Whether `host` is this machine: `localhost`, 127.0.0.0/8 or ::1.
    package static func isLoopback(host: String) -> Bool {
        let host = host.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        return host == "localhost" || host == "::1" || host.hasPrefix("127.")
            && host.split(separator: ".").count == 4 && host.split(separator: ".").allSatisfy { UInt8($0) != nil }
    }

    /// The configured store, opened and migrated. For a command that only reads, a SQLite store that cannot be
    /// written (a read-only disk or folder) is opened read-only instead, with a note, and read as it is.
    ///
    /// A command that reads opens a SQLite store for reading and its writer with its first write, so it writes nothing
    /// to open and close the store. `writerAtOnce` opens the writer as the store opens: a process that stays writes
    /// anyway, and a writer opened later would open whatever file the path then names, while its reads stay on the
    /// file first opened (`ReopeningStore` replaces the whole store when the file is replaced).
    package func makeStore(forReading: Bool = false, writerAtOnce: Bool = false) async throws -> any BridgeStore {
        switch configuration.store {
        case .sqlite:
            do {
                let access: SQLiteBridgeStore.Access = forReading && !writerAtOnce ? .readWriteOnFirstWrite : .readWrite
                let store = try SQLiteBridgeStore(path: configuration.storePath, access: access)
                if store.isReadOnly {
                    notes("the store at \(configuration.storePath) cannot be written: reading it as it is")
                }
                return store
            } catch let error as StoreError where forReading && error.sqliteFailure == .unwritable
                && FileManager.default.fileExists(atPath: configuration.storePath)
            {
                let store = try SQLiteBridgeStore(path: configuration.storePath, access: .readOnly)
                notes("the store at \(configuration.storePath) cannot be written: reading it as it is")
                return store
            }
        case .memory: return InMemoryBridgeStore()
        case .postgres: return try await makePostgresStore()
        }
    }

    /// The configured processor, reading history from `store`.
    package func makeProcessor(store: any BridgeStore) -> any BackgroundProcessing {
        let history = StoreEventHistory(store: store)
        switch configuration.processor {
        case .serial:
            return SerialProcessor(
                history: history, maximumDistanceMeters: configuration.maximumDistanceMeters,
                mergeGap: configuration.mergeGap, rules: analysisRules, now: now)
        case .parallel:
            return ParallelProcessor(
                history: history, maximumDistanceMeters: configuration.maximumDistanceMeters,
                mergeGap: configuration.mergeGap, rules: analysisRules, now: now)
        }
    }

    /// The standing rules of the configured source's city: the Ship Canal's curfews (33 CFR 117.1051) for
    /// Seattle's sources, none for the Netherlands'.
    package var standingRules: RuleCalendar {
        configuration.provider == .ndw ? RuleCalendar(curfews: []) : .seattle
    }

    /// What models and backtests know of the rules: the standing ones, and the sample calendar's deviations for the
    /// sample provider (deviations an operator saves are read by forecasts, from the file or the store).
    package var analysisRules: RuleCalendar {
        guard configuration.provider == .sample else { return standingRules }
        let last = configuration.sample.endDate?.number ?? LocalDay(containing: now()).number
        let (firstYear, _, _) = CivilCalendar.civilFromDays(last - configuration.sample.days)
        let (lastYear, _, _) = CivilCalendar.civilFromDays(last + 366)
        return standingRules.with(deviations: (firstYear...lastYear).flatMap(SampleVesselWorld.deviations(inYear:)))
    }

    /// Describes where data lives, for messages: the file path, or "memory".
    package var storeDescription: String {
        switch configuration.store {
        case .sqlite: configuration.storePath
        case .memory: "memory (nothing is kept after the command)"
        case .postgres: postgresDescription
        }
    }
}

/// Lets Analysis read a store's history (its catalog, events and traffic flows) through its `EventHistory` port.
package struct StoreEventHistory: EventHistory {
    package let store: any BridgeCatalogStore & EventStore & TrafficFlowStore

    package init(store: any BridgeCatalogStore & EventStore & TrafficFlowStore) { self.store = store }

    package func bridges() async throws -> [BridgeInfoDTO] { try await store.bridges() }

    package func deleteEvents(openedBefore cutoff: Date) async throws -> Int {
        try await store.deleteEvents(openedBefore: cutoff)
    }

    /// Observed openings only: statistics and models describe what happened, not what a source announced.
    package func foldOpeningRecords<State: Sendable>(
        bridgeIDs: [String]?, into initial: State,
        _ update: @escaping @Sendable (inout State, [OpeningRecordDTO]) throws -> Void
    ) async throws -> State {
        try await store.foldOpeningRecords(bridgeIDs: bridgeIDs, into: initial, update)
    }

    package func trafficFlows(bridgeID: String) async throws -> [TrafficFlowDTO] {
        try await store.trafficFlows(bridgeID: bridgeID)
    }
}
