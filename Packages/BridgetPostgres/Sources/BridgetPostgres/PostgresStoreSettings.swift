import Foundation

/// Where a PostgreSQL store lives and how to reach it: what `PostgresBridgeStore` needs to connect.
///
/// The password is never part of the URL (a URL ends up in configuration files, logs and process lists): it comes on
/// its own, e.g. from an environment variable, and no description of these settings contains it.
public struct PostgresStoreSettings: Sendable, Equatable, CustomStringConvertible, CustomReflectable {
    /// How the connection is encrypted, as libpq's `sslmode` names it.
    public enum SSLMode: String, Sendable, CaseIterable {
        /// Never: plain TCP.
        case disable
        /// TLS when the server offers it, without checking its certificate; plain otherwise.
        case prefer
        /// TLS, without checking the server's certificate.
        case require
        /// TLS with the server's certificate checked against the system's trusted roots and the host name.
        case verifyFull = "verify-full"
    }

    /// The server's host name or address.
    public var host: String
    /// The server's port.
    public var port: Int
    /// The role to connect as.
    public var user: String
    /// The database.
    public var database: String
    /// The role's password, if the server asks for one. Never printed.
    public var password: String?
    /// Encryption.
    public var sslMode: SSLMode
    /// The schema Bridget's tables live in (`public` by default): several Bridget stores, or Bridget and another
    /// application, can share one database in schemas of their own.
    public var schema: String
    /// Connections the pool keeps at most.
    public var poolSize: Int
    /// How long to wait for a connection to the server.
    public var connectTimeout: Duration
    /// Longest a statement may run before the server cancels it (`statement_timeout`); `nil` for no limit.
    public var statementTimeout: Duration?
    /// How this process shows up in `pg_stat_activity` (and who holds the sync lock, for others to read).
    public var applicationName: String

    /// Settings from a `postgres://` (or `postgresql://`) URL: `postgres://USER@HOST:PORT/DATABASE`. A URL that
    /// holds a password is refused (`PostgresStoreError.invalidURL`), and the message does not repeat it.
    public init(
        url text: String, password: String? = nil, sslMode: SSLMode = .prefer, schema: String = "public",
        poolSize: Int = 8, connectTimeout: Duration = .seconds(10), statementTimeout: Duration? = nil,
        applicationName: String = "bridget"
    ) throws {
        func invalid(_ reason: String) -> PostgresStoreError { .invalidURL(reason: reason) }
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased() else {
            throw invalid("it is not a URL such as postgres://bridget@127.0.0.1:5432/bridget")
        }
        guard scheme == "postgres" || scheme == "postgresql" else {
            throw invalid("its scheme is '\(scheme)', not postgres")
        }
        guard components.password == nil else {
            throw invalid("it contains a password; give the password on its own (never in the URL)")
        }
        guard let host = components.host, !host.isEmpty else {
            throw invalid("it names no host")
        }
        guard let user = components.user, !user.isEmpty else {
            throw invalid("it names no user (postgres://USER@HOST/DATABASE)")
        }
        let database = String(components.path.drop { $0 == "/" })
        guard !database.isEmpty, !database.contains("/") else {
            throw invalid("it names no database (postgres://USER@HOST/DATABASE)")
        }
        if let query = components.queryItems, !query.isEmpty {
            throw invalid("it has query parameters (\(query.map(\.name).joined(separator: ", "))); "
                + "set sslmode and the rest as their own settings")
        }
        let port = components.port ?? 5432
        guard (1...65535).contains(port) else { throw invalid("its port \(port) is not between 1 and 65535") }
        try self.init(host: host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")), port: port, user: user,
                      database: database, password: password, sslMode: sslMode, schema: schema, poolSize: poolSize,
                      connectTimeout: connectTimeout, statementTimeout: statementTimeout,
                      applicationName: applicationName)
    }

    /// Settings from their parts.
    public init(
        host: String, port: Int = 5432, user: String, database: String, password: String? = nil,
        sslMode: SSLMode = .prefer, schema: String = "public", poolSize: Int = 8,
        connectTimeout: Duration = .seconds(10), statementTimeout: Duration? = nil, applicationName: String = "bridget"
    ) throws {
        guard Self.isPlainIdentifier(schema) else {
            throw PostgresStoreError.invalidSetting(
                name: "schema", reason: "'\(schema)' is not a plain name (lower-case letters, digits and _, "
                    + "not starting with a digit, at most 63 characters)")
        }
        guard !schema.hasPrefix("pg_") else {
            throw PostgresStoreError.invalidSetting(name: "schema", reason: "'\(schema)': names starting pg_ are PostgreSQL's own")
        }
        if sslMode == .verifyFull, host.contains(":") || host.split(separator: ".").count == 4
            && host.split(separator: ".").allSatisfy({ UInt8($0) != nil })
        {
            throw PostgresStoreError.invalidSetting(
                name: "sslmode", reason: "verify-full checks the certificate against a host name, and \(host) is an address; "
                    + "name the server by its host name")
        }
        guard poolSize >= 2 else {
            // A sync holds one connection for its lock while writing through another.
            throw PostgresStoreError.invalidSetting(name: "pool size", reason: "\(poolSize) is below 2")
        }
        self.host = host
        self.port = port
        self.user = user
        self.database = database
        self.password = password
        self.sslMode = sslMode
        self.schema = schema
        self.poolSize = poolSize
        self.connectTimeout = connectTimeout
        self.statementTimeout = statementTimeout
        self.applicationName = applicationName
    }

    /// The URL without a password, for messages: `postgres://bridget@127.0.0.1:5432/bridget`.
    public var description: String {
        let shownHost = host.contains(":") ? "[\(host)]" : host
        return "postgres://\(user)@\(shownHost):\(port)/\(database)" + (schema == "public" ? "" : " (schema \(schema))")
    }

    /// Where the server is, for messages: `127.0.0.1:5432`.
    public var address: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// A name PostgreSQL takes without quotes: what a schema must be, since it is written into SQL.
    static func isPlainIdentifier(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, name.utf8.count <= 63,
              first == "_" || ("a"..."z").contains(first)
        else { return false }
        return name.unicodeScalars.allSatisfy { $0 == "_" || ("a"..."z").contains($0) || ("0"..."9").contains($0) }
    }

    /// Every setting but the password, which shows only as whether there is one (`dump`, debuggers).
    public var customMirror: Mirror {
        Mirror(self, children: [
            "host": host, "port": port, "user": user, "database": database, "password": password == nil ? "none" : "(set)",
            "sslMode": sslMode, "schema": schema, "poolSize": poolSize, "connectTimeout": connectTimeout,
            "statementTimeout": statementTimeout as Any, "applicationName": applicationName,
        ])
    }
}
