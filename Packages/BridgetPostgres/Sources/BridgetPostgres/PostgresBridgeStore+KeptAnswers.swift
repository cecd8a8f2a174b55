import BridgetPersistence
import Foundation
import PostgresNIO

extension PostgresBridgeStore: KeptAnswerStore {
    public func keepAnswer(_ body: Data, named name: String, historyVersion: Int64) async throws {
        _ = try await rows("keep an answer", """
            INSERT INTO kept_answers (name, history_version, body) VALUES (\(name), \(historyVersion), \(body))
            ON CONFLICT (name) DO UPDATE SET history_version = excluded.history_version, body = excluded.body
            """)
    }

    public func keptAnswer(named name: String) async throws -> KeptAnswer? {
        let rows = try await rows("read a kept answer", "SELECT history_version, body FROM kept_answers WHERE name = \(name)")
        return try rows.first.map { KeptAnswer(historyVersion: try $0[0].decode(Int64.self), body: try $0[1].decode(Data.self)) }
    }
}
