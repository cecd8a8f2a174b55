/// The data sources `provider.kind` can name. Adding one: a provider file, a case here, and the arms the
/// compiler then asks for (its settings below, its construction in `BridgetAssembly`).
package enum ProviderKind: String, CaseIterable, Sendable {
    /// Synthetic, realistic, deterministic openings; no network.
    case sample
    /// The Socrata API over HTTPS (data.seattle.gov by default).
    case live
    /// What earlier live syncs left in the HTTP cache; no network.
    case cached
    /// The Dutch national road data office's bridge openings (DATEX II), from its URL or a file.
    case ndw

    /// The keys of this provider's own section, `provider.<kind>`.
    package var settings: [ConfigKey] {
        switch self {
        case .sample:
            [
                ConfigKey("provider.sample.seed", .integer(0...Int.max), default: .integer(42),
                          help: "generator seed; the same seed and days give identical rows"),
                ConfigKey("provider.sample.days", .integer(1...36_500), default: .integer(365),
                          help: "days of history to generate, ending with end_date"),
                ConfigKey("provider.sample.end_date", .date, default: .null, nullable: true,
                          help: "last day generated (YYYY-MM-DD, Seattle); null means yesterday"),
                ConfigKey("provider.sample.invalid_rate", .number(0...1), default: .number(0.002),
                          help: "share of openings written as a row that breaks a validation rule"),
                ConfigKey("provider.sample.page_size", .integer(1...1_000_000), default: .integer(5_000),
                          help: "rows per page (whole days are kept together)"),
                ConfigKey("provider.sample.rate_scale", .number(0.01...100), default: .number(1),
                          help: "multiplies every bridge's opening rate (a busier city, for benchmarks)"),
            ]
        case .live:
            [
                ConfigKey("provider.live.base_url", .httpURL, default: .text("https://data.seattle.gov"),
                          help: "the Socrata site (the cached provider reads the pages fetched from it)"),
                ConfigKey("provider.live.dataset", .datasetID, default: .text("gm8h-9449"),
                          help: "the dataset id (SDOT Drawbridge Status)"),
                ConfigKey("provider.live.page_size", .integer(1...50_000), default: .integer(5_000),
                          help: "rows per request ($limit); must fit max_page_bytes"),
                ConfigKey("provider.live.timeout_seconds", .number(0.1...600), default: .number(30),
                          help: "seconds before a request times out (then it is retried)"),
                ConfigKey("provider.live.max_page_bytes", .integer(10_000...500_000_000), default: .integer(5_000_000),
                          help: "a larger response is refused"),
                ConfigKey("provider.live.app_token_env", .text, default: .text("BRIDGET_APP_TOKEN"),
                          help: "environment variable holding the Socrata app token (sent as X-App-Token)"),
                ConfigKey("provider.live.retry_max_attempts", .integer(1...20), default: .integer(5),
                          help: "attempts per request, the first included"),
                ConfigKey("provider.live.retry_base_delay_seconds", .number(0...60), default: .number(1),
                          help: "wait before the first retry; doubles each time, with jitter"),
                ConfigKey("provider.live.retry_max_delay_seconds", .number(0...600), default: .number(30),
                          help: "longest wait between attempts, Retry-After included"),
                ConfigKey("provider.live.state_url", .httpURL,
                          default: .text("https://web.seattle.gov/Travelers/api/Map/GetBridgeData"), nullable: true,
                          help: "the city's live bridge state, polled by watch and serve; null turns it off"),
                ConfigKey("provider.live.state_poll_seconds", .number(1...3_600), default: .number(20),
                          help: "seconds between polls of state_url (each with up to a tenth more, at random)"),
            ]
        case .cached:
            []
        case .ndw:
            [
                ConfigKey("provider.ndw.source", .text, default: .text("https://opendata.ndw.nu/brugopeningen.xml.gz"),
                          help: "the feed's http(s) URL, or a file (.xml.gz or .xml; relative to this file's folder)"),
                ConfigKey("provider.ndw.timeout_seconds", .number(0.1...600), default: .number(30),
                          help: "seconds the whole download may take (then it is retried)"),
                ConfigKey("provider.ndw.max_bytes", .integer(10_000...1_000_000_000), default: .integer(64_000_000),
                          help: "a larger feed (downloaded or unzipped) is refused"),
            ]
        }
    }
}

/// The processors `processor.kind` can name.
package enum ProcessorKind: String, CaseIterable, Sendable {
    /// Every job on one task, step by step.
    case serial
    /// The same answers, with validation and per-bridge work spread over the machine's cores.
    case parallel
}

/// The stores `store.kind` can name.
package enum StoreKind: String, CaseIterable, Sendable {
    /// A SQLite file at `store.path`.
    case sqlite
    /// Nothing on disk; each command starts empty (read commands sync first).
    case memory
    /// A PostgreSQL database at `store.postgres.url`, which several hosts can share (built with the Postgres trait).
    case postgres

    /// Whether several hosts share the store: then what every host must see alike (saved routes, dated deviations)
    /// lives in it by default (`routes.storage: auto`, `rules.storage: auto`).
    package var isShared: Bool { self == .postgres }

    /// Rows `bridget import` writes a transaction when `import.batch_size` is null: a PostgreSQL transaction costs a
    /// dozen round trips, so bigger batches for it (about 130 MB at the peak of a million-row import, against 95 MB
    /// with SQLite's 10,000).
    package var defaultImportBatchSize: Int { self == .postgres ? 25_000 : 10_000 }
}

/// Where saved routes are kept (`routes.storage`), and dated deviations (`rules.storage`).
package enum RouteStorage: String, CaseIterable, Sendable {
    /// The store when several hosts share it (PostgreSQL), else the file.
    case auto
    /// A YAML file beside the configuration (`routes.path`): one user's, on one machine.
    case file
    /// The configured store, with the data: every host that shares the store has the same routes.
    case store
}

extension ConfigSchema {
    /// Bridget's configuration keys.
    package static let bridget = ConfigSchema(keys: [
        ConfigKey("provider.kind", .choice(ProviderKind.allCases.map(\.rawValue)), default: .text("sample"),
                  help: "where openings come from"),
    ] + ProviderKind.allCases.flatMap(\.settings) + [
        ConfigKey("processor.kind", .choice(ProcessorKind.allCases.map(\.rawValue)), default: .text("serial"),
                  help: "how analysis work is scheduled"),
        ConfigKey("store.kind", .choice(StoreKind.allCases.map(\.rawValue)), default: .text("sqlite"),
                  help: "where openings are kept"),
        ConfigKey("store.path", .path, default: .null, nullable: true,
                  help: "SQLite file; null means $XDG_DATA_HOME/bridget/bridget.sqlite (~/.local/share/bridget/…)"),
        ConfigKey("store.postgres.url", .text, default: .null, nullable: true,
                  help: "postgres://USER@HOST:PORT/DATABASE for store.kind postgres; never a password"),
        ConfigKey("store.postgres.password_env", .text, default: .text("PGPASSWORD"),
                  help: "the variable holding the role's password (never written anywhere)"),
        ConfigKey("store.postgres.sslmode", .choice(["disable", "prefer", "require", "verify-full"]),
                  default: .text("prefer"), help: "disable | prefer | require | verify-full (checks the certificate)"),
        ConfigKey("store.postgres.schema", .text, default: .text("public"),
                  help: "the schema Bridget's tables live in (lower-case letters, digits, _)"),
        ConfigKey("store.postgres.pool_size", .integer(2...200), default: .integer(8),
                  help: "connections each bridget process keeps at most"),
        ConfigKey("store.postgres.connect_timeout_seconds", .number(0.1...600), default: .number(10),
                  help: "how long to wait for the server"),
        ConfigKey("store.postgres.statement_timeout_seconds", .number(0...86_400), default: .number(0),
                  help: "the server cancels a statement running longer; 0 for no limit"),
        ConfigKey("routes.storage", .choice(RouteStorage.allCases.map(\.rawValue)), default: .text("auto"),
                  help: "file | store | auto (the store when it is PostgreSQL, which several hosts share; else the file)"),
        ConfigKey("routes.path", .path, default: .null, nullable: true,
                  help: "saved routes (YAML); null means $XDG_CONFIG_HOME/bridget/routes.yaml (~/.config/bridget/…)"),
        ConfigKey("rules.storage", .choice(RouteStorage.allCases.map(\.rawValue)), default: .text("auto"),
                  help: "file | store | auto (the store when it is PostgreSQL, which several hosts share; else the file)"),
        ConfigKey("rules.path", .path, default: .null, nullable: true,
                  help: "dated deviations (YAML); null means $XDG_CONFIG_HOME/bridget/rules.yaml (~/.config/bridget/…)"),
        ConfigKey("cache.path", .path, default: .null, nullable: true,
                  help: "HTTP cache folder; null means $XDG_CACHE_HOME/bridget/http (~/.cache/bridget/http)"),
        ConfigKey("cache.max_bytes", .integer(1_000_000...100_000_000_000), default: .integer(200_000_000),
                  help: "size budget of the HTTP cache; the oldest entries go first"),
        ConfigKey("cache.policy", .choice(["network-first", "cache-first", "cache-only", "stale-if-error"]),
                  default: .text("network-first"),
                  help: "network-first | cache-first (within max_age) | cache-only | stale-if-error"),
        ConfigKey("cache.max_age_minutes", .integer(0...525_600), default: .integer(60),
                  help: "how long cache-first trusts a cached response"),
        ConfigKey("sync.batch_size", .integer(1...1_000_000), default: .integer(5_000),
                  help: "events written per transaction"),
        ConfigKey("sync.overlap_hours", .integer(0...8_760), default: .integer(48),
                  help: "an incremental sync re-reads this much before the newest stored opening"),
        ConfigKey("sync.rejects_path", .text, default: .null, nullable: true,
                  help: "append every rejected row to this NDJSON file (as --rejects does); null keeps only counts"),
        ConfigKey("import.batch_size", .integer(1...1_000_000), default: .null, nullable: true,
                  help: "rows validated and written per transaction (and per checkpoint) by `bridget import`; "
                      + "null: the store's (10,000 for SQLite; 25,000 for PostgreSQL, where each transaction costs "
                      + "a dozen round trips)"),
        ConfigKey("import.rejects_path", .text, default: .null, nullable: true,
                  help: "append every rejected row to this NDJSON file (as --rejects does); null keeps only counts"),
        ConfigKey("analysis.merge_gap_minutes", .number(0...60), default: .number(2),
                  help: "rows of one bridge closer than this are one physical opening in every figure"),
        ConfigKey("validation.max_distance_meters", .number(1...1_000_000), default: .number(1_000),
                  help: "a row whose coordinates lie farther from its bridge is rejected"),
        ConfigKey("serve.host", .text, default: .text("127.0.0.1"),
                  help: "the address `bridget serve` listens on (--host overrides)"),
        ConfigKey("serve.port", .integer(0...65_535), default: .integer(8080),
                  help: "the port `bridget serve` listens on; 0 picks a free one (--port overrides)"),
        ConfigKey("serve.token_env", .text, default: .text("BRIDGET_API_TOKEN"),
                  help: "the variable holding the bearer token PUT and DELETE need; unset, writes answer 403"),
        ConfigKey("serve.drain_seconds", .number(0...600), default: .number(10),
                  help: "on SIGTERM or SIGHUP, how long requests in flight (and a running sync's batch) may take to finish"),
        ConfigKey("serve.max_body_bytes", .integer(1_024...10_000_000), default: .integer(65_536),
                  help: "a larger request body is answered 413"),
        ConfigKey("serve.max_connections", .integer(1...1_000_000), default: .integer(4_096),
                  help: "connections open at once; more wait to be accepted (the open-file limit must allow them)"),
        ConfigKey("serve.idle_timeout_seconds", .number(1...3_600), default: .number(60),
                  help: "a connection with no request for this long is closed"),
        ConfigKey("serve.header_timeout_seconds", .number(1...600), default: .number(10),
                  help: "a request whose head has not arrived this long after it began is dropped"),
        ConfigKey("serve.body_timeout_seconds", .number(1...600), default: .number(10),
                  help: "a request body not received in this long is answered 408"),
        ConfigKey("serve.store_timeout_seconds", .number(0.1...600), default: .number(3),
                  help: "a store that does not answer a request's read in this long is answered 503"),
        ConfigKey("serve.answer_cache_mb", .integer(1...4_096), default: .integer(16),
                  help: "encoded answers kept in memory, least recently used out first (the server's memory grows by this much at most)"),
        ConfigKey("serve.cors.allowed_origins", .origins(anyAllowed: true), default: .text("*"),
                  help: "web origins whose pages may read the API (GET, HEAD, the stream): a list, or \"*\" for any; "
                      + "[] for none (no credentials either way)"),
        ConfigKey("serve.cors.write_origins", .origins(anyAllowed: false), default: .text(""),
                  help: "web origins whose pages may also write (PUT and DELETE of routes and alerts, with the token): "
                      + "each listed, never \"*\"; [] (the default) for none"),
        ConfigKey("serve.cors.max_age_seconds", .integer(0...86_400), default: .integer(600),
                  help: "how long a browser may keep a preflight's answer"),
        ConfigKey("refresh.enabled", .choice(["auto", "true", "false"]), default: .text("auto"),
                  help: "sync on a schedule inside serve: auto is on for live and ndw, off for sample and cached"),
        ConfigKey("refresh.times", .timesOfDay, default: .text("05:30,17:30"),
                  help: "when to sync, in the provider's local time (Seattle for live)"),
        ConfigKey("refresh.every", .minutes(1...10_080), default: .null, nullable: true,
                  help: "sync this often instead (e.g. 30m, 6h); null uses times"),
        ConfigKey("refresh.jitter_minutes", .integer(0...240), default: .integer(10),
                  help: "a random delay up to this added to each scheduled sync"),
        ConfigKey("refresh.backoff_initial_seconds", .number(1...86_400), default: .number(60),
                  help: "after a failed sync, retry after this long, doubling each time"),
        ConfigKey("refresh.backoff_max_seconds", .number(1...86_400), default: .number(3_600),
                  help: "the longest wait between retries"),
        ConfigKey("changes.keep_days", .integer(1...3_650), default: .integer(7),
                  help: "prune and the refresher remove changes older than this from the change log (the newest stays)"),
        ConfigKey("status.soon_minutes", .integer(1...1_440), default: .integer(30),
                  help: "a planned opening within this many minutes is \"opening soon\""),
        ConfigKey("stream.heartbeat_seconds", .number(1...600), default: .number(15),
                  help: "a comment this often keeps proxies from closing a quiet stream"),
        ConfigKey("stream.poll_ms", .integer(10...60_000), default: .integer(100),
                  help: "how often the server reads the change log when no commit woke it (a commit wakes it at once)"),
        ConfigKey("stream.client_buffer", .integer(1...1_000_000), default: .integer(1_000),
                  help: "changes queued for one stream client; past it the client reads what it missed from the store"),
        ConfigKey("stream.stall_seconds", .number(0.1...3_600), default: .number(10),
                  help: "a stream client that takes nothing sent this long is dropped with a retry hint"),
        ConfigKey("stream.max_clients", .integer(1...1_000_000), default: .integer(1_000),
                  help: "stream clients at once, below serve.max_connections (unset: at most half of them); more get 503"),
        ConfigKey("stream.max_clients_per_address", .integer(1...1_000_000), default: .integer(16),
                  help: "stream clients at once from one remote address"),
        ConfigKey("stream.memory_mb", .integer(1...4_096), default: .integer(32),
                  help: "memory for the events queued to all stream clients together; a client past it reads from the store"),
        ConfigKey("alerts.retry_hours", .number(0.01...720), default: .number(24),
                  help: "a message not delivered within this is given up (expired)"),
        ConfigKey("alerts.timeout_seconds", .number(0.1...300), default: .number(10),
                  help: "one delivery attempt's deadline"),
        ConfigKey("alerts.backoff_initial_seconds", .number(0.01...86_400), default: .number(30),
                  help: "after a failed attempt, retry after this long, doubling each time (with jitter)"),
        ConfigKey("alerts.backoff_max_seconds", .number(0.01...86_400), default: .number(1_800),
                  help: "the longest wait between attempts (a receiver's Retry-After is honoured)"),
        ConfigKey("pages.tiles_url", .tileURL, default: .null, nullable: true,
                  help: "a basemap under the pages' map: an https tile URL with {z}, {x} and {y}; null draws the waterways"),
        ConfigKey("pages.tiles_attribution", .text, default: .text(""),
                  help: "the attribution the tile server asks for, shown on the map (e.g. © OpenStreetMap contributors)"),
        ConfigKey("alerts.allow_private", .choice(["true", "false"]), default: .text("false"),
                  help: "allow destinations at loopback, private or link-local addresses, and plain http to them"),
        ConfigKey("alerts.keep_days", .integer(1...3_650), default: .integer(7),
                  help: "delivered, gone and expired messages and their attempts are removed after this"),
        ConfigKey("alerts.max_alerts", .integer(1...100_000), default: .integer(1_000),
                  help: "the most alerts a store keeps (the CLI and the API alike)"),
        ConfigKey("alerts.secrets_file", .text, default: .null, nullable: true,
                  help: "a file of BRIDGET_ALERT_SECRET_<NAME>=secret lines, beside the environment's"),
    ])
}
