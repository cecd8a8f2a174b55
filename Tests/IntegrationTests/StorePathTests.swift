import Foundation
import GRDB
import Testing

/// What `store.path` may point at, through the executable: another application's SQLite file, a folder, a device, a
/// file that is not SQLite, a store made before Bridget marked its stores, and a store on a read-only disk.
@Suite("bridget executable: what the store path holds")
struct StorePathTests {
    /// Bridget's `PRAGMA application_id`: "BRDG" in ASCII.
    static let bridgetApplicationID: Int32 = 0x4252_4447

    /// Every command that opens the store, with the arguments it needs. `import` reads `rows.ndjson` in the home.
    static let storeCommands: [[String]] = [
        ["sync"], ["import", "rows.ndjson"], ["export", "--out", "-"], ["stats"], ["events"], ["bridges"],
        ["predict", "--bridge", "Fremont", "--at", "2026-06-30 13:00"],
        ["route", "list"], ["route", "show", "commute"], ["route", "add", "other", "--via", "Fremont@5"],
        ["route", "remove", "commute"], ["route", "favorite", "commute"],
        ["route", "score", "commute", "--depart", "2026-06-30 13:00"],
        ["route", "best-time", "commute", "--between", "16:00", "17:00", "--date", "2026-06-30"],
        ["backtest", "--train-until", "2026-06-20"], ["cascades"], ["anomalies"], ["patterns", "--bridge", "Fremont"],
        ["model", "rebuild"], ["prune", "--before", "2020-01-01"], ["doctor"],
    ]

    /// A row `import` accepts, in `export`'s NDJSON form.
    static let goodRow = #"{"entitytype":"Bridge","entityname":"Fremont","entityid":"3","opendatetime":"2026-06-01T10:00:00.000","closedatetime":"2026-06-01T10:05:00.000","minutesopen":"5","latitude":"47.64760208129883","longitude":"-122.3497314453125"}"#

    /// Runs `bridget` with the store at `store`, and `arguments` plus the test's sample config.
    static func run(_ bridget: BridgetProcess, _ arguments: [String], store: String) async throws -> ProcessResult {
        let config = try bridget.sampleConfig(days: 30)
        return try await bridget.run(arguments + ["--config", config], environment: ["BRIDGET_STORE_PATH": store])
    }

    static func sideFiles(_ path: String) -> [String] {
        ["-wal", "-shm", "-journal"].map { path + $0 }.filter { FileManager.default.fileExists(atPath: $0) }
    }

    /// Another application's SQLite file, made the way it would make it.
    enum Foreign: String, CaseIterable, CustomTestStringConvertible {
        /// A browser-like history in WAL mode, with no application_id.
        case walHistory
        /// A table named like one of Bridget's (`events`), rollback journal, no application_id.
        case tableNamedLikeOurs
        /// A file carrying its own application_id and user_version.
        case ownApplicationID

        var testDescription: String { rawValue }

        func make(at path: String) throws {
            let queue = try DatabaseQueue(path: path)
            try queue.writeWithoutTransaction { db in
                switch self {
                case .walHistory:
                    try db.execute(sql: "PRAGMA journal_mode = WAL")
                    try db.execute(sql: """
                        CREATE TABLE moz_places (id INTEGER PRIMARY KEY, url TEXT NOT NULL);
                        INSERT INTO moz_places (url) VALUES ('https://example.org/'), ('https://example.com/');
                        """)
                case .tableNamedLikeOurs:
                    try db.execute(sql: """
                        CREATE TABLE events (id INTEGER PRIMARY KEY, title TEXT, starts TEXT);
                        INSERT INTO events (title, starts) VALUES ('dentist', '2026-07-01 09:00');
                        """)
                case .ownApplicationID:
                    try db.execute(sql: """
                        PRAGMA application_id = 1296652368;
                        PRAGMA user_version = 3;
                        CREATE TABLE items (name TEXT);
                        INSERT INTO items VALUES ('kept');
                        """)
                }
            }
            try queue.close()
        }
    }

    @Test("another application's SQLite file is refused by every command, byte for byte unchanged, no file beside it",
          arguments: Foreign.allCases)
    func foreignDatabase(_ kind: Foreign) async throws {
        let bridget = BridgetProcess()
        _ = try bridget.write("rows.ndjson", Self.goodRow + "\n")
        let path = bridget.home + "/history.sqlite"
        try kind.make(at: path)
        #expect(Self.sideFiles(path).isEmpty)
        let original = try #require(FileManager.default.contents(atPath: path))
        for command in Self.storeCommands {
            let result = try await Self.run(bridget, command, store: path)
            let said = result.stderr + result.stdout // doctor reports on standard output
            #expect(result.status != 0, "\(command): succeeded")
            if command != ["doctor"] { #expect(result.status == 78, "\(command): exit \(result.status)") }
            #expect(said.contains("\(path) is a SQLite database of another application (application_id "),
                    "\(command): \(said)")
            #expect(said.contains("not a Bridget store"), "\(command): \(said)")
            #expect(FileManager.default.contents(atPath: path) == original, "\(command) changed the file")
            #expect(Self.sideFiles(path).isEmpty, "\(command) left \(Self.sideFiles(path))")
        }
        let expected = kind == .ownApplicationID ? "application_id 1296652368" : "application_id 0"
        let stats = try await Self.run(bridget, ["stats"], store: path)
        #expect(stats.stderr.contains(expected), "\(stats.stderr)")
    }

    @Test("a new store is marked as Bridget's; one made before the mark opens and is marked, its own additions kept")
    func markedAndLegacyStores() async throws {
        let bridget = BridgetProcess()
        let config = try bridget.sampleConfig(days: 14)
        #expect(try await bridget.run(["sync", "--config", config, "--quiet"]).status == 0)
        let queue = try DatabaseQueue(path: bridget.storePath)
        let (mark, pageSize, journal) = try await queue.read { db in
            (try Int32.fetchOne(db, sql: "PRAGMA application_id"), try Int.fetchOne(db, sql: "PRAGMA page_size"),
             try String.fetchOne(db, sql: "PRAGMA journal_mode"))
        }
        #expect(mark == Self.bridgetApplicationID)
        #expect(pageSize == 16_384)
        #expect(journal == "wal")

        // As a store made before the mark: no application_id; and an index of the user's own, which is no table.
        let events = try await queue.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA application_id = 0")
            try db.execute(sql: "CREATE INDEX users_own ON events (entity_name)")
            try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
            return try Int.fetchOne(db, sql: "SELECT count(*) FROM events") ?? -1
        }
        try queue.close()
        let stats = try await bridget.run(["stats", "--config", config, "--format", "json"])
        #expect(stats.status == 0, "\(stats.stderr)")
        let after = try DatabaseQueue(path: bridget.storePath)
        let (markAfter, eventsAfter, index) = try await after.read { db in
            (try Int32.fetchOne(db, sql: "PRAGMA application_id"), try Int.fetchOne(db, sql: "SELECT count(*) FROM events"),
             try String.fetchOne(db, sql: "SELECT name FROM sqlite_master WHERE name = 'users_own'"))
        }
        try after.close()
        #expect(markAfter == Self.bridgetApplicationID)
        #expect(eventsAfter == events)
        #expect(index == "users_own")
        #expect(try await bridget.run(["sync", "--config", config, "--quiet"]).status == 0)
    }

    @Test("a store path that is a folder, a device or not SQLite says so, and the path is left as it was")
    func notAFile() async throws {
        let bridget = BridgetProcess()
        _ = try bridget.write("rows.ndjson", Self.goodRow + "\n")
        let folder = bridget.home + "/a-folder"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let text = try bridget.write("notes.txt", String(repeating: "not a database\n", count: 300))
        let cases: [(path: String, status: Int32, message: String)] = [
            (folder, 78, "the store path \(folder) is a folder, not a file"),
            ("/dev/null", 78, "the store path /dev/null is a character device, not a regular file"),
            (text, 74, "the store at \(text) is not a SQLite database"),
        ]
        let textBytes = FileManager.default.contents(atPath: text)
        for (path, status, message) in cases {
            for command in [["sync"], ["import", "rows.ndjson"], ["stats"], ["events"], ["route", "list"],
                            ["export", "--out", "-"]] {
                let result = try await Self.run(bridget, command, store: path)
                #expect(result.status == status, "\(path) \(command): exit \(result.status): \(result.stderr)")
                #expect(result.stderr.contains(message), "\(path) \(command): \(result.stderr)")
                for misleading in ["free disk space", "needs an upgrade", "disk I/O error", "read-only"] {
                    #expect(!result.stderr.contains(misleading), "\(path) \(command): \(result.stderr)")
                }
            }
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
        #expect(FileManager.default.contents(atPath: text) == textBytes)
        #expect(Self.sideFiles(text).isEmpty)
    }

    @Test("every command that only reads reads a store on a read-only disk; one that writes says it cannot")
    func readOnlyStore() async throws {
        // Not skipped where a read-only disk cannot be had: a test that cannot run fails with the reason.
        guard ReadOnlyMount.isAvailable else {
            Issue.record("cannot mount a read-only tmpfs here: it needs root and the right to mount (CI runs as root)")
            return
        }
        let bridget = BridgetProcess()
        let config = try bridget.sampleConfig(days: 30)
        #expect(try await bridget.run(["sync", "--config", config, "--quiet"]).status == 0)
        #expect(try await bridget.run(["route", "add", "commute", "--config", config, "--via", "Fremont/Ballard@8"]).status == 0)
        // Two stores: one marked, one as made before the mark (read as it is, since it cannot be marked there).
        let legacy = bridget.home + "/legacy.sqlite"
        let queue = try DatabaseQueue(path: bridget.storePath)
        try await queue.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
        try queue.close()
        try FileManager.default.copyItem(atPath: bridget.storePath, toPath: legacy)
        let legacyQueue = try DatabaseQueue(path: legacy)
        try await legacyQueue.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA application_id = 0")
            try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
        }
        try legacyQueue.close()

        let mount = try ReadOnlyMount(copying: [bridget.storePath, legacy])
        defer { mount.unmount() }
        for store in [mount.path + "/store.sqlite", mount.path + "/legacy.sqlite"] {
            let before = FileManager.default.contents(atPath: store)
            for command in [["route", "list"], ["route", "show", "commute"],
                            ["route", "score", "commute", "--depart", "2026-06-30 13:00"],
                            ["route", "best-time", "commute", "--between", "16:00", "17:00", "--date", "2026-06-30"],
                            ["doctor"], ["stats"], ["events"], ["bridges"], ["export", "--out", "-"],
                            ["predict", "--bridge", "Fremont", "--at", "2026-06-30 13:00"], ["cascades"], ["anomalies"],
                            ["patterns", "--bridge", "Fremont"], ["backtest", "--train-until", "2026-06-20"]] {
                let result = try await bridget.run(command + ["--config", config], environment: ["BRIDGET_STORE_PATH": store])
                #expect(result.status == 0, "\(store) \(command): exit \(result.status): \(result.stderr)")
                #expect(result.stderr.contains("cannot be written: reading it as it is"), "\(command): \(result.stderr)")
            }
            let list = try await bridget.run(["route", "list", "--config", config, "--format", "json"],
                                       environment: ["BRIDGET_STORE_PATH": store])
            #expect(list.stdout.contains("\"commute\""), "\(list.stdout)")
            for command in [["route", "add", "other", "--via", "Fremont@5"], ["sync"], ["model", "rebuild"]] {
                let result = try await bridget.run(command + ["--config", config], environment: ["BRIDGET_STORE_PATH": store])
                #expect(result.status == 74, "\(store) \(command): exit \(result.status): \(result.stderr)")
            }
            #expect(FileManager.default.contents(atPath: store) == before)
        }
    }
}

/// A tmpfs mounted read-only with copies of some files, as Scripts/drill makes one: a disk nobody can write, which
/// permissions cannot give a test that runs as root. Mounting needs root and the right to mount.
struct ReadOnlyMount {
    /// The mount point.
    let path: String

    /// Whether this machine lets the tests mount a tmpfs (tried once, on a folder of its own).
    static let isAvailable: Bool = {
        guard geteuid() == 0 else { return false }
        let probe = NSTemporaryDirectory() + "bridget-mount-probe-" + UUID().uuidString
        try? FileManager.default.createDirectory(atPath: probe, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: probe) }
        guard (try? ReadOnlyMount.shell("/bin/mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", probe])) == 0 else { return false }
        _ = try? ReadOnlyMount.shell("/bin/umount", [probe])
        return true
    }()

    /// Mounts a tmpfs, copies `files` into it and makes it read-only.
    init(copying files: [String]) throws {
        path = NSTemporaryDirectory() + "bridget-ro-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        guard try Self.shell("/bin/mount", ["-t", "tmpfs", "-o", "size=64m", "tmpfs", path]) == 0 else {
            throw CocoaError(.fileWriteNoPermission)
        }
        for file in files {
            try FileManager.default.copyItem(atPath: file,
                                             toPath: path + "/" + URL(fileURLWithPath: file).lastPathComponent)
        }
        guard try Self.shell("/bin/mount", ["-o", "remount,ro", path]) == 0 else {
            unmount()
            throw CocoaError(.fileWriteNoPermission)
        }
    }

    func unmount() {
        _ = try? Self.shell("/bin/umount", [path])
        try? FileManager.default.removeItem(atPath: path)
    }

    private static func shell(_ tool: String, _ arguments: [String]) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }
}
