import BridgetDTOs
import BridgetPersistence
import Foundation
import GRDB
import GRDBSQLite

/// Stepping a GRDB statement through SQLite's C API, for the statements that run once per stored row: GRDB's
/// `StatementArguments` box every value, which cost more than the insert itself at a million rows.
enum RawStatement {
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

    /// Resets `statement`, lets `bind` bind it, and steps it once: whether it has a row.
    static func hasRow(_ statement: Statement, _ db: Database, bind: (OpaquePointer) -> Void) throws -> Bool {
        let handle = statement.sqliteStatement
        sqlite3_reset(handle)
        bind(handle)
        let code = sqlite3_step(handle)
        guard code == SQLITE_DONE || code == SQLITE_ROW else {
            let message = String(cString: sqlite3_errmsg(db.sqliteConnection))
            sqlite3_reset(handle)
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: statement.sql)
        }
        sqlite3_reset(handle) // a statement left on a row would keep its read open
        return code == SQLITE_ROW
    }

    /// Unbinds every parameter of `statement`, so none points into memory that is about to be freed.
    static func clearBindings(_ statement: Statement) {
        sqlite3_clear_bindings(statement.sqliteStatement)
    }
}

/// Reading a column of the row a statement stands on, in place.
enum RawColumn {
    /// The column's text as SQLite holds it, valid until the statement steps again; `nil` for NULL.
    static func text(_ handle: OpaquePointer, _ column: Int32) -> UnsafeBufferPointer<UInt8>? {
        guard let text = sqlite3_column_text(handle, column) else { return nil }
        return UnsafeBufferPointer(start: text, count: Int(sqlite3_column_bytes(handle, column)))
    }

    /// Whole seconds since 1970 of a stored time text: an instant (`StoredTimestamp`, ending in `Z`) or a raw
    /// Seattle reading read as UTC (`FloatingTimestamp.wallClockSeconds`); `nil` for a text that is neither.
    static func seconds(_ text: UnsafeBufferPointer<UInt8>, instant: Bool) -> Int64? {
        var text = text
        if instant {
            guard text.last == UInt8(ascii: "Z") else { return nil }
            text = UnsafeBufferPointer(rebasing: text.dropLast())
        }
        return FloatingTimestamp(utf8: text)?.wallClockSeconds
    }

    /// Sets `string` to the column's text, keeping the string it holds when the bytes are the same.
    static func reuse(_ string: inout String, _ handle: OpaquePointer, _ column: Int32) {
        let bytes = text(handle, column) ?? UnsafeBufferPointer(start: nil, count: 0)
        let same = string.utf8.withContiguousStorageIfAvailable { $0.elementsEqual(bytes) } ?? false
        if !same { string = String(decoding: bytes, as: UTF8.self) }
    }
}

/// One event laid out for the thirteen parameters of the events upsert statements, its eight texts end to end in a
/// buffer that is reused from row to row.
///
/// The parameters: 1 bridge_id, 2 opened_at, 3 entity_name, 4 open_local, 5 closed_at, 6 close_local, 7 minutes_open,
/// 8 duration_minutes, 9 latitude, 10 longitude, 11 status, 12 record_id, 13 record_version. A statement uses those
/// it needs by number; binding one past a statement's last is refused by SQLite (`SQLITE_RANGE`) and changes nothing.
///
/// SQLite reads the texts in place (`SQLITE_STATIC`) while a statement steps, instead of copying each one into an
/// allocation of its own: two statements' worth of six copies a row. The bindings point into the buffer until the
/// next `load`, so a statement run with it must be run again only after binding anew (as `run` does), and
/// unbound (`RawStatement.clearBindings`) before the buffer goes away.
struct EventRowBinding {
    /// Byte 0 is never a value's, so the buffer has an address even when every text is empty ('' is not NULL).
    private var bytes: [UInt8] = [0]
    private var texts: [Range<Int>?] = Array(repeating: nil, count: 6)
    private var status: Range<Int>?
    private var recordID: Range<Int>?
    private var live: Range<Int>?
    private var minutesOpen: Int?
    private var recordVersion: Int?
    private var reals: (Double?, Double?, Double?) = (nil, nil, nil)

    init() {
        bytes.reserveCapacity(256)
    }

    /// Lays out the event at `event`, replacing the previous one. The event is read in place, through a pointer:
    /// passed as a value, every event was copied first (its strings retained, then released), a visible share of an
    /// import.
    mutating func load(_ event: UnsafePointer<BridgeEventDTO>) throws {
        bytes.removeSubrange(1...)
        texts[0] = append(event.pointee.bridgeID)
        texts[1] = try appendTimestamp(event.pointee.openedAt)
        texts[2] = append(event.pointee.bridgeName)
        texts[3] = append(event.pointee.openLocal)
        if let closedAt = event.pointee.closedAt { texts[4] = try appendTimestamp(closedAt) } else { texts[4] = nil }
        texts[5] = append(event.pointee.closeLocal)
        status = event.pointee.status == .observed ? nil : append(event.pointee.status.rawValue) // v9: observed is NULL
        recordID = append(event.pointee.recordID)
        live = append(event.pointee.live?.storedText)
        minutesOpen = event.pointee.minutesOpen
        recordVersion = event.pointee.recordVersion
        reals = (event.pointee.durationMinutes, event.pointee.latitude, event.pointee.longitude)
    }

    /// Binds the loaded event to `statement` and steps it to completion.
    func run(_ statement: Statement, _ db: Database) throws {
        try bytes.withUnsafeBufferPointer { buffer in
            try RawStatement.run(statement, db) { handle in bind(handle, buffer) }
        }
    }

    /// Binds the loaded event to `statement` and steps it once: whether it has a row.
    func hasRow(_ statement: Statement, _ db: Database) throws -> Bool {
        try bytes.withUnsafeBufferPointer { buffer in
            try RawStatement.hasRow(statement, db) { handle in bind(handle, buffer) }
        }
    }

    private func bind(_ handle: OpaquePointer, _ buffer: UnsafeBufferPointer<UInt8>) {
        // `bytes` is never empty, so it has an address.
        let base = UnsafeRawPointer(buffer.baseAddress!).assumingMemoryBound(to: CChar.self)
        func text(_ parameter: Int32, _ span: Range<Int>?) {
            if let span {
                sqlite3_bind_text(handle, parameter, base + span.lowerBound, Int32(span.count), nil)
            } else {
                sqlite3_bind_null(handle, parameter)
            }
        }
        for (index, span) in texts.enumerated() { text(Int32(index + 1), span) }
        Self.bind(handle, 7, minutesOpen)
        Self.bind(handle, 8, reals.0)
        Self.bind(handle, 9, reals.1)
        Self.bind(handle, 10, reals.2)
        text(11, status)
        text(12, recordID)
        Self.bind(handle, 13, recordVersion)
        text(14, live)
    }

    private mutating func append(_ text: String?) -> Range<Int>? {
        guard let text else { return nil }
        let start = bytes.count
        bytes.append(contentsOf: text.utf8)
        return start..<bytes.count
    }

    private mutating func appendTimestamp(_ date: Date) throws -> Range<Int> {
        let start = bytes.count
        try StoredTimestamp.append(date, to: &bytes)
        return start..<bytes.count
    }

    private static func bind(_ handle: OpaquePointer, _ index: Int32, _ value: Int?) {
        if let value { sqlite3_bind_int64(handle, index, Int64(value)) } else { sqlite3_bind_null(handle, index) }
    }

    private static func bind(_ handle: OpaquePointer, _ index: Int32, _ value: Double?) {
        if let value { sqlite3_bind_double(handle, index, value) } else { sqlite3_bind_null(handle, index) }
    }
}
