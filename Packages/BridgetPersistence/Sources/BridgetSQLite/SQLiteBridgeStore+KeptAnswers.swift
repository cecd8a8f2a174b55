import BridgetPersistence
import Foundation
import GRDB

extension SQLiteBridgeStore: KeptAnswerStore {
    public func keepAnswer(_ body: Data, named name: String, historyVersion: Int64) async throws {
        try await write("keep an answer") { db in
            try db.execute(sql: """
                INSERT INTO kept_answers (name, history_version, body) VALUES (?, ?, ?)
                ON CONFLICT (name) DO UPDATE SET history_version = excluded.history_version, body = excluded.body
                """, arguments: [name, historyVersion, body])
        }
    }

    public func keptAnswer(named name: String) async throws -> KeptAnswer? {
        try await read("read a kept answer") { db in
            try Row.fetchOne(db, sql: "SELECT history_version, body FROM kept_answers WHERE name = ?", arguments: [name])
                .map { KeptAnswer(historyVersion: $0[0], body: $0[1]) }
        }
    }
}
