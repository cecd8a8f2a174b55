import BridgetPersistence
import Foundation

extension PostgresBridgeStore: ImportCheckpointStore {
    public func importCheckpoint(source: String) async throws -> ImportCheckpoint? {
        let rows = try await rows("read the import checkpoint",
                                  "SELECT state FROM import_checkpoints WHERE source = \(source)")
        // An unreadable checkpoint only costs a restart from the top: the upsert is idempotent.
        guard let state = try rows.first.map({ try $0[0].decode(String.self) }) else { return nil }
        return try? JSONDecoder().decode(ImportCheckpoint.self, from: Data(state.utf8))
    }

    public func removeImportCheckpoint(source: String) async throws {
        _ = try await rows("remove the import checkpoint", "DELETE FROM import_checkpoints WHERE source = \(source)")
    }

}
