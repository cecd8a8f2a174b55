import BridgetDTOs
import Foundation
import GRDB
import Testing

/// `bridget rules`: dated deviations kept by an operator, in a file or in the store, read by every forecast.
@Suite("bridget rules")
struct RulesCommandTests {
    @Test("add, list, a forecast inside the closure, replace, export and import, remove: in the file beside the config")
    func lifecycleInTheFile() async throws {
        let bridget = BridgetProcess()
        let config = try bridget.sampleConfig(days: 60, endDate: "2026-06-30")
        #expect(try await bridget.run(["--config", config, "sync"]).status == 0)
        let add = try await bridget.run([
            "--config", config, "rules", "add", "run-2026", "--bridge", "Fremont", "--bridge", "21",
            "--from", "2026-07-12 07:30", "--until", "2026-07-12T10:00", "--reason", "a 10K run", "--source", "FR 2026-1234"])
        #expect(add.status == 0 && add.stdout.contains("added run-2026: Fremont, University closed 2026-07-12 07:30–10:00"),
                "\(add.stdout)\(add.stderr)")
        let file = bridget.home + "/config/bridget/rules.yaml"
        #expect(FileManager.default.fileExists(atPath: file))
        let list = try await bridget.run(["--config", config, "rules", "list", "--format", "json"])
        struct Listed: Decodable {
            let deviations: [RuleDeviationDTO]
            let holidays: [FederalHoliday]
            let curfews: [CurfewRule]
        }
        let listed = try decodeJSON(Listed.self, list.stdout)
        let mine = try #require(listed.deviations.first { $0.id == "run-2026" })
        #expect(mine.bridgeIDs == ["3", "21"] && mine.from == "2026-07-12T07:30:00" && mine.source == "FR 2026-1234")
        #expect(listed.deviations.contains { $0.id.hasPrefix("sample-") }, "the sample calendar's are listed too")
        #expect(listed.curfews.first?.bridgeIDs == ["2", "3", "21", "4"] && listed.holidays.count == 11)

        // A forecast inside the closure: no opening, and why.
        let during = try await bridget.run(["--config", config, "predict", "--bridge", "Fremont", "--at", "2026-07-12 08:00",
                                            "--format", "json"])
        struct Answer: Decodable { let forecast: ForecastDTO }
        let forecast = try decodeJSON(Answer.self, during.stdout).forecast
        #expect(forecast.chanceOfOpening == 0)
        #expect(forecast.reasons.contains { $0.kind == "deviation" && $0.text == "closed for a 10K run until 10:00" })
        let table = try await bridget.run(["--config", config, "predict", "--bridge", "Fremont", "--at", "2026-07-12 08:00"])
        #expect(table.stdout.contains("Why:\n  closed for a 10K run until 10:00"), "\(table.stdout)")

        // Replacing by id; export and import round-trip; remove.
        let replaced = try await bridget.run([
            "--config", config, "rules", "add", "run-2026", "--bridge", "Fremont", "--from", "2026-07-12 07:00",
            "--until", "2026-07-12 09:00", "--reason", "a 10K run, shorter"])
        #expect(replaced.status == 0 && replaced.stdout.hasPrefix("replaced run-2026"))
        let exported = try await bridget.run(["--config", config, "rules", "export"])
        #expect(exported.stdout.contains("id: run-2026") && !exported.stdout.contains("sample-"),
                "export writes the kept deviations only: \(exported.stdout)")
        #expect(try await bridget.run(["--config", config, "rules", "remove", "run-2026"]).status == 0)
        let gone = try await bridget.run(["--config", config, "rules", "remove", "run-2026"])
        #expect(gone.status == 64 && gone.stderr.contains("no deviation 'run-2026'"))
        let back = try bridget.write("back.yaml", exported.stdout)
        let imported = try await bridget.run(["--config", config, "rules", "import", back])
        #expect(imported.status == 0 && imported.stdout.contains("imported 1 deviations (1 new)"), "\(imported.stderr)")
    }

    @Test("bad deviations are refused with their place and a non-zero exit; the kept file is not touched", arguments: [
        (["x y", "--bridge", "3", "--from", "2026-07-12 07:00", "--until", "2026-07-12 08:00", "--reason", "r"], "the id"),
        (["ok", "--bridge", "Nowhere", "--from", "2026-07-12 07:00", "--until", "2026-07-12 08:00", "--reason", "r"],
         "no bridge \"Nowhere\""),
        (["ok", "--bridge", "3", "--from", "2026-07-12 09:00", "--until", "2026-07-12 08:00", "--reason", "r"],
         "until must be after from"),
        (["ok", "--bridge", "3", "--from", "tomorrow-ish", "--until", "2026-07-12 08:00", "--reason", "r"], "local times"),
        (["ok", "--bridge", "3", "--from", "2026-07-12 07:00", "--until", "2028-07-12 08:00", "--reason", "r"],
         "a year at most"),
        (["ok", "--bridge", "3", "--from", "2026-07-12 07:00", "--until", "2026-07-12 08:00", "--reason", "two\nlines"],
         "one line"),
        (["ok", "--from", "2026-07-12 07:00", "--until", "2026-07-12 08:00", "--reason", "r"], "at least one bridge"),
    ])
    func refused(_ arguments: [String], _ message: String) async throws {
        let bridget = BridgetProcess()
        let config = try bridget.sampleConfig(days: 30, endDate: "2026-06-30")
        #expect(try await bridget.run(["--config", config, "rules", "add", "kept", "--bridge", "3", "--from",
                                       "2026-07-01 07:00", "--until", "2026-07-01 08:00", "--reason", "kept"]).status == 0)
        let file = bridget.home + "/config/bridget/rules.yaml"
        let before = try String(contentsOfFile: file, encoding: .utf8)
        let result = try await bridget.run(["--config", config, "rules", "add"] + arguments)
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(try String(contentsOfFile: file, encoding: .utf8) == before)
    }

    @Test("a rules file that is not one (malformed, a repeated id, huge, a bad entry) is refused whole: nothing imported")
    func badFiles() async throws {
        let bridget = BridgetProcess()
        let config = try bridget.sampleConfig(days: 30, endDate: "2026-06-30")
        let entry = { (id: String, bridge: String) in
            "  - {id: \(id), bridges: [\"\(bridge)\"], from: \"2026-07-01T07:00:00\", until: \"2026-07-01T08:00:00\", reason: r}\n"
        }
        let cases: [(String, String, Int32)] = [
            ("deviations: [unclosed\n", "not a rules document", 65),
            ("deviations:\n" + entry("a", "3") + entry("a", "4"), "holds the id a twice", 65),
            ("deviations:\n" + entry("a", "3") + entry("b", "99"), "deviation 2: no bridge \"99\"", 64),
            (String(repeating: "# padding\n", count: 110_000), "larger than 1000000 bytes", 65),
        ]
        for (text, message, status) in cases {
            let file = try bridget.write("bad.yaml", text)
            let result = try await bridget.run(["--config", config, "rules", "import", file])
            #expect(result.status == status && result.stderr.contains(message), "\(message): \(result.status) \(result.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: bridget.home + "/config/bridget/rules.yaml"))
        // A damaged kept file is named, not silently emptied.
        try FileManager.default.createDirectory(atPath: bridget.home + "/config/bridget", withIntermediateDirectories: true)
        let kept = try bridget.write("config/bridget/rules.yaml", "deviations: 7\n")
        let listed = try await bridget.run(["--config", config, "rules", "list"])
        #expect(listed.status == 65 && listed.stderr.contains(kept), "\(listed.stderr)")
    }

    @Test("rules.storage store keeps them in the store: another config naming the same store reads them")
    func inTheStore() async throws {
        let bridget = BridgetProcess()
        let config = try bridget.write("bridget.yaml", """
            provider: {kind: sample, sample: {seed: 11, days: 30, end_date: 2026-06-30}}
            store: {path: \(bridget.storePath)}
            rules: {storage: store}
            """)
        #expect(try await bridget.run(["--config", config, "sync"]).status == 0)
        let add = try await bridget.run(["--config", config, "rules", "add", "shared", "--bridge", "Ballard",
                                         "--from", "2026-07-02 07:00", "--until", "2026-07-02 08:00", "--reason", "shared"])
        #expect(add.status == 0 && add.stdout.contains("the store at"), "\(add.stdout)\(add.stderr)")
        #expect(!FileManager.default.fileExists(atPath: bridget.home + "/config/bridget/rules.yaml"))
        let other = try bridget.write("other.yaml", """
            provider: {kind: live, live: {state_url: null}}
            store: {path: \(bridget.storePath)}
            rules: {storage: store}
            """)
        let listed = try await bridget.run(["--config", other, "rules", "list", "--format", "csv"])
        #expect(listed.stdout.contains("shared,2,2026-07-02T07:00:00,2026-07-02T08:00:00,shared,"), "\(listed.stdout)")
        let queue = try DatabaseQueue(path: bridget.storePath)
        let kept = try await queue.read { try String.fetchOne($0, sql: "SELECT name FROM kept_answers WHERE name = 'rules.deviations'") }
        #expect(kept == "rules.deviations")
    }

    @Test("10,000 deviations: an import that would write past the limit is refused whole; a file over it stops no command")
    func oversizedRules() async throws {
        let bridget = BridgetProcess()
        let config = try bridget.sampleConfig(days: 30, endDate: "2026-06-30")
        #expect(try await bridget.run(["--config", config, "sync"]).status == 0)
        // 10,000 deviations in flow style: 957,792 bytes, under the limit; written back in block style, over it.
        func document(reason: String) -> String {
            var lines = ["deviations:"]
            for index in 0..<10_000 {
                let day = String(format: "%02d", 1 + index % 28)
                lines.append("  - {id: d\(index),bridges: [\"3\"],from: \"2027-02-\(day) 01:00\",until: \"2027-02-\(day) 01:30\","
                             + "reason: \(reason)\(index)}")
            }
            return lines.joined(separator: "\n") + "\n"
        }
        let big = try bridget.write("big-rules.yaml", document(reason: "r"))
        let size = try #require(FileManager.default.attributesOfItem(atPath: big)[.size] as? Int)
        #expect(size < 1_000_000, "the file itself is under the limit: \(size)")
        let imported = try await bridget.run(["--config", config, "rules", "import", big])
        #expect(imported.status == 65, "\(imported.stderr)")
        #expect(imported.stderr.contains("over the limit of 1000000: nothing was changed"), "\(imported.stderr)")
        let file = bridget.home + "/config/bridget/rules.yaml"
        #expect(!FileManager.default.fileExists(atPath: file), "nothing was written")

        // A file over the limit (an older Bridget's, a hand edit): forecasts warn and go on; the rules tools work.
        try FileManager.default.createDirectory(atPath: bridget.home + "/config/bridget", withIntermediateDirectories: true)
        try document(reason: "a closure numbered ").write(toFile: file, atomically: true, encoding: .utf8)
        #expect(try #require(FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) > 1_000_000)
        #expect(try await bridget.run(["--config", config, "route", "add", "commute", "--via", "Fremont@8"]).status == 0)
        for arguments in [["predict", "--bridge", "Fremont", "--at", "2026-07-01 08:00"], ["status"],
                          ["route", "score", "commute", "--depart", "2026-07-01 08:00"],
                          ["rules", "list", "--format", "json"], ["rules", "export"]] {
            let result = try await bridget.run(["--config", config] + arguments)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            if arguments[0] == "predict" {
                #expect(result.stderr.contains("forecasts use the standing rules only"), "\(result.stderr)")
            }
        }
        let removed = try await bridget.run(["--config", config, "rules", "remove", "d0"])
        #expect(removed.status == 0, "a removal shrinks an oversized file: \(removed.stderr)")
        let added = try await bridget.run(["--config", config, "rules", "add", "one-more", "--bridge", "Fremont",
                                           "--from", "2027-03-01 08:00", "--until", "2027-03-01 09:00", "--reason", "r"])
        #expect(added.status == 65, "an addition to a file over the limit is refused: \(added.stderr)")
    }

    @Test("rules add and route add through a dangling link are refused and leave no file where the link points")
    func danglingLinks() async throws {
        let bridget = BridgetProcess()
        let config = try bridget.sampleConfig(days: 30, endDate: "2026-06-30")
        #expect(try await bridget.run(["--config", config, "sync"]).status == 0)
        let folder = bridget.home + "/config/bridget"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for (name, arguments) in [
            ("rules.yaml", ["rules", "add", "run", "--bridge", "Fremont", "--from", "2027-03-01 08:00", "--until",
                            "2027-03-01 09:00", "--reason", "r"]),
            ("routes.yaml", ["route", "add", "commute", "--via", "Fremont@8"]),
        ] {
            let missing = bridget.home + "/nowhere-\(name)"
            try FileManager.default.createSymbolicLink(atPath: folder + "/" + name, withDestinationPath: missing)
            let result = try await bridget.run(["--config", config] + arguments)
            #expect(result.status != 0 && result.stderr.contains("symbolic link to \(missing), which does not exist"),
                    "\(name): \(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: missing), "\(name): no file made where the link points")
        }
    }
}
