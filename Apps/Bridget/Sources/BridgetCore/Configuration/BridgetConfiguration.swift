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
        live = LiveSettings(resolved)
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
        postgres = PostgresSettings(resolved)
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
        serve = ServeSettings(resolved)
        apiToken = environment[serve.tokenVariable].flatMap { $0.isEmpty ? nil : $0 }
        refresh = RefreshSettings(resolved)
        changeRetention = TimeInterval(resolved.integer("changes.keep_days")) * 86_400
        soonInterval = TimeInterval(resolved.integer("status.soon_minutes")) * 60
        stream = StreamSettings(resolved)
        alerts = AlertSettings(resolved)
        pages = PageSettings(tilesURL: resolved.text("pages.tiles_url"),
                             tilesAttribution: resolved.text("pages.tiles_attribution") ?? "")
    }
}
