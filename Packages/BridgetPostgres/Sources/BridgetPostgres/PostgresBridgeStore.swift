import BridgetDTOs
import BridgetPersistence
import Foundation
import Logging
import NIOCore
import NIOSSL
import PostgresNIO
import Synchronization

/// The PostgreSQL store (postgres-nio's `PostgresClient` and its connection pool): the whole store boundary on a
/// database server that several hosts share, with versioned migrations, batches written as arrays in one statement,
/// one transaction per batch, and a sync lock across hosts (an advisory lock).
///
/// This file opens it; each part of the store boundary is in `PostgresBridgeStore+<Part>.swift` (Events, Records for
/// the small parts, SyncLock), its schema in `PostgresSchema.swift`.
///
/// Times are stored as whole milliseconds since 1970 (`bigint`), the precision the SQLite store keeps, so an event
/// reads back the same from either; `to_timestamp(opened_ms / 1000.0)` shows one in SQL.
public final class PostgresBridgeStore: Sendable {
    /// Where the store is.
    public let settings: PostgresStoreSettings
    let logger: Logger
    /// Who holds this store's sync lock in this process, while it does: written into the sync runs started meanwhile.
    let heldSyncLock = Mutex<HeldSyncLock?>(nil)
    /// The pool and the task that runs it, replaced by a new one when PostgreSQL is back after the pool gave up
    /// (`revive()`), and whether a probe for that is under way.
    private let pool: Mutex<(client: PostgresClient, running: Task<Void, Never>, probing: Bool,
                             lastProbe: ContinuousClock.Instant?)>
    private let clientConfiguration: PostgresClient.Configuration
    let tlsChoice: TLSChoice

    /// Connects, checks that the schema is Bridget's (or empty) and not newer than this version, and applies the
    /// migrations it lacks (one process at a time: the others wait).
    ///
    /// Throws `PostgresStoreError`: `.unreachable` (refused, unreachable, timed out, TLS), `.authentication`,
    /// `.noDatabase`, `.foreign` (a schema of another application, left as it is), `.newer`, or `.server` with
    /// PostgreSQL's SQLSTATE. No error holds the password.
    public init(settings: PostgresStoreSettings) async throws {
        self.settings = settings
        logger = Logger(label: "bridget.postgres", factory: { _ in SwiftLogNoOpLogHandler() })
        let tls = try Self.tls(settings)
        // The first connection, alone, so that a wrong address, role, password or database fails now with its own
        // reason, rather than as a pool that keeps retrying in the background.
        let connection = try await Self.connect(settings, tls: tls, logger: logger)
        do {
            try await PostgresSchema.migrate(connection, settings: settings, logger: logger)
            try? await connection.close()
        } catch {
            try? await connection.close()
            throw Self.storeError(error, settings: settings, action: "open")
        }
        var configuration = PostgresClient.Configuration(
            host: settings.host, port: settings.port, username: settings.user, password: settings.password,
            database: settings.database, tls: tls.client)
        configuration.options.maximumConnections = settings.poolSize
        configuration.options.connectTimeout = settings.connectTimeout
        configuration.options.additionalStartupParameters = Self.startupParameters(settings)
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        clientConfiguration = configuration
        tlsChoice = tls
        pool = Mutex((client, Task { await client.run() }, false, nil))
    }

    deinit {
        pool.withLock { $0.running.cancel() }
    }

    /// After the pool gave up connecting (its circuit breaker: each failed attempt waits 1.25 times longer, up to a
    /// minute), asks PostgreSQL directly, at most once a second and beside the request that failed; once it answers,
    /// a new pool takes the old one's place, rather than waiting for the old pool's next attempt. The old pool had no
    /// connection left to lose.
    private func revive() {
        let now = ContinuousClock.now
        let probe = pool.withLock { pool -> Bool in
            guard !pool.probing, pool.lastProbe.map({ now - $0 >= .seconds(1) }) ?? true else { return false }
            pool.probing = true
            pool.lastProbe = now
            return true
        }
        guard probe else { return }
        let (settings, tls, logger, configuration) = (settings, tlsChoice, logger, clientConfiguration)
        Task { [weak self] in
            let answered = (try? await Self.connect(settings, tls: tls, logger: logger)).map { connection in
                Task { try? await connection.close() }
                return true
            } ?? false
            guard let self else { return }
            let replaced = self.pool.withLock { pool -> Task<Void, Never>? in
                pool.probing = false
                guard answered else { return nil }
                let fresh = PostgresClient(configuration: configuration, backgroundLogger: logger)
                let old = pool.running
                pool.client = fresh
                pool.running = Task { await fresh.run() }
                return old
            }
            replaced?.cancel()
        }
    }

    /// What every connection sets as it starts: the schema, the application's name, the statement timeout.
    static func startupParameters(_ settings: PostgresStoreSettings) -> [(String, String)] {
        // The schema quoted (a plain name, checked, that may still be a reserved word); texts always UTF-8, whatever
        // the database's or role's default, since COPY's text and the binds are.
        var parameters = [("search_path", "\"\(settings.schema)\""), ("application_name", settings.applicationName),
                          ("client_encoding", "UTF8")]
        if let timeout = settings.statementTimeout {
            parameters.append(("statement_timeout", "\(timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)"))
        }
        return parameters
    }

    struct TLSChoice {
        var connection: PostgresConnection.Configuration.TLS
        var client: PostgresClient.Configuration.TLS
    }

    private static func tls(_ settings: PostgresStoreSettings) throws -> TLSChoice {
        var unchecked = TLSConfiguration.makeClientConfiguration()
        unchecked.certificateVerification = .none
        do {
            switch settings.sslMode {
            case .disable:
                return TLSChoice(connection: .disable, client: .disable)
            case .prefer:
                return TLSChoice(connection: .prefer(try NIOSSLContext(configuration: unchecked)), client: .prefer(unchecked))
            case .require:
                return TLSChoice(connection: .require(try NIOSSLContext(configuration: unchecked)), client: .require(unchecked))
            case .verifyFull:
                let checked = TLSConfiguration.makeClientConfiguration() // full verification, the system's roots
                return TLSChoice(connection: .require(try NIOSSLContext(configuration: checked)), client: .require(checked))
            }
        } catch {
            throw PostgresStoreError.invalidSetting(name: "sslmode", reason: "TLS cannot be set up: \(error)")
        }
    }

    static func connect(_ settings: PostgresStoreSettings, tls: TLSChoice, logger: Logger) async throws
        -> PostgresConnection
    {
        var configuration = PostgresConnection.Configuration(
            host: settings.host, port: settings.port, username: settings.user, password: settings.password,
            database: settings.database, tls: tls.connection)
        configuration.options.connectTimeout = TimeAmount(settings.connectTimeout)
        configuration.options.additionalStartupParameters = startupParameters(settings)
        do {
            return try await PostgresConnection.connect(configuration: configuration, id: 0, logger: logger)
        } catch {
            throw storeError(error, settings: settings, action: "connect")
        }
    }

    // MARK: Access

    /// Runs `body` on a connection of the pool, its failures as `PostgresStoreError`.
    func withConnection<T: Sendable>(_ action: String, _ body: (PostgresConnection) async throws -> T) async throws -> T {
        let client = pool.withLock { $0.client }
        do {
            return try await client.withConnection { connection in try await body(connection) }
        } catch {
            if Self.isPoolFailure(error) { revive() }
            throw Self.storeError(error, settings: settings, action: action)
        }
    }

    /// Runs `body` in one transaction on a connection of the pool: committed if it returns, rolled back if it throws.
    func transaction<T: Sendable>(_ action: String, _ body: (PostgresConnection) async throws -> T) async throws -> T {
        try await withConnection(action) { connection in
            try await connection.query("BEGIN", logger: logger)
            do {
                let value = try await body(connection)
                try await connection.query("COMMIT", logger: logger)
                return value
            } catch {
                // A connection whose transaction cannot be ended must not go back to the pool.
                if (try? await connection.query("ROLLBACK", logger: logger)) == nil { try? await connection.close() }
                throw error
            }
        }
    }

    /// Runs one statement and collects its rows (small answers; a large read pages with `events(matching:)`).
    func rows(_ action: String, _ query: PostgresQuery) async throws -> [PostgresRandomAccessRow] {
        try await withConnection(action) { connection in
            var rows: [PostgresRandomAccessRow] = []
            for try await row in try await connection.query(query, logger: logger) { rows.append(row.makeRandomAccess()) }
            return rows
        }
    }

    /// Whether the pool itself failed the request (no connection could be made), not a query or a caller: its type
    /// lives in an underscored module of postgres-nio, so it is told by name.
    static func isPoolFailure(_ error: any Error) -> Bool {
        String(describing: type(of: error)) == "ConnectionPoolError" && !"\(error)".contains("requestCancelled")
    }

    /// A failure of PostgreSQL or the connection while doing `action` as a `PostgresStoreError`; any other error (a
    /// `StoreError`, `SyncInProgress`, `CancellationError`, a caller's own) is passed on as it is.
    static func storeError(_ error: any Error, settings: PostgresStoreSettings, action: String) -> any Error {
        let store = settings.description
        guard let psql = error as? PSQLError else {
            // NIO's own failures are the connection's, and so are the pool's (its type lives in an underscored module
            // of postgres-nio, so it is told by name): a server that stays down trips its circuit breaker. Anything
            // else is the caller's, passed on as it is.
            if error is IOError || error is ChannelError {
                return PostgresStoreError.unreachable(address: settings.address, reason: describe(error))
            }
            if String(describing: type(of: error)) == "ConnectionPoolError" {
                if "\(error)".contains("requestCancelled") { return CancellationError() }
                return PostgresStoreError.unreachable(
                    address: settings.address, reason: "no connection could be made for a while (the server is down or "
                        + "refuses connections; the pool tries again later)")
            }
            return error
        }
        if let state = psql.serverInfo?[.sqlState] {
            let message = psql.serverInfo?[.message] ?? "no message"
            switch state {
            case "28P01", "28000":
                return PostgresStoreError.authentication(user: settings.user, address: settings.address, message: message)
            case "3D000":
                return PostgresStoreError.noDatabase(database: settings.database, address: settings.address)
            case "57014" where action != "connect":
                return PostgresStoreError.server(store: store, action: action, sqlState: state,
                                                 message: message + " (statement timeout or cancelled)")
            default:
                return PostgresStoreError.server(store: store, action: action, sqlState: state, message: message)
            }
        }
        switch psql.code {
        case .queryCancelled: return CancellationError()
        case .sslUnsupported:
            return PostgresStoreError.unreachable(
                address: settings.address, reason: "the server does not offer TLS, which sslmode \(settings.sslMode.rawValue) requires")
        case .connectionError, .serverClosedConnection, .uncleanShutdown, .failedToAddSSLHandler,
             .receivedUnencryptedDataAfterSSLRequest, .clientClosedConnection, .poolClosed:
            let reason = psql.underlying.map(describe) ?? "\(psql.code)"
            return PostgresStoreError.unreachable(address: settings.address, reason: reason)
        case .authMechanismRequiresPassword:
            return PostgresStoreError.authentication(
                user: settings.user, address: settings.address, message: "the server asks for a password and none was given")
        case .unsupportedAuthMechanism:
            return PostgresStoreError.authentication(
                user: settings.user, address: settings.address, message: "the server asks for an authentication method postgres-nio does not support")
        default:
            return PostgresStoreError.failed(store: store, action: action, reason: psql.underlying.map(describe) ?? "\(psql.code)")
        }
    }

    /// A short reason from a NIO or system error: "connection refused" rather than a type dump.
    static func describe(_ error: any Error) -> String {
        let text = "\(error)"
        if text.localizedCaseInsensitiveContains("connection refused") { return "connection refused (is the server running, on that port?)" }
        if text.localizedCaseInsensitiveContains("connectTimeout") || text.localizedCaseInsensitiveContains("timed out") {
            return "no answer within the connect timeout"
        }
        if text.localizedCaseInsensitiveContains("NXDOMAIN") || text.localizedCaseInsensitiveContains("unknown host")
            || text.localizedCaseInsensitiveContains("could not resolve") || text.localizedCaseInsensitiveContains("name resolution")
        {
            return "the host name does not resolve"
        }
        return text
    }

    /// Milliseconds since 1970 of an instant, rounded as the SQLite store rounds its text form.
    /// An instant no store keeps (`StoredInstant`) is refused with an error.
    static func milliseconds(_ date: Date, _ what: @autoclosure () -> String = "a time") throws -> Int64 {
        let interval = try StoredInstant.seconds(date, what())
        let seconds = Int64(interval.rounded(.down))
        return seconds * 1000 + Int64(((interval - Double(seconds)) * 1000).rounded())
    }

    /// The instant of a stored millisecond count, built as the SQLite store builds it from its text.
    static func date(milliseconds: Int64) -> Date {
        let (seconds, remainder) = (milliseconds.floorDivided(by: 1000), milliseconds.floorModulo(1000))
        return Date(timeIntervalSince1970: Double(seconds) + Double(remainder) / 1000)
    }
}

extension Int64 {
    func floorDivided(by divisor: Int64) -> Int64 {
        let quotient = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }

    func floorModulo(_ divisor: Int64) -> Int64 { self - floorDivided(by: divisor) * divisor }
}
