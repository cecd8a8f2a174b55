import Foundation
import GRDB
import Testing

/// Saved routes live with the settings (`routes.path`), survive a change of store, move out of an earlier store
/// without loss, travel as YAML, and compare.
@Suite("bridget executable: routes kept with the settings")
struct RouteFileTests {
    func synced() async throws -> (BridgetProcess, String) {
        let bridget = BridgetProcess()
        let config = try bridget.sampleConfig(days: 60)
        #expect(try await bridget.run(["sync", "--config", config]).status == 0)
        return (bridget, config)
    }

    @Test("a route is written to the routes file in the config folder and is still there with another store")
    func keptWithSettings() async throws {
        let (bridget, config) = try await synced()
        let add = try await bridget.run(["route", "add", "commute", "--config", config, "--via", "Fremont/Ballard@8",
                                   "--via", "Montlake@22", "--favorite"])
        #expect(add.status == 0)
        let path = bridget.home + "/config/bridget/routes.yaml"
        #expect(add.stderr.contains("routes are kept in \(path)"))
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.hasSuffix("""
            routes:
              - name: "commute"
                favorite: true
                crossings:
                  - bridges: ["3", "2"]
                    minutes: 8
                  - bridges: ["4"]
                    minutes: 22

            """), "\(text)")
        // Another store: the route is still listed (it was lost with store.path before).
        let other = try await bridget.run(["route", "list", "--config", config, "--format", "json"],
                                    environment: ["BRIDGET_STORE_PATH": bridget.home + "/other.sqlite"])
        #expect(other.status == 0 && other.stdout.contains("\"id\" : \"commute\""), "\(other.stderr)")
    }

    @Test("route move --to store copies the file's routes into the store, which routes.storage store then reads (and back)")
    func moveToTheStore() async throws {
        let (bridget, config) = try await synced()
        #expect(try await bridget.run(["route", "add", "commute", "--config", config, "--via", "Fremont@8"]).status == 0)
        let inStore = ["BRIDGET_ROUTES_STORAGE": "store"]
        let empty = try await bridget.run(["route", "list", "--config", config, "--format", "json"], environment: inStore)
        #expect(empty.status == 0 && !empty.stdout.contains("commute"), "the store had the route before the move")
        let move = try await bridget.run(["route", "move", "--to", "store", "--config", config])
        #expect(move.status == 0 && move.stdout.contains("copied 1 routes") && move.stderr.contains("routes.storage is auto"),
                "\(move.stdout) \(move.stderr)")
        let listed = try await bridget.run(["route", "list", "--config", config, "--format", "json"], environment: inStore)
        #expect(listed.status == 0 && listed.stdout.contains("\"id\" : \"commute\""), "\(listed.stderr)")
        // Saved in the store now: the file does not get it; moving back brings it.
        #expect(try await bridget.run(["route", "add", "school", "--config", config, "--via", "Ballard@5"],
                                      environment: inStore).status == 0)
        let file = try String(contentsOfFile: bridget.home + "/config/bridget/routes.yaml", encoding: .utf8)
        #expect(!file.contains("school"))
        let back = try await bridget.run(["route", "move", "--to", "file", "--config", config])
        #expect(back.status == 0 && back.stdout.contains("copied 2 routes") && back.stdout.contains("1 new"), "\(back.stdout)")
        #expect(try String(contentsOfFile: bridget.home + "/config/bridget/routes.yaml", encoding: .utf8).contains("school"))
    }

    @Test("routes an earlier Bridget kept in the store are copied to the file once, and doctor names stranded ones")
    func migration() async throws {
        let (bridget, config) = try await synced()
        let queue = try DatabaseQueue(path: bridget.storePath)
        try await queue.write { db in
            try db.execute(sql: """
                INSERT INTO routes (name, favorite, crossings) VALUES
                ('old', 1, '[{"bridgeIDs":["3"],"minutesFromStart":5}]')
                """)
        }
        try queue.close()
        let list = try await bridget.run(["route", "list", "--config", config, "--format", "json"])
        #expect(list.stdout.contains("\"id\" : \"old\"") && list.stderr.contains("copied 1 saved routes from the store"),
                "\(list.stderr)")
        #expect(try await bridget.run(["route", "list", "--config", config]).stderr.isEmpty) // once
        // A store with a route the file lacks: doctor says so and how to copy it.
        let other = bridget.home + "/other.sqlite"
        #expect(try await bridget.run(["sync", "--config", config], environment: ["BRIDGET_STORE_PATH": other]).status == 0)
        let otherQueue = try DatabaseQueue(path: other)
        try await otherQueue.write { db in
            try db.execute(sql: """
                INSERT INTO routes (name, favorite, crossings) VALUES ('stranded', 0, '[{"bridgeIDs":["4"],"minutesFromStart":3}]')
                """)
        }
        try otherQueue.close()
        let doctor = try await bridget.run(["doctor", "--config", config], environment: ["BRIDGET_STORE_PATH": other])
        #expect(doctor.stdout.contains("holds 1 more (stranded)")
                && doctor.stdout.contains("bridget route import --from-store"), "\(doctor.stdout)")
        let exported = try await bridget.run(["route", "export", "--from-store", "--config", config],
                                       environment: ["BRIDGET_STORE_PATH": other])
        #expect(exported.stdout.contains("name: \"stranded\""))
        let adopted = try await bridget.run(["route", "import", "--from-store", "--config", config],
                                      environment: ["BRIDGET_STORE_PATH": other])
        #expect(adopted.status == 0 && adopted.stdout.contains("imported 1 routes from the store"), "\(adopted.stderr)")
        let healed = try await bridget.run(["doctor", "--config", config], environment: ["BRIDGET_STORE_PATH": other])
        #expect(healed.stdout.contains("2 saved routes in"), "\(healed.stdout)")
        // A route removed after its store was copied in stays removed: doctor does not offer it back.
        #expect(try await bridget.run(["route", "remove", "stranded", "--config", config]).status == 0)
        #expect(try await bridget.run(["route", "remove", "old", "--config", config]).status == 0)
        for store in [other, bridget.storePath] {
            let after = try await bridget.run(["doctor", "--config", config], environment: ["BRIDGET_STORE_PATH": store])
            #expect(after.stdout.contains("0 saved routes in") && !after.stdout.contains("more ("), "\(after.stdout)")
        }
    }

    @Test("routes saved by many processes at once are all kept; a name is trimmed; a linked file is written through")
    func concurrentAndLinked() async throws {
        let (bridget, config) = try await synced()
        let folder = bridget.home + "/dotfiles"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: bridget.home + "/config/bridget", withIntermediateDirectories: true)
        try "routes: []\n".write(toFile: folder + "/routes.yaml", atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: folder + "/routes.yaml")
        try FileManager.default.createSymbolicLink(atPath: bridget.home + "/config/bridget/routes.yaml",
                                                   withDestinationPath: folder + "/routes.yaml")
        let processes = (1...8).map { index in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: BridgetProcess.executable)
            process.arguments = ["route", "add", "r\(index)", "--config", config, "--via", "Fremont@5"]
            process.environment = ["HOME": bridget.home, "XDG_CONFIG_HOME": bridget.home + "/config",
                                   "XDG_DATA_HOME": bridget.home + "/data", "PATH": "/usr/bin:/bin"]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            return process
        }
        for process in processes { try process.run() }
        for process in processes { await process.exited() }
        #expect(processes.allSatisfy { $0.terminationStatus == 0 })
        let listed = try await bridget.run(["route", "list", "--config", config, "--format", "csv"]).stdout
        #expect((1...8).allSatisfy { listed.contains("\nr\($0),") }, "\(listed)")
        // The link is still a link, its target holds the routes and keeps its mode.
        let link = try FileManager.default.destinationOfSymbolicLink(atPath: bridget.home + "/config/bridget/routes.yaml")
        #expect(link == folder + "/routes.yaml")
        #expect(try String(contentsOfFile: folder + "/routes.yaml", encoding: .utf8).contains("name: \"r8\""))
        let mode = try FileManager.default.attributesOfItem(atPath: folder + "/routes.yaml")[.posixPermissions] as? Int
        #expect(mode == 0o600)
        // A name given with spaces around it is saved, found and removed trimmed.
        #expect(try await bridget.run(["route", "add", " padded ", "--config", config, "--via", "Fremont@3"]).status == 0)
        #expect(try await bridget.run(["route", "add", "padded", "--config", config, "--via", "Fremont@4"]).status == 0)
        #expect(try await bridget.run(["route", "remove", " padded ", "--config", config]).status == 0)
        #expect(try await bridget.run(["route", "list", "--config", config]).status == 0)
    }

    @Test("export and import are YAML round trips; a bad file or an unknown bridge changes nothing")
    func exportImport() async throws {
        let (bridget, config) = try await synced()
        #expect(try await bridget.run(["route", "add", "a", "--config", config, "--via", "Fremont@5"]).status == 0)
        #expect(try await bridget.run(["route", "add", "b", "--config", config, "--via", "Ballard/Fremont@4", "--via", "Montlake@20"]).status == 0)
        let yaml = try await bridget.run(["route", "export", "--config", config]).stdout
        let saved = try bridget.write("routes-copy.yaml", yaml)
        #expect(try await bridget.run(["route", "remove", "a", "--config", config]).status == 0)
        #expect(try await bridget.run(["route", "remove", "b", "--config", config]).status == 0)
        let back = try await bridget.run(["route", "import", saved, "--config", config])
        #expect(back.status == 0 && back.stdout.contains("imported 2 routes (2 new, 0 replaced)"), "\(back.stderr)")
        #expect(try await bridget.run(["route", "export", "--config", config]).stdout == yaml)

        let garbled = try bridget.write("garbled.yaml", "routes:\n  - name: x\n    crossings: 7\n")
        let refused = try await bridget.run(["route", "import", garbled, "--config", config])
        #expect(refused.status == 65 && refused.stderr.contains("\(garbled) is not a routes file"), "\(refused.stderr)")
        let unknown = try bridget.write("unknown.yaml", "routes:\n  - name: x\n    crossings:\n      - bridges: ['99']\n        minutes: 3\n")
        let rejected = try await bridget.run(["route", "import", unknown, "--config", config])
        #expect(rejected.status == 64 && rejected.stderr.contains("names bridge '99'"), "\(rejected.stderr)")
        #expect(try await bridget.run(["route", "export", "--config", config]).stdout == yaml) // unchanged
        // A damaged routes file is reported with its path, never overwritten silently.
        let file = bridget.home + "/config/bridget/routes.yaml"
        try "routes: [oops".write(toFile: file, atomically: true, encoding: .utf8)
        let damaged = try await bridget.run(["route", "add", "c", "--config", config, "--via", "Fremont@5"])
        #expect(damaged.status == 65 && damaged.stderr.contains("the routes file \(file) is not a routes file"))
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "routes: [oops")
    }

    @Test("route compare says which route is better when, and CSV has one row per route and departure")
    func compare() async throws {
        let (bridget, config) = try await synced()
        #expect(try await bridget.run(["route", "add", "north", "--config", config, "--via", "Fremont@5"]).status == 0)
        #expect(try await bridget.run(["route", "add", "south", "--config", config, "--via", "Lower Spokane St@5",
                                 "--via", "1st Ave South@12"]).status == 0)
        let table = try await bridget.run(["route", "compare", "north", "south", "--config", config, "--date", "2026-06-30",
                                     "--between", "7:00", "9:00", "--step", "15m"])
        #expect(table.status == 0, "\(table.stderr)")
        #expect(table.stdout.contains("On Tuesday 2026-06-30 (America/Los_Angeles time): ")
                && (table.stdout.contains(" is better from ") || table.stdout.contains("they tie")), "\(table.stdout)")
        let csv = try await bridget.run(["route", "compare", "north", "south", "--config", config, "--date", "2026-06-30",
                                   "--between", "7:00", "9:00", "--step", "15m", "--format", "csv"])
        let lines = csv.stdout.split(separator: "\n")
        #expect(lines.first == "depart,depart_local,route,expected_delay_minutes,better" && lines.count == 1 + 9 * 2)
        #expect(lines.dropFirst().allSatisfy { $0.hasPrefix("2026-06-30T1") && $0.contains("Z,2026-06-30T0") })
        #expect(try await bridget.run(["route", "compare", "north", "north", "--config", config, "--between", "7:00", "9:00"])
                .status == 64)
    }
}
