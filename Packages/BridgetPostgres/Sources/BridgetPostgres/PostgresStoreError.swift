import Foundation

/// Why a PostgreSQL store could not be reached, opened, read or written: the facts (the server's address, the
/// database, PostgreSQL's SQLSTATE and message), never a password. What a user should do about it, and with which
/// exit status, is for the application to say.
public enum PostgresStoreError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
    /// The store URL cannot be used, and why (the URL is not repeated: it may hold a secret).
    case invalidURL(reason: String)
    /// Another setting cannot be used.
    case invalidSetting(name: String, reason: String)
    /// No connection to the server: refused, unreachable, timed out, or TLS failed; `reason` says which.
    case unreachable(address: String, reason: String)
    /// The server refused the role or its password (SQLSTATE 28P01 or 28000).
    case authentication(user: String, address: String, message: String)
    /// The database does not exist (SQLSTATE 3D000).
    case noDatabase(database: String, address: String)
    /// The store's schema holds tables Bridget did not make, and no Bridget mark: another application's data, left
    /// as it is.
    case foreign(store: String, tables: [String])
    /// Written by a newer version of Bridget (its schema version is above this one's): never rewritten.
    case newer(store: String, version: Int, known: Int)
    /// PostgreSQL failed while doing `action` ("save events", …): its SQLSTATE and message.
    case server(store: String, action: String, sqlState: String, message: String)
    /// Another failure while doing `action`, with its description.
    case failed(store: String, action: String, reason: String)

    /// A stable machine-readable code, e.g. `store.unreachable`.
    public var code: String {
        switch self {
        case .invalidURL, .invalidSetting: "store.settings"
        case .unreachable: "store.unreachable"
        case .authentication: "store.authentication"
        case .noDatabase: "store.no-database"
        case .foreign: "store.foreign"
        case .newer: "store.newer"
        case .server(_, _, let sqlState, _):
            switch sqlState.prefix(2) {
            case "53", "57", "08": "store.unavailable" // resources, operator intervention, connection
            case "40": "store.busy" // serialization failure, deadlock
            case "42" where sqlState == "42501": "store.privileges" // insufficient privilege
            default: "store.postgres"
            }
        case .failed: "store.failed"
        }
    }

    /// Whether trying again later may work (the server is down, restarting or overloaded), as opposed to a setting or
    /// the data being wrong.
    public var isTemporary: Bool {
        switch self {
        case .unreachable: true
        case .server: code == "store.unavailable" || code == "store.busy"
        default: false
        }
    }

    public var description: String {
        switch self {
        case .invalidURL(let reason):
            "the PostgreSQL store URL cannot be used: \(reason)"
        case .invalidSetting(let name, let reason):
            "the PostgreSQL store's \(name) cannot be used: \(reason)"
        case .unreachable(let address, let reason):
            "cannot connect to PostgreSQL at \(address): \(reason)"
        case .authentication(let user, let address, let message):
            "PostgreSQL at \(address) refused role \(user): \(message)"
        case .noDatabase(let database, let address):
            "PostgreSQL at \(address) has no database \(database)"
        case .foreign(let store, let tables):
            "\(store) holds tables of another application (\(Self.list(tables))) and no Bridget schema mark, so it is "
                + "not a Bridget store; it was left as it is"
        case .newer(let store, let version, let known):
            "\(store) was written by a newer version of Bridget (schema version \(version); this one knows up to "
                + "\(known))"
        case .server(let store, let action, let sqlState, let message):
            "cannot \(action) in \(store): \(message) (SQLSTATE \(sqlState))"
        case .failed(let store, let action, let reason):
            "cannot \(action) in \(store): \(reason)"
        }
    }

    public var errorDescription: String? { description }

    /// Up to five names, then "…".
    private static func list(_ names: [String]) -> String {
        names.count <= 5 ? names.joined(separator: ", ") : names.prefix(5).joined(separator: ", ") + ", …"
    }
}
