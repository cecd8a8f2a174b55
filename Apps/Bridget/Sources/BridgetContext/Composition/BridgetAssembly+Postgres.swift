import BridgetCore
import BridgetPersistence
import Foundation

// `store.kind: postgres`: the one place of the app that knows BridgetPostgres, which comes with the Postgres trait
// (postgres-nio is SwiftNIO, minutes to build cold), so the default build stays free of it. Under the trait it makes
// the store and says what the store's errors mean; without it, the store kind is refused with how to get it.
extension BridgetAssembly {
    /// `store.postgres.url`, or what to set when it is missing.
    func postgresURL() throws -> String {
        let settings = configuration.postgres
        guard let url = settings.url, !url.isEmpty else {
            throw BridgetError(.configPostgresURL, "store.kind is postgres, but store.postgres.url is not set",
                hint: "set store.postgres.url (or BRIDGET_STORE_POSTGRES_URL) to postgres://USER@HOST:PORT/DATABASE, "
                    + "and the password in $\(settings.passwordVariable)")
        }
        return url
    }

    /// The store as messages name it: its URL, never with a password (a URL that holds one is refused when the
    /// store opens, but `config show` and notes may name it before).
    var postgresDescription: String {
        let settings = configuration.postgres
        return (settings.url.map(Self.withoutPassword) ?? "PostgreSQL (no store.postgres.url)")
            + (settings.schema == "public" ? "" : " (schema \(settings.schema))")
    }

    /// `url` with any password in it replaced by `***`: whatever follows a `:` between the scheme's `//` and the last
    /// `@`, read as text, since a URL parser can take a password for a host and port.
    package static func withoutPassword(_ url: String) -> String {
        guard let at = url.lastIndex(of: "@") else { return url }
        let start = url.range(of: "://").map(\.upperBound) ?? url.startIndex
        guard start <= at, let colon = url[start..<at].firstIndex(of: ":") else { return url }
        return String(url[..<url.index(after: colon)]) + "***" + String(url[at...])
    }
}

#if Postgres
import BridgetPostgres

extension BridgetAssembly {
    /// The PostgreSQL store `store.postgres.*` names, connected and migrated.
    func makePostgresStore() async throws -> any BridgeStore {
        let settings = configuration.postgres
        let url = try postgresURL()
        let store: PostgresStoreSettings
        do {
            store = try PostgresStoreSettings(
                url: url, password: configuration.postgresPassword,
                sslMode: PostgresStoreSettings.SSLMode(rawValue: settings.sslMode) ?? .prefer, schema: settings.schema,
                poolSize: settings.poolSize, connectTimeout: .milliseconds(Int64(settings.connectTimeout * 1000)),
                statementTimeout: settings.statementTimeout > 0
                    ? .milliseconds(Int64(settings.statementTimeout * 1000)) : nil,
                applicationName: "bridget \(Self.processIdentity)")
        } catch let error as PostgresStoreError {
            let place = if case .invalidSetting(let name, _) = error {
                name == "pool size" ? "store.postgres.pool_size" : "store.postgres.\(name)"
            } else {
                "store.postgres.url (\(settings.urlSource))"
            }
            throw BridgetError(.configPostgresSettings, "\(place): \(error.description)",
                hint: "a URL such as postgres://bridget@db.example:5432/bridget, with the password in "
                    + "$\(settings.passwordVariable)")
        }
        return try await PostgresBridgeStore(settings: store)
    }
}

extension PostgresStoreError: PresentableError {
    /// What a PostgreSQL store's error means to the user.
    package var presentation: ErrorPresentation {
        let hint: String? = switch self {
        case .invalidURL: "set store.postgres.url to postgres://USER@HOST:PORT/DATABASE"
        case .invalidSetting(let name, _): "change store.postgres.\(name == "pool size" ? "pool_size" : name)"
        case .unreachable:
            "check that the server runs and store.postgres.url names its host and port (and sslmode suits it)"
        case .authentication:
            "check the role in store.postgres.url and the password in the variable store.postgres.password_env "
                + "names (PGPASSWORD by default)"
        case .noDatabase(let database, _): "create it (`createdb \(database)`) or name another in store.postgres.url"
        case .foreign: "give Bridget a schema of its own: set store.postgres.schema (e.g. bridget)"
        case .newer: "upgrade bridget, or point store.postgres.url at another database"
        case .server: code == "store.privileges" ? "grant the role what it needs on the database and schema" : nil
        case .failed: nil
        }
        return ErrorPresentation(code: code, message: description, hint: hint)
    }
}
#else
extension BridgetAssembly {
    /// Without the Postgres trait there is no PostgreSQL store: what to build instead.
    func makePostgresStore() async throws -> any BridgeStore {
        _ = try postgresURL()
        throw BridgetError(.configPostgresUnavailable, "store.kind is postgres, but this bridget was built without PostgreSQL support",
            hint: "build it with the Postgres trait: swift build --traits Postgres --product bridget")
    }
}
#endif
