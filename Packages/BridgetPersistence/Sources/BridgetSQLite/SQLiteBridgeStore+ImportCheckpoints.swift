import BridgetDTOs
import BridgetPersistence
import Foundation
import GRDB

// The checkpoint is saved in the batch's transaction by `upsertEvents(_:checkpoint:)`, in SQLiteBridgeStore+Events.swift.
extension SQLiteBridgeStore: ImportCheckpointStore {
    public func importCheckpoint(source: String) async throws -> ImportCheckpoint? {
        let state = try await read("read the import checkpoint") { db in
            try String.fetchOne(db, sql: "SELECT state FROM import_checkpoints WHERE source = ?", arguments: [source])
        }
        // An unreadable checkpoint only costs a restart from the top: the upsert is idempotent.
        return state.flatMap { try? JSONDecoder().decode(ImportCheckpoint.self, from: Data($0.utf8)) }
    }

    public func removeImportCheckpoint(source: String) async throws {
        try await write("remove the import checkpoint") { db in
            try db.execute(sql: "DELETE FROM import_checkpoints WHERE source = ?", arguments: [source])
        }
    }
}
