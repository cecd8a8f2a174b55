import BridgetPersistence
import Foundation
import GRDBSQLite
import Testing

/// Store errors carry facts (the path, the SQLite result code and message) and a stable code, and say nothing of an
/// application's settings or commands.
@Suite("StoreError")
struct StoreErrorTests {
    @Test("a SQLite failure keeps its extended result code and is classed by its primary one")
    func sqliteFailures() {
        let cases: [(Int32, StoreError.SQLiteFailure, String)] = [
            (26, .corrupt, "store.corrupt"), // SQLITE_NOTADB
            (11, .corrupt, "store.corrupt"), // SQLITE_CORRUPT
            (8, .unwritable, "store.unwritable"), // SQLITE_READONLY
            (14, .unwritable, "store.unwritable"), // SQLITE_CANTOPEN
            (13, .io, "store.io"), // SQLITE_FULL
            (778, .io, "store.io"), // SQLITE_IOERR_WRITE
            (5, .busy, "store.busy"), // SQLITE_BUSY
            (517, .busy, "store.busy"), // SQLITE_BUSY_SNAPSHOT
            (19, .other, "store.sqlite"), // SQLITE_CONSTRAINT
        ]
        for (resultCode, failure, code) in cases {
            let error = StoreError.sqlite(path: "/s", action: "write events", resultCode: resultCode, message: "m")
            #expect(error.sqliteFailure == failure, "\(resultCode)")
            #expect(error.code == code, "\(resultCode)")
        }
        #expect(StoreError.newer(path: "/s").sqliteFailure == nil)
    }

    @Test("the classes follow SQLite's own result codes (the protocols' module names them without linking SQLite)")
    func sqliteResultCodes() {
        let cases: [(Int32, StoreError.SQLiteFailure)] = [
            (SQLITE_NOTADB, .corrupt), (SQLITE_CORRUPT, .corrupt), (SQLITE_READONLY, .unwritable),
            (SQLITE_CANTOPEN, .unwritable), (SQLITE_PERM, .unwritable), (SQLITE_FULL, .io), (SQLITE_IOERR, .io),
            (SQLITE_BUSY, .busy), (SQLITE_LOCKED, .busy), (SQLITE_CONSTRAINT, .other), (SQLITE_ERROR, .other),
        ]
        for (resultCode, failure) in cases {
            let error = StoreError.sqlite(path: "/s", action: "read", resultCode: resultCode, message: "m")
            #expect(error.sqliteFailure == failure, "\(resultCode)")
        }
    }

    @Test("each case says what happened, and where, in one sentence")
    func sentences() {
        #expect(StoreError.sqlite(path: "/s", action: "open", resultCode: 14, message: "unable to open").description
            == "cannot open the store at /s: unable to open (is the folder read-only?)")
        #expect(StoreError.sqlite(path: "/s", action: "write events", resultCode: 13, message: "full").description
            == "cannot write events in the store at /s: full; nothing of this batch was kept")
        #expect(StoreError.sqlite(path: "/s", action: "write events", resultCode: 5, message: "locked").description
            == "the store at /s stayed locked by another process while trying to write events")
        #expect(StoreError.missing(path: "/s", isEmptyFile: true).description
            == "there is no store at /s to read (the file is empty)")
        #expect(StoreError.foreign(path: "/s", applicationID: 0, userVersion: 3, tables: ["a", "b", "c", "d", "e", "f"])
            .description == "the store at /s is a SQLite database of another application (application_id 0, "
            + "user_version 3, tables: a, b, c, d, e, …), not a Bridget store; it was left as it is")
        #expect(StoreError.orphan(.event, bridgeID: "9").description == "event for unknown bridge 9; save the bridge first")
        #expect(StoreError.orphan(.traffic, bridgeID: "9").description == "traffic for unknown bridge 9")
    }
}
