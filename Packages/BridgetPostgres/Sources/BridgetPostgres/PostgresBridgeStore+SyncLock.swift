import BridgetPersistence
import Foundation
import PostgresNIO

extension PostgresBridgeStore: SyncLocking {
    /// Holds a session-level advisory lock (per database and schema) on a connection of its own for as long as
    /// `body` runs: PostgreSQL releases it when that connection ends, so a process killed mid-sync frees it at once.
    /// The connection's `application_name` is set to `holder`, which is how another host's refusal names it.
    public func withSyncLock<T: Sendable>(holder: String, _ body: @Sendable () async throws -> T) async throws -> T {
        let key = PostgresSchema.lockKey("sync", schema: settings.schema)
        let lockClass = PostgresSchema.lockClass
        return try await withConnection("take the sync lock") { connection in
            var taken = false
            var session: Int32 = 0
            for try await (granted, pid) in try await connection.query("""
                SELECT pg_try_advisory_lock(\(lockClass), \(key)), pg_backend_pid()
                FROM (SELECT set_config('application_name', \(holder), false)) AS named
                """, logger: logger).decode((Bool, Int32).self) { (taken, session) = (granted, pid) }
            guard taken else {
                let other = try await lockHolder(connection, key: key)
                _ = try? await connection.query("SELECT set_config('application_name', \(settings.applicationName), false)", logger: logger)
                throw SyncInProgress(holder: other ?? "another host")
            }
            heldSyncLock.withLock { $0 = HeldSyncLock(holder: holder, session: session, key: key) }
            defer { heldSyncLock.withLock { $0 = nil } }
            let result: Result<T, any Error>
            do { result = .success(try await body()) } catch { result = .failure(error) }
            // A session that cannot be unlocked must not go back to the pool holding the lock: closing it frees it.
            if (try? await connection.query("SELECT pg_advisory_unlock(\(lockClass), \(key))", logger: logger)) == nil {
                try? await connection.close()
            } else {
                _ = try? await connection.query("SELECT set_config('application_name', \(settings.applicationName), false)", logger: logger)
            }
            return try result.get()
        }
    }

    /// The holder named by this process's current sync lock on this store, if it holds one.
    var syncLockHolder: String? { heldSyncLock.withLock { $0?.holder } }

    /// While this process holds the sync lock, throws unless its session still does. The session sits idle on a
    /// connection of its own while the sync writes through others; if it ends (the server restarted, an
    /// administrator ended it, the network dropped), PostgreSQL frees the lock and another host may start a sync, so
    /// this one must stop writing. Called in each batch's transaction.
    func checkSyncLockHeld(_ connection: PostgresConnection) async throws {
        guard let held = heldSyncLock.withLock({ $0 }) else { return }
        var holds = false
        for try await found in try await connection.query("""
            SELECT EXISTS (SELECT 1 FROM pg_locks WHERE pid = \(held.session) AND locktype = 'advisory' AND granted
                AND classid::bigint = \(Int64(PostgresSchema.lockClass)) AND objid::bigint = \(Int64(UInt32(bitPattern: held.key)))
                AND objsubid = 2)
            """, logger: logger).decode(Bool.self) { holds = found }
        guard holds else {
            throw PostgresStoreError.failed(
                store: settings.description, action: "save events",
                reason: "the sync lock was lost (its connection to the server ended), so another host may be syncing; "
                    + "this sync stops here, and the next resumes from the watermark")
        }
    }

    /// The `application_name` of the session holding the lock, if it is still there to ask.
    private func lockHolder(_ connection: PostgresConnection, key: Int32) async throws -> String? {
        let objectID = Int64(UInt32(bitPattern: key))
        let rows = try await connection.query("""
            SELECT a.application_name FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
            WHERE l.locktype = 'advisory' AND l.granted AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
              AND l.classid::bigint = \(Int64(PostgresSchema.lockClass)) AND l.objid::bigint = \(objectID) AND l.objsubid = 2
            LIMIT 1
            """, logger: logger)
        for try await name in rows.decode(String.self) where !name.isEmpty { return name }
        return nil
    }
}

/// The sync lock this process holds on a store: who it said it was, and the server session holding the lock.
struct HeldSyncLock: Sendable {
    var holder: String
    var session: Int32
    var key: Int32
}
