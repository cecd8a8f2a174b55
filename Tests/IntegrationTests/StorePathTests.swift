import Foundation
import GRDB
import Testing

/// What `store.path` may point at, through the executable: a store on a read-only disk.
@Suite("bridget executable: what the store path holds")
struct StorePathTests {
    @Test("every command that only reads reads a store on a read-only disk; one that writes says it cannot",
          .enabled(if: ReadOnlyMount.isAvailable, "mounting a read-only tmpfs needs root"))
    func readOnlyStore() throws {
        let bridget = BridgetProcess()
        let config = try bridget.sampleConfig(days: 30)
        #expect(try bridget.run(["sync", "--config", config, "--quiet"]).status == 0)
        #expect(try bridget.run(["route", "add", "commute", "--config", config, "--via", "Fremont/Ballard@8"]).status == 0)
        // Two stores: one marked, one as made before the mark (read as it is, since it cannot be marked there).
        let legacy = bridget.home + "/legacy.sqlite"
        let queue = try DatabaseQueue(path: bridget.storePath)
        try queue.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
        try queue.close()
        try FileManager.default.copyItem(atPath: bridget.storePath, toPath: legacy)
        let legacyQueue = try DatabaseQueue(path: legacy)
        try legacyQueue.writeWithoutTransaction { db in
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
                let result = try bridget.run(command + ["--config", config], environment: ["BRIDGET_STORE_PATH": store])
                #expect(result.status == 0, "\(store) \(command): exit \(result.status): \(result.stderr)")
                #expect(result.stderr.contains("cannot be written: reading it as it is"), "\(command): \(result.stderr)")
            }
            let list = try bridget.run(["route", "list", "--config", config, "--format", "json"],
                                       environment: ["BRIDGET_STORE_PATH": store])
            #expect(list.stdout.contains("\"commute\""), "\(list.stdout)")
            for command in [["route", "add", "other", "--via", "Fremont@5"], ["sync"], ["model", "rebuild"]] {
                let result = try bridget.run(command + ["--config", config], environment: ["BRIDGET_STORE_PATH": store])
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
