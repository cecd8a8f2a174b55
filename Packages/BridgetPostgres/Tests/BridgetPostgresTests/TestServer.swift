import BridgetPostgres
import Foundation
import Logging
import PostgresNIO
import Testing

/// The throwaway PostgreSQL server the test command starts (`Scripts/test.d/postgres`), as its environment names it.
/// A run without one fails every test that needs it, saying so: a Postgres test never skips.
enum TestServer {
    struct Missing: Error, CustomStringConvertible {
        var description: String {
            "no PostgreSQL server for the tests: TEST_POSTGRES_URL and TEST_POSTGRES_PASSWORD are not "
                + "set. Run Scripts/test, which starts one, or start one with "
                + "`source \"$(Scripts/test.d/postgres start /tmp/bridget-pg)\"`"
        }
    }

    static var url: String {
        get throws {
            guard let url = ProcessInfo.processInfo.environment["TEST_POSTGRES_URL"], !url.isEmpty else {
                throw Missing()
            }
            return url
        }
    }

    static var password: String {
        get throws {
            guard let password = ProcessInfo.processInfo.environment["TEST_POSTGRES_PASSWORD"] else {
                throw Missing()
            }
            return password
        }
    }

    /// A schema no other test uses: each store of the conformance suite starts empty.
    static func freshSchema() -> String {
        "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(20)
    }

    /// Settings for the test server, in a schema of their own unless one is given.
    static func settings(schema: String = freshSchema(), poolSize: Int = 4, applicationName: String = "bridget-tests")
        throws -> PostgresStoreSettings
    {
        try PostgresStoreSettings(url: try url, password: try password, sslMode: .disable, schema: schema,
                                  poolSize: poolSize, connectTimeout: .seconds(30), applicationName: applicationName)
    }

    /// A new, empty store.
    static func store(schema: String = freshSchema()) async throws -> PostgresBridgeStore {
        try await PostgresBridgeStore(settings: try settings(schema: schema))
    }

    static let logger = Logger(label: "tests", factory: { _ in SwiftLogNoOpLogHandler() })

    /// A connection of its own to the test server as the test role, `schema` first on its search path.
    static func connection(schema: String) async throws -> PostgresConnection {
        let settings = try settings(schema: schema)
        var configuration = PostgresConnection.Configuration(
            host: settings.host, port: settings.port, username: settings.user, password: settings.password,
            database: settings.database, tls: .disable)
        configuration.options.additionalStartupParameters = [("search_path", schema)]
        return try await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger)
    }

    /// Runs SQL on the test server as the test role, with `schema` first on the search path: what a test needs to
    /// look behind the store or to damage it. Returns the first column of every row, as text.
    @discardableResult
    static func sql(_ text: String, schema: String = "public") async throws -> [String?] {
        let connection = try await connection(schema: schema)
        do {
            var values: [String?] = []
            for try await row in try await connection.query(PostgresQuery(unsafeSQL: text), logger: logger) {
                values.append(try row.makeRandomAccess()[0].decode(String?.self))
            }
            try await connection.close()
            return values
        } catch {
            try? await connection.close()
            throw error
        }
    }
}
