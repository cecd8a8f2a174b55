import BridgetDTOs
import Foundation

// Each group of settings read from the checked values, and the paths resolved against the environment.

extension BridgetConfiguration.LiveSettings {
    init(_ resolved: ResolvedConfiguration) {
        self.init(
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
    }
}

extension BridgetConfiguration.PostgresSettings {
    init(_ resolved: ResolvedConfiguration) {
        self.init(
            url: resolved.text("store.postgres.url"),
            urlSource: resolved.values["store.postgres.url"]?.source.description ?? "default",
            passwordVariable: resolved.text("store.postgres.password_env") ?? "PGPASSWORD",
            sslMode: resolved.text("store.postgres.sslmode") ?? "prefer",
            schema: resolved.text("store.postgres.schema") ?? "public",
            poolSize: resolved.integer("store.postgres.pool_size"),
            connectTimeout: resolved.number("store.postgres.connect_timeout_seconds"),
            statementTimeout: resolved.number("store.postgres.statement_timeout_seconds"))
    }
}

extension BridgetConfiguration.ServeSettings {
    init(_ resolved: ResolvedConfiguration) {
        self.init(
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
    }
}

extension BridgetConfiguration.RefreshSettings {
    init(_ resolved: ResolvedConfiguration) {
        let every: Int? = if case .integer(let minutes) = resolved.value("refresh.every") { minutes } else { nil }
        self.init(
            enabled: resolved.text("refresh.enabled") ?? "auto",
            times: (resolved.text("refresh.times") ?? "05:30,17:30").split(separator: ",").map(String.init),
            everyMinutes: every, jitterMinutes: resolved.integer("refresh.jitter_minutes"),
            backoffInitial: resolved.number("refresh.backoff_initial_seconds"),
            backoffMaximum: resolved.number("refresh.backoff_max_seconds"))
    }
}

extension BridgetConfiguration.StreamSettings {
    init(_ resolved: ResolvedConfiguration) {
        self.init(
            heartbeat: resolved.number("stream.heartbeat_seconds"),
            pollInterval: TimeInterval(resolved.integer("stream.poll_ms")) / 1000,
            clientBuffer: resolved.integer("stream.client_buffer"), stall: resolved.number("stream.stall_seconds"),
            // Unset, it is also at most half of the connections: the rest stay for other requests.
            maximumClients: resolved.values["stream.max_clients"]?.source == .defaultValue
                ? min(resolved.integer("stream.max_clients"), max(1, resolved.integer("serve.max_connections") / 2))
                : resolved.integer("stream.max_clients"),
            maximumClientsPerAddress: resolved.integer("stream.max_clients_per_address"),
            memoryBudget: resolved.integer("stream.memory_mb") << 20)
    }
}

extension BridgetConfiguration.AlertSettings {
    init(_ resolved: ResolvedConfiguration) {
        self.init(
            retryWindow: resolved.number("alerts.retry_hours") * 3600, timeout: resolved.number("alerts.timeout_seconds"),
            backoffInitial: resolved.number("alerts.backoff_initial_seconds"),
            backoffMaximum: resolved.number("alerts.backoff_max_seconds"),
            allowPrivate: resolved.text("alerts.allow_private") == "true")
        retention = TimeInterval(resolved.integer("alerts.keep_days")) * 86_400
        maximumAlerts = resolved.integer("alerts.max_alerts")
        secretsFile = resolved.text("alerts.secrets_file")
    }
}

extension BridgetConfiguration {
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
    static func resolve(_ configured: String?, environment: [String: String]) -> String? {
        guard let configured, !configured.isEmpty else { return nil }
        let home = environment["HOME"] ?? NSHomeDirectory()
        var path = configured
        if path == "~" || path.hasPrefix("~/") { path = home + path.dropFirst() }
        if !path.hasPrefix("/") { path = FileManager.default.currentDirectoryPath + "/" + path }
        return URL(fileURLWithPath: path).standardizedFileURL.path
    }

    static func xdg(_ variable: String, _ fallback: String, _ environment: [String: String]) -> String {
        let home = environment["HOME"] ?? NSHomeDirectory()
        return environment[variable].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? home + "/" + fallback
    }
}
