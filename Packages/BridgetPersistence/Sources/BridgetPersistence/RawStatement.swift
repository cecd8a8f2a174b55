import BridgetDTOs
import GRDB
import GRDBSQLite

/// Binding and stepping a GRDB statement through SQLite's C API, for the one statement that runs per stored row.
enum RawStatement {
    /// SQLite copies the bytes before `bind` returns.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    /// Resets `statement`, lets `bind` bind it, and steps it to completion.
    static func run(_ statement: Statement, _ db: Database, bind: (OpaquePointer) -> Void) throws {
        let handle = statement.sqliteStatement
        sqlite3_reset(handle)
        bind(handle)
        let code = sqlite3_step(handle)
        guard code == SQLITE_DONE else {
            let message = String(cString: sqlite3_errmsg(db.sqliteConnection))
            sqlite3_reset(handle)
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: statement.sql)
        }
    }

    /// Binds an event to the ten parameters of the events upsert statements.
    static func bind(_ handle: OpaquePointer, _ event: BridgeEventDTO, openedAt: String, closedAt: String?) {
        text(handle, 1, event.bridgeID)
        text(handle, 2, openedAt)
        text(handle, 3, event.bridgeName)
        text(handle, 4, event.openLocal)
        text(handle, 5, closedAt)
        text(handle, 6, event.closeLocal)
        if let minutes = event.minutesOpen { sqlite3_bind_int64(handle, 7, Int64(minutes)) } else { sqlite3_bind_null(handle, 7) }
        real(handle, 8, event.durationMinutes)
        real(handle, 9, event.latitude)
        real(handle, 10, event.longitude)
    }

    private static func text(_ handle: OpaquePointer, _ index: Int32, _ value: String?) {
        guard var value else {
            sqlite3_bind_null(handle, index)
            return
        }
        value.withUTF8 { bytes in
            // An empty buffer may have no address; SQLite needs a pointer to bind '' rather than NULL.
            let empty: UInt8 = 0
            withUnsafePointer(to: empty) { fallback in
                let start = UnsafeRawPointer(bytes.baseAddress ?? fallback).assumingMemoryBound(to: CChar.self)
                _ = sqlite3_bind_text(handle, index, start, Int32(bytes.count), transient)
            }
        }
    }

    private static func real(_ handle: OpaquePointer, _ index: Int32, _ value: Double?) {
        if let value { sqlite3_bind_double(handle, index, value) } else { sqlite3_bind_null(handle, index) }
    }
}
