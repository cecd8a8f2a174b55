import Foundation
import GRDB
import Testing

/// Saved routes live with the settings (`routes.path`), survive a change of store, move out of an earlier store
/// without loss, travel as YAML, and compare.
@Suite("bridget executable: routes kept with the settings")
struct RouteFileTests {
    func synced() throws -> (BridgetProcess, String) {
        let bridget = BridgetProcess()
        let config = try bridget.sampleConfig(days: 60)
        #expect(try bridget.run(["sync", "--config", config]).status == 0)
        return (bridget, config)
    }

    @Test("a route is written to the routes file in the config folder and is still there with another store")
    func keptWithSettings() throws {
        let (bridget, config) = try synced()
        let add = try bridget.run(["route", "add", "commute", "--config", config, "--via", "Fremont/Ballard@8",
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
        let other = try bridget.run(["route", "list", "--config", config, "--format", "json"],
                                    environment: ["BRIDGET_STORE_PATH": bridget.home + "/other.sqlite"])
        #expect(other.status == 0 && other.stdout.contains("\"id\" : \"commute\""), "\(other.stderr)")
    }

    @Test("routes an earlier Bridget kept in the store are copied to the file once, and doctor names stranded ones")
    func migration() throws {
        let (bridget, config) = try synced()
        let queue = try DatabaseQueue(path: bridget.storePath)
        try queue.write { db in
            try db.execute(sql: """
                INSERT INTO routes (name, favorite, crossings) VALUES
                ('old', 1, '[{"bridgeIDs":["3"],"minutesFromStart":5}]')
                """)
        }
        try queue.close()
        let list = try bridget.run(["route", "list", "--config", config, "--format", "json"])
        #expect(list.stdout.contains("\"id\" : \"old\"") && list.stderr.contains("copied 1 saved routes from the store"),
                "\(list.stderr)")
        #expect(try bridget.run(["route", "list", "--config", config]).stderr.isEmpty) // once
        // A store with a route the file lacks: doctor says so and how to copy it.
        let other = bridget.home + "/other.sqlite"
        #expect(try bridget.run(["sync", "--config", config], environment: ["BRIDGET_STORE_PATH": other]).status == 0)
        let otherQueue = try DatabaseQueue(path: other)
        try otherQueue.write { db in
            try db.execute(sql: """
                INSERT INTO routes (name, favorite, crossings) VALUES ('stranded', 0, '[{"bridgeIDs":["4"],"minutesFromStart":3}]')
                """)
        }
        try otherQueue.close()
        let doctor = try bridget.run(["doctor", "--config", config], environment: ["BRIDGET_STORE_PATH": other])
        #expect(doctor.stdout.contains("holds 1 more (stranded)")
                && doctor.stdout.contains("bridget route export --from-store | bridget route import -"), "\(doctor.stdout)")
        let exported = try bridget.run(["route", "export", "--from-store", "--config", config],
                                       environment: ["BRIDGET_STORE_PATH": other])
        let imported = try bridget.write("stranded.yaml", exported.stdout)
        #expect(try bridget.run(["route", "import", imported, "--config", config]).status == 0)
        let healed = try bridget.run(["doctor", "--config", config], environment: ["BRIDGET_STORE_PATH": other])
        #expect(healed.stdout.contains("2 saved routes in"), "\(healed.stdout)")
    }

    @Test("export and import are YAML round trips; a bad file or an unknown bridge changes nothing")
    func exportImport() throws {
        let (bridget, config) = try synced()
        #expect(try bridget.run(["route", "add", "a", "--config", config, "--via", "Fremont@5"]).status == 0)
        #expect(try bridget.run(["route", "add", "b", "--config", config, "--via", "Ballard/Fremont@4", "--via", "Montlake@20"]).status == 0)
        let yaml = try bridget.run(["route", "export", "--config", config]).stdout
        let saved = try bridget.write("routes-copy.yaml", yaml)
        #expect(try bridget.run(["route", "remove", "a", "--config", config]).status == 0)
        #expect(try bridget.run(["route", "remove", "b", "--config", config]).status == 0)
        let back = try bridget.run(["route", "import", saved, "--config", config])
        #expect(back.status == 0 && back.stdout.contains("imported 2 routes (2 new, 0 replaced)"), "\(back.stderr)")
        #expect(try bridget.run(["route", "export", "--config", config]).stdout == yaml)

        let garbled = try bridget.write("garbled.yaml", "routes:\n  - name: x\n    crossings: 7\n")
        let refused = try bridget.run(["route", "import", garbled, "--config", config])
        #expect(refused.status == 65 && refused.stderr.contains("\(garbled) is not a routes file"), "\(refused.stderr)")
        let unknown = try bridget.write("unknown.yaml", "routes:\n  - name: x\n    crossings:\n      - bridges: ['99']\n        minutes: 3\n")
        let rejected = try bridget.run(["route", "import", unknown, "--config", config])
        #expect(rejected.status == 64 && rejected.stderr.contains("names bridge '99'"), "\(rejected.stderr)")
        #expect(try bridget.run(["route", "export", "--config", config]).stdout == yaml) // unchanged
        // A damaged routes file is reported with its path, never overwritten silently.
        let file = bridget.home + "/config/bridget/routes.yaml"
        try "routes: [oops".write(toFile: file, atomically: true, encoding: .utf8)
        let damaged = try bridget.run(["route", "add", "c", "--config", config, "--via", "Fremont@5"])
        #expect(damaged.status == 65 && damaged.stderr.contains("the routes file \(file) is not a routes file"))
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "routes: [oops")
    }

    @Test("route compare says which route is better when, and CSV has one row per route and departure")
    func compare() throws {
        let (bridget, config) = try synced()
        #expect(try bridget.run(["route", "add", "north", "--config", config, "--via", "Fremont@5"]).status == 0)
        #expect(try bridget.run(["route", "add", "south", "--config", config, "--via", "Lower Spokane St@5",
                                 "--via", "1st Ave South@12"]).status == 0)
        let table = try bridget.run(["route", "compare", "north", "south", "--config", config, "--date", "2026-06-30",
                                     "--between", "7:00", "9:00", "--step", "15m"])
        #expect(table.status == 0, "\(table.stderr)")
        #expect(table.stdout.contains("On 2026-06-30 (America/Los_Angeles time): ")
                && (table.stdout.contains(" is better from ") || table.stdout.contains("they tie")), "\(table.stdout)")
        let csv = try bridget.run(["route", "compare", "north", "south", "--config", config, "--date", "2026-06-30",
                                   "--between", "7:00", "9:00", "--step", "15m", "--format", "csv"])
        let lines = csv.stdout.split(separator: "\n")
        #expect(lines.first == "depart_local,route,expected_delay_minutes,better" && lines.count == 1 + 9 * 2)
        #expect(try bridget.run(["route", "compare", "north", "north", "--config", config, "--between", "7:00", "9:00"])
                .status == 64)
    }
}
