import BridgetDTOs
import Foundation

/// Where a configuration value came from.
package enum ConfigSource: Sendable, Equatable, CustomStringConvertible {
    case defaultValue
    case file(path: String, line: Int)
    case environment(String)

    package var description: String {
        switch self {
        case .defaultValue: "default"
        case .file(let path, let line): "\(path):\(line)"
        case .environment(let name): "$\(name)"
        }
    }
}

/// Every key's value and where it came from, after the file and the environment were applied.
package struct ResolvedConfiguration: Sendable {
    /// The file read, or "(embedded default)".
    package let origin: String
    package let schema: ConfigSchema
    package let values: [String: (value: ConfigValue, source: ConfigSource)]

    package func value(_ path: String) -> ConfigValue { values[path]?.value ?? .null }

    package func integer(_ path: String) -> Int {
        if case .integer(let value) = value(path) { return value }
        return 0
    }

    package func number(_ path: String) -> Double {
        switch value(path) {
        case .number(let value): value
        case .integer(let value): Double(value)
        default: 0
        }
    }

    package func text(_ path: String) -> String? {
        if case .text(let value) = value(path) { return value }
        return nil
    }
}

/// The typed configuration the composition root builds from.
package struct BridgetConfiguration: Sendable {
    package struct SampleSettings: Sendable, Equatable {
        package var seed: UInt64
        package var days: Int
        package var endDate: LocalDay?
        package var invalidRate: Double
        package var pageSize: Int
        package var rateScale: Double
    }

    package struct LiveSettings: Sendable, Equatable {
        package var baseURL: String
        package var dataset: String
        package var pageSize: Int
        package var timeout: TimeInterval
        package var maximumPageBytes: Int
        package var appTokenVariable: String
        package var retryMaxAttempts: Int
        package var retryBaseDelay: TimeInterval
        package var retryMaxDelay: TimeInterval
        /// The live state feed, or `nil` when it is off.
        package var stateURL: String?
        package var statePollSeconds: TimeInterval
    }

    package struct NDWSettings: Sendable, Equatable {
        /// An http(s) URL, or a file path resolved against the configuration file's folder.
        package var source: String
        package var timeout: TimeInterval
        package var maximumBytes: Int
    }

    package struct CacheSettings: Sendable, Equatable {
        /// The cache folder, resolved.
        package var path: String
        package var maximumBytes: Int
        package var policy: String
        package var maximumAge: TimeInterval
    }

    /// `store.postgres.*`, for `store.kind: postgres`; the password is `postgresPassword`.
    package struct PostgresSettings: Sendable, Equatable {
        /// `nil` when not set.
        package var url: String?
        /// Where `url` came from, for messages ("bridget.yaml:12", "$BRIDGET_STORE_POSTGRES_URL").
        package var urlSource: String
        package var passwordVariable: String
        package var sslMode: String
        package var schema: String
        package var poolSize: Int
        package var connectTimeout: TimeInterval
        /// 0 for none.
        package var statementTimeout: TimeInterval
    }

    package struct ServeSettings: Sendable, Equatable {
        package var host: String
        package var port: Int
        /// The variable holding the bearer token of writes; the token itself is `apiToken`.
        package var tokenVariable: String
        package var drainSeconds: Double
        package var maximumBodyBytes: Int
        package var maximumConnections: Int
        package var idleTimeout: Double
        package var headerTimeout: Double
        package var bodyTimeout: Double
        package var storeTimeout: Double
        /// The most bytes of encoded answers the server keeps (`serve.answer_cache_mb`).
        package var answerCacheBytes: Int
        /// Which web origins may read and write from a browser (`serve.cors`).
        package var crossOrigin: CrossOriginSettings

        package init(host: String, port: Int, tokenVariable: String, drainSeconds: Double, maximumBodyBytes: Int,
                     maximumConnections: Int = 4_096, idleTimeout: Double = 60, headerTimeout: Double = 10,
                     bodyTimeout: Double = 10, storeTimeout: Double = 3, answerCacheBytes: Int = 16 << 20,
                     crossOrigin: CrossOriginSettings = CrossOriginSettings()) {
            self.host = host
            self.port = port
            self.tokenVariable = tokenVariable
            self.drainSeconds = drainSeconds
            self.maximumBodyBytes = maximumBodyBytes
            self.maximumConnections = maximumConnections
            self.idleTimeout = idleTimeout
            self.headerTimeout = headerTimeout
            self.bodyTimeout = bodyTimeout
            self.storeTimeout = storeTimeout
            self.answerCacheBytes = answerCacheBytes
            self.crossOrigin = crossOrigin
        }
    }

    package struct PageSettings: Sendable, Equatable {
        /// A tile server's `{z}/{x}/{y}` URL for the map's basemap, or `nil` for the waterways' schematic.
        package var tilesURL: String?
        package var tilesAttribution: String
    }

    package struct StreamSettings: Sendable, Equatable {
        package var heartbeat: TimeInterval
        package var pollInterval: TimeInterval
        package var clientBuffer: Int
        package var stall: TimeInterval
        /// Stream clients at once, in all and from one remote address.
        package var maximumClients: Int = 1_000
        package var maximumClientsPerAddress: Int = 16
        /// Bytes of events queued to all stream clients together.
        package var memoryBudget: Int = 32 << 20
    }

    package struct AlertSettings: Sendable, Equatable {
        package var retryWindow: TimeInterval
        package var timeout: TimeInterval
        package var backoffInitial: TimeInterval
        package var backoffMaximum: TimeInterval
        package var allowPrivate: Bool
        /// How long finished messages and their attempts are kept.
        package var retention: TimeInterval = 7 * 86_400
        /// The most alerts a store keeps.
        package var maximumAlerts: Int = 1_000
        /// `alerts.secrets_file`.
        package var secretsFile: String?

        package init(retryWindow: TimeInterval, timeout: TimeInterval, backoffInitial: TimeInterval,
                     backoffMaximum: TimeInterval, allowPrivate: Bool) {
            self.retryWindow = retryWindow
            self.timeout = timeout
            self.backoffInitial = backoffInitial
            self.backoffMaximum = backoffMaximum
            self.allowPrivate = allowPrivate
        }
    }

    package struct RefreshSettings: Sendable, Equatable {
        /// `refresh.enabled` as written: `auto`, `true` or `false`; see `isEnabled(for:)`.
        package var enabled: String
        /// Local times of day, `HH:MM`, sorted.
        package var times: [String]
        /// Minutes between syncs, replacing `times` when set.
        package var everyMinutes: Int?
        package var jitterMinutes: Int
        package var backoffInitial: TimeInterval
        package var backoffMaximum: TimeInterval

        /// Whether `serve` refreshes: `auto` means for the providers whose source changes (live, ndw).
        package func isEnabled(for provider: ProviderKind) -> Bool {
            switch enabled {
            case "true": true
            case "false": false
            default: provider == .live || provider == .ndw
            }
        }
    }

    package var provider: ProviderKind
    package var sample: SampleSettings
    package var live: LiveSettings
    package var ndw: NDWSettings
    package var cache: CacheSettings
    /// The app token, read from the variable `live.appTokenVariable` names; never printed.
    package var appToken: String?
    package var processor: ProcessorKind
    package var store: StoreKind
    /// The SQLite file, resolved (tilde expanded, absolute).
    package var storePath: String
    package var postgres: PostgresSettings
    /// The PostgreSQL role's password, read from the variable `postgres.passwordVariable` names; never printed.
    package var postgresPassword: String?
    /// `routes.path`, resolved: the saved routes' YAML file.
    package var routesPath: String
    /// Where saved routes are kept, `routes.storage` as written (see `routesInStore`).
    package var routeStorage: RouteStorage

    /// Whether saved routes live in the store: `store`, or `auto` with a store several hosts share (PostgreSQL).
    package var routesInStore: Bool {
        switch routeStorage {
        case .store: true
        case .file: false
        case .auto: store.isShared
        }
    }
    /// `rules.path`, resolved: the dated deviations' YAML file; `rules.storage` as written (see `rulesInStore`).
    package var rulesPath: String
    package var ruleStorage: RouteStorage

    /// Whether dated deviations live in the store: `store`, or `auto` with a store several hosts share.
    package var rulesInStore: Bool {
        switch ruleStorage {
        case .store: true
        case .file: false
        case .auto: store.isShared
        }
    }
    package var batchSize: Int
    /// Rows per transaction of `bridget import`.
    package var importBatchSize: Int
    /// Where `sync` and `import` append rejected rows when no `--rejects` is given.
    package var syncRejectsPath: String?
    package var importRejectsPath: String?
    package var overlap: TimeInterval
    package var maximumDistanceMeters: Double
    /// Rows of one bridge closer than this (seconds) are one opening.
    package var mergeGap: TimeInterval
    package var serve: ServeSettings
    /// The bearer token writes to the API need, read from the variable `serve.tokenVariable` names; never printed.
    package var apiToken: String?
    package var refresh: RefreshSettings
    /// Changes older than this leave the change log (`changes.keep_days`).
    package var changeRetention: TimeInterval
    /// A planned opening within this is "opening soon" (`status.soon_minutes`).
    package var soonInterval: TimeInterval
    package var stream: StreamSettings
    package var alerts: AlertSettings
    package var pages: PageSettings
    /// The values and their sources, for `config show`.
    package let resolved: ResolvedConfiguration

    /// Builds the typed view; every value was already checked against the schema.
    package init(_ resolved: ResolvedConfiguration, environment: [String: String]) {
        self.resolved = resolved
        provider = ProviderKind(rawValue: resolved.text("provider.kind") ?? "") ?? .sample
        sample = SampleSettings(
            seed: UInt64(resolved.integer("provider.sample.seed")), days: resolved.integer("provider.sample.days"),
            endDate: resolved.text("provider.sample.end_date").flatMap(LocalDay.init),
            invalidRate: resolved.number("provider.sample.invalid_rate"),
            pageSize: resolved.integer("provider.sample.page_size"),
            rateScale: resolved.number("provider.sample.rate_scale"))
        live = LiveSettings(
            baseURL: resolved.text("provider.live.base_url") ?? "", dataset: resolved.text("provider.live.dataset") ?? "",
            pageSize: resolved.integer("provider.live.page_size"),
            timeout: resolved.number("provider.live.timeout_seconds"),
            maximumPageBytes: resolved.integer("provider.live.max_page_bytes"),
            appTokenVariable: resolved.text("provider.live.app_token_env") ?? "BRIDGET_APP_TOKEN",
            retryMaxAttempts: resolved.integer("provider.live.retry_max_attempts"),
            retryBaseDelay: resolved.number("provider.live.retry_base_delay_seconds"),
            retryMaxDelay: resolved.number("provider.live.retry_max_delay_seconds"),
            stateURL: resolved.text("provider.live.state_url"),
            statePollSeconds: resolved.number("provider.live.state_poll_seconds"))
        appToken = environment[live.appTokenVariable].flatMap { $0.isEmpty ? nil : $0 }
        ndw = NDWSettings(
            source: Self.resolveFeedSource(resolved.text("provider.ndw.source") ?? "", origin: resolved.origin),
            timeout: resolved.number("provider.ndw.timeout_seconds"),
            maximumBytes: resolved.integer("provider.ndw.max_bytes"))
        cache = CacheSettings(
            path: Self.resolveCachePath(resolved.text("cache.path"), environment: environment),
            maximumBytes: resolved.integer("cache.max_bytes"), policy: resolved.text("cache.policy") ?? "network-first",
            maximumAge: TimeInterval(resolved.integer("cache.max_age_minutes")) * 60)
        processor = ProcessorKind(rawValue: resolved.text("processor.kind") ?? "") ?? .serial
        store = StoreKind(rawValue: resolved.text("store.kind") ?? "") ?? .sqlite
        storePath = Self.resolveStorePath(resolved.text("store.path"), environment: environment)
        postgres = PostgresSettings(
            url: resolved.text("store.postgres.url"),
            urlSource: resolved.values["store.postgres.url"]?.source.description ?? "default",
            passwordVariable: resolved.text("store.postgres.password_env") ?? "PGPASSWORD",
            sslMode: resolved.text("store.postgres.sslmode") ?? "prefer",
            schema: resolved.text("store.postgres.schema") ?? "public",
            poolSize: resolved.integer("store.postgres.pool_size"),
            connectTimeout: resolved.number("store.postgres.connect_timeout_seconds"),
            statementTimeout: resolved.number("store.postgres.statement_timeout_seconds"))
        postgresPassword = environment[postgres.passwordVariable]
        routesPath = Self.resolve(resolved.text("routes.path"), environment: environment)
            ?? Self.xdg("XDG_CONFIG_HOME", ".config", environment) + "/bridget/routes.yaml"
        routeStorage = resolved.text("routes.storage").flatMap { RouteStorage(rawValue: $0) } ?? .auto
        rulesPath = Self.resolve(resolved.text("rules.path"), environment: environment)
            ?? Self.xdg("XDG_CONFIG_HOME", ".config", environment) + "/bridget/rules.yaml"
        ruleStorage = resolved.text("rules.storage").flatMap { RouteStorage(rawValue: $0) } ?? .auto
        batchSize = resolved.integer("sync.batch_size")
        if case .integer(let size) = resolved.value("import.batch_size") {
            importBatchSize = size
        } else {
            importBatchSize = store.defaultImportBatchSize
        }
        syncRejectsPath = resolved.text("sync.rejects_path")
        importRejectsPath = resolved.text("import.rejects_path")
        overlap = TimeInterval(resolved.integer("sync.overlap_hours")) * 3600
        maximumDistanceMeters = resolved.number("validation.max_distance_meters")
        mergeGap = resolved.number("analysis.merge_gap_minutes") * 60
        serve = ServeSettings(
            host: resolved.text("serve.host") ?? "127.0.0.1", port: resolved.integer("serve.port"),
            tokenVariable: resolved.text("serve.token_env") ?? "BRIDGET_API_TOKEN",
            drainSeconds: resolved.number("serve.drain_seconds"),
            maximumBodyBytes: resolved.integer("serve.max_body_bytes"),
            maximumConnections: resolved.integer("serve.max_connections"),
            idleTimeout: resolved.number("serve.idle_timeout_seconds"),
            headerTimeout: resolved.number("serve.header_timeout_seconds"),
            bodyTimeout: resolved.number("serve.body_timeout_seconds"),
            storeTimeout: resolved.number("serve.store_timeout_seconds"),
            answerCacheBytes: resolved.integer("serve.answer_cache_mb") << 20,
            crossOrigin: CrossOriginSettings(allowed: resolved.text("serve.cors.allowed_origins") ?? "*",
                                             writers: resolved.text("serve.cors.write_origins") ?? "",
                                             maxAge: resolved.integer("serve.cors.max_age_seconds")))
        apiToken = environment[serve.tokenVariable].flatMap { $0.isEmpty ? nil : $0 }
        let every: Int? = if case .integer(let minutes) = resolved.value("refresh.every") { minutes } else { nil }
        refresh = RefreshSettings(
            enabled: resolved.text("refresh.enabled") ?? "auto",
            times: (resolved.text("refresh.times") ?? "05:30,17:30").split(separator: ",").map(String.init),
            everyMinutes: every, jitterMinutes: resolved.integer("refresh.jitter_minutes"),
            backoffInitial: resolved.number("refresh.backoff_initial_seconds"),
            backoffMaximum: resolved.number("refresh.backoff_max_seconds"))
        changeRetention = TimeInterval(resolved.integer("changes.keep_days")) * 86_400
        soonInterval = TimeInterval(resolved.integer("status.soon_minutes")) * 60
        stream = StreamSettings(
            heartbeat: resolved.number("stream.heartbeat_seconds"),
            pollInterval: TimeInterval(resolved.integer("stream.poll_ms")) / 1000,
            clientBuffer: resolved.integer("stream.client_buffer"), stall: resolved.number("stream.stall_seconds"),
            // Unset, it is also at most half of the connections: the rest stay for other requests.
            maximumClients: resolved.values["stream.max_clients"]?.source == .defaultValue
                ? min(resolved.integer("stream.max_clients"), max(1, resolved.integer("serve.max_connections") / 2))
                : resolved.integer("stream.max_clients"),
            maximumClientsPerAddress: resolved.integer("stream.max_clients_per_address"),
            memoryBudget: resolved.integer("stream.memory_mb") << 20)
        alerts = AlertSettings(
            retryWindow: resolved.number("alerts.retry_hours") * 3600, timeout: resolved.number("alerts.timeout_seconds"),
            backoffInitial: resolved.number("alerts.backoff_initial_seconds"),
            backoffMaximum: resolved.number("alerts.backoff_max_seconds"),
            allowPrivate: resolved.text("alerts.allow_private") == "true")
        alerts.retention = TimeInterval(resolved.integer("alerts.keep_days")) * 86_400
        alerts.maximumAlerts = resolved.integer("alerts.max_alerts")
        alerts.secretsFile = resolved.text("alerts.secrets_file")
        pages = PageSettings(tilesURL: resolved.text("pages.tiles_url"),
                             tilesAttribution: resolved.text("pages.tiles_attribution") ?? "")
    }

    /// `store.path`, or the XDG default when it is null.
    package static func resolveStorePath(_ configured: String?, environment: [String: String]) -> String {
        resolve(configured, environment: environment) ?? xdg("XDG_DATA_HOME", ".local/share", environment) + "/bridget/bridget.sqlite"
    }

    /// An http(s) URL as it is; a relative file path against the configuration file's folder (the working folder
    /// for the embedded default).
    package static func resolveFeedSource(_ text: String, origin: String) -> String {
        let lowered = text.lowercased()
        if lowered.hasPrefix("http://") || lowered.hasPrefix("https://") || text.hasPrefix("/") { return text }
        guard origin.hasPrefix("/") || FileManager.default.fileExists(atPath: origin) else { return text }
        return URL(fileURLWithPath: origin).deletingLastPathComponent().appendingPathComponent(text).standardizedFileURL.path
    }

    /// `cache.path`, or the XDG default when it is null.
    package static func resolveCachePath(_ configured: String?, environment: [String: String]) -> String {
        resolve(configured, environment: environment) ?? xdg("XDG_CACHE_HOME", ".cache", environment) + "/bridget/http"
    }

    /// A configured path with `~` expanded, made absolute against the current folder; `nil` when unset.
    private static func resolve(_ configured: String?, environment: [String: String]) -> String? {
        guard let configured, !configured.isEmpty else { return nil }
        let home = environment["HOME"] ?? NSHomeDirectory()
        var path = configured
        if path == "~" || path.hasPrefix("~/") { path = home + path.dropFirst() }
        if !path.hasPrefix("/") { path = FileManager.default.currentDirectoryPath + "/" + path }
        return URL(fileURLWithPath: path).standardizedFileURL.path
    }

    private static func xdg(_ variable: String, _ fallback: String, _ environment: [String: String]) -> String {
        let home = environment["HOME"] ?? NSHomeDirectory()
        return environment[variable].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? home + "/" + fallback
    }
}
