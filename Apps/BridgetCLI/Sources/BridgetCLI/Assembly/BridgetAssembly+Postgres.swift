import BridgetPersistence
import Foundation
#if Server
import BridgetPostgres
#endif

// `store.kind: postgres`: the one arm of the composition root that knows BridgetPostgres, which comes with the
// Server trait (postgres-nio is SwiftNIO, as Hummingbird is), so the default build stays free of it.
extension BridgetAssembly {
    /// Who this process is, as another host sees it when this one holds the sync lock: "HOST pid N".
    static let processIdentity = "\(ProcessInfo.processInfo.hostName) pid \(ProcessInfo.processInfo.processIdentifier)"

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
            let place = if case .invalidSetting = error { "store.postgres.schema" } else {
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

    /// `url` with any password in it replaced by `***`; a text that does not read as a URL is shown as `(hidden)` when
    /// it has an `@`, since it may hold one.
    static func withoutPassword(_ url: String) -> String {
        guard var components = URLComponents(string: url) else { return url.contains("@") ? "(hidden)" : url }
        if components.password != nil { components.password = "***" }
        return components.string ?? "(hidden)"
    }
}
