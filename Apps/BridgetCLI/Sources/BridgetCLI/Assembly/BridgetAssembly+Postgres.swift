import BridgetPersistence
import Foundation
#if Server
import BridgetPostgres
#endif

// `store.kind: postgres`: the one arm of the composition root that knows BridgetPostgres, which comes with the
// Server trait (postgres-nio is SwiftNIO, as Hummingbird is), so the default build stays free of it.
extension BridgetAssembly {
    /// Who this process is, as another host sees it when this one holds the sync lock: "HOST pid N".
    /// The host name is cut to 40 characters: PostgreSQL keeps 63 bytes of an `application_name`, and the pid must stay.
    static let processIdentity = "\(ProcessInfo.processInfo.hostName.prefix(40)) pid \(ProcessInfo.processInfo.processIdentifier)"

    /// The PostgreSQL store `store.postgres.*` names, connected and migrated.
    func makePostgresStore() async throws -> any BridgeStore {
        let settings = configuration.postgres
        guard let url = settings.url, !url.isEmpty else {
            throw BridgetError.configuration(
                "postgres-url", "store.kind is postgres, but store.postgres.url is not set",
                hint: "set store.postgres.url (or BRIDGET_STORE_POSTGRES_URL) to postgres://USER@HOST:PORT/DATABASE, "
                    + "and the password in $\(settings.passwordVariable)")
        }
        #if Server
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
            throw BridgetError.configuration(
                "postgres-settings", "\(place): \(error.description)",
                hint: "a URL such as postgres://bridget@db.example:5432/bridget, with the password in "
                    + "$\(settings.passwordVariable)")
        }
        return try await PostgresBridgeStore(settings: store)
        #else
        throw BridgetError.configuration(
            "postgres-unavailable", "store.kind is postgres, but this bridget was built without PostgreSQL support",
            hint: "build it with the Server trait: swift build --traits Server --product bridget")
        #endif
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
    static func withoutPassword(_ url: String) -> String {
        guard let at = url.lastIndex(of: "@") else { return url }
        let start = url.range(of: "://").map(\.upperBound) ?? url.startIndex
        guard start <= at, let colon = url[start..<at].firstIndex(of: ":") else { return url }
        return String(url[..<url.index(after: colon)]) + "***" + String(url[at...])
    }
}
