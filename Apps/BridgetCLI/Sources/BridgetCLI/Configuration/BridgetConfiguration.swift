import BridgetDTOs
import Foundation

/// Where a configuration value came from.
enum ConfigSource: Sendable, Equatable, CustomStringConvertible {
    case defaultValue
    case file(path: String, line: Int)
    case environment(String)

    var description: String {
        switch self {
        case .defaultValue: "default"
        case .file(let path, let line): "\(path):\(line)"
        case .environment(let name): "$\(name)"
        }
    }
}

/// Every key's value and where it came from, after the file and the environment were applied.
struct ResolvedConfiguration: Sendable {
    /// The file read, or "(embedded default)".
    let origin: String
    let schema: ConfigSchema
    let values: [String: (value: ConfigValue, source: ConfigSource)]

    func value(_ path: String) -> ConfigValue { values[path]?.value ?? .null }

    func integer(_ path: String) -> Int {
        if case .integer(let value) = value(path) { return value }
        return 0
    }

    func number(_ path: String) -> Double {
        switch value(path) {
        case .number(let value): value
        case .integer(let value): Double(value)
        default: 0
        }
    }

    func text(_ path: String) -> String? {
        if case .text(let value) = value(path) { return value }
        return nil
    }
}

/// The typed configuration the composition root builds from.
struct BridgetConfiguration: Sendable {
    struct SampleSettings: Sendable, Equatable {
        var seed: UInt64
        var days: Int
        var endDate: LocalDay?
        var invalidRate: Double
        var pageSize: Int
        var rateScale: Double
    }

    struct LiveSettings: Sendable, Equatable {
        var baseURL: String
        var dataset: String
        var pageSize: Int
        var timeout: TimeInterval
        var maximumPageBytes: Int
        var appTokenVariable: String
        var retryMaxAttempts: Int
        var retryBaseDelay: TimeInterval
        var retryMaxDelay: TimeInterval
    }

    struct NDWSettings: Sendable, Equatable {
        /// An http(s) URL, or a file path resolved against the configuration file's folder.
        var source: String
        var timeout: TimeInterval
        var maximumBytes: Int
    }

    struct CacheSettings: Sendable, Equatable {
        /// The cache folder, resolved.
        var path: String
        var maximumBytes: Int
        var policy: String
        var maximumAge: TimeInterval
    }

    /// `store.postgres.*`, for `store.kind: postgres`; the password is `postgresPassword`.
    struct PostgresSettings: Sendable, Equatable {
        /// `nil` when not set.
        var url: String?
        /// Where `url` came from, for messages ("bridget.yaml:12", "$BRIDGET_STORE_POSTGRES_URL").
        var urlSource: String
        var passwordVariable: String
        var sslMode: String
        var schema: String
        var poolSize: Int
        var connectTimeout: TimeInterval
        /// 0 for none.
        var statementTimeout: TimeInterval
    }

    struct ServeSettings: Sendable, Equatable {
        var host: String
        var port: Int
        /// The variable holding the bearer token of writes; the token itself is `apiToken`.
        var tokenVariable: String
        var drainSeconds: Double
        var maximumBodyBytes: Int
    }

    struct RefreshSettings: Sendable, Equatable {
        /// `refresh.enabled` as written: `auto`, `true` or `false`; see `isEnabled(for:)`.
        var enabled: String
        /// Local times of day, `HH:MM`, sorted.
        var times: [String]
        /// Minutes between syncs, replacing `times` when set.
        var everyMinutes: Int?
        var jitterMinutes: Int
        var backoffInitial: TimeInterval
        var backoffMaximum: TimeInterval

        /// Whether `serve` refreshes: `auto` means for the providers whose source changes (live, ndw).
        func isEnabled(for provider: ProviderKind) -> Bool {
            switch enabled {
            case "true": true
            case "false": false
            default: provider == .live || provider == .ndw
            }
        }
    }

    var provider: ProviderKind
    var sample: SampleSettings
    var live: LiveSettings
    var ndw: NDWSettings
    var cache: CacheSettings
    /// The app token, read from the variable `live.appTokenVariable` names; never printed.
    var appToken: String?
    var processor: ProcessorKind
    var store: StoreKind
    /// The SQLite file, resolved (tilde expanded, absolute).
    var storePath: String
    var postgres: PostgresSettings
    /// The PostgreSQL role's password, read from the variable `postgres.passwordVariable` names; never printed.
    var postgresPassword: String?
    /// `routes.path`, resolved: the saved routes' YAML file.
    var routesPath: String
    var batchSize: Int
    /// Rows per transaction of `bridget import`.
    var importBatchSize: Int
    /// Where `sync` and `import` append rejected rows when no `--rejects` is given.
    var syncRejectsPath: String?
    var importRejectsPath: String?
    var overlap: TimeInterval
    var maximumDistanceMeters: Double
    /// Rows of one bridge closer than this (seconds) are one opening.
    var mergeGap: TimeInterval
    var serve: ServeSettings
    /// The bearer token writes to the API need, read from the variable `serve.tokenVariable` names; never printed.
    var apiToken: String?
    var refresh: RefreshSettings
    /// The values and their sources, for `config show`.
    let resolved: ResolvedConfiguration

    /// Builds the typed view; every value was already checked against the schema.
    init(_ resolved: ResolvedConfiguration, environment: [String: String]) {
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
            retryMaxDelay: resolved.number("provider.live.retry_max_delay_seconds"))
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
        batchSize = resolved.integer("sync.batch_size")
        importBatchSize = resolved.integer("import.batch_size")
        syncRejectsPath = resolved.text("sync.rejects_path")
        importRejectsPath = resolved.text("import.rejects_path")
        overlap = TimeInterval(resolved.integer("sync.overlap_hours")) * 3600
        maximumDistanceMeters = resolved.number("validation.max_distance_meters")
        mergeGap = resolved.number("analysis.merge_gap_minutes") * 60
        serve = ServeSettings(
            host: resolved.text("serve.host") ?? "127.0.0.1", port: resolved.integer("serve.port"),
            tokenVariable: resolved.text("serve.token_env") ?? "BRIDGET_API_TOKEN",
            drainSeconds: resolved.number("serve.drain_seconds"),
            maximumBodyBytes: resolved.integer("serve.max_body_bytes"))
        apiToken = environment[serve.tokenVariable].flatMap { $0.isEmpty ? nil : $0 }
        let every: Int? = if case .integer(let minutes) = resolved.value("refresh.every") { minutes } else { nil }
        refresh = RefreshSettings(
            enabled: resolved.text("refresh.enabled") ?? "auto",
            times: (resolved.text("refresh.times") ?? "05:30,17:30").split(separator: ",").map(String.init),
            everyMinutes: every, jitterMinutes: resolved.integer("refresh.jitter_minutes"),
            backoffInitial: resolved.number("refresh.backoff_initial_seconds"),
            backoffMaximum: resolved.number("refresh.backoff_max_seconds"))
    }

    /// `store.path`, or the XDG default when it is null.
    static func resolveStorePath(_ configured: String?, environment: [String: String]) -> String {
        resolve(configured, environment: environment) ?? xdg("XDG_DATA_HOME", ".local/share", environment) + "/bridget/bridget.sqlite"
    }

    /// An http(s) URL as it is; a relative file path against the configuration file's folder (the working folder
    /// for the embedded default).
    static func resolveFeedSource(_ text: String, origin: String) -> String {
        let lowered = text.lowercased()
        if lowered.hasPrefix("http://") || lowered.hasPrefix("https://") || text.hasPrefix("/") { return text }
        guard origin.hasPrefix("/") || FileManager.default.fileExists(atPath: origin) else { return text }
        return URL(fileURLWithPath: origin).deletingLastPathComponent().appendingPathComponent(text).standardizedFileURL.path
    }

    /// `cache.path`, or the XDG default when it is null.
    static func resolveCachePath(_ configured: String?, environment: [String: String]) -> String {
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
