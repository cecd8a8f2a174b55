import BridgetTestSupport
import Foundation
import GRDB
import Testing

/// `bridget export` and `bridget import`, through the executable.
@Suite("import and export")
struct ImportExportTests {
    /// A summary of `import --summary json`.
    struct ImportSummary: Decodable {
        var rowsRead: Int
        var resumedAfterRows: Int
        var inserted: Int
        var updated: Int
        var unchanged: Int
        var rejected: Int
        var rejectedByReason: [String: Int]
        var completed: Bool
    }

    /// A config over sample data that spans the 2025 fall-back day (repeated hour) and holds invalid rows.
    static func config(_ bridget: BridgetProcess, store: String, batchSize: Int = 5_000, days: Int = 90) throws -> String {
        try bridget.write("bridget-\(UUID().uuidString).yaml", """
            provider:
              kind: sample
              sample:
                seed: 5
                days: \(days)
                end_date: 2025-12-15
                invalid_rate: 0.02
            store:
              path: \(store)
            import:
              batch_size: \(batchSize)
            """)
    }

    /// Rows of `events` in one store that the other lacks, both ways (every column compared).
    static func differences(_ one: String, _ other: String) throws -> (Int, Int, Int) {
        let queue = try DatabaseQueue(path: one)
        return try queue.inDatabase { db in
            try db.execute(sql: "ATTACH DATABASE ? AS other", arguments: [other])
            let missing = try Int.fetchOne(db, sql: "SELECT count(*) FROM (SELECT * FROM main.events EXCEPT SELECT * FROM other.events)") ?? -1
            let extra = try Int.fetchOne(db, sql: "SELECT count(*) FROM (SELECT * FROM other.events EXCEPT SELECT * FROM main.events)") ?? -1
            let count = try Int.fetchOne(db, sql: "SELECT count(*) FROM main.events") ?? -1
            return (missing, extra, count)
        }
    }

    @Test("export then import into an empty store reproduces every row exactly, in each format")
    func roundTrip() async throws {
        let bridget = BridgetProcess()
        let original = bridget.home + "/original.sqlite"
        let synced = try await bridget.run(["sync", "--config", try Self.config(bridget, store: original), "--quiet"])
        #expect(synced.status == 0, "\(synced.stderr)")
        for format in ["ndjson", "csv", "json"] {
            let file = bridget.home + "/all.\(format)"
            let exported = try await bridget.run(["export", "--config", try Self.config(bridget, store: original), "--out", file])
            #expect(exported.status == 0, "\(exported.stderr)")
            #expect(exported.stderr.contains("rows (\(format))"))
            let copy = bridget.home + "/copy-\(format).sqlite"
            // Small batches, so batch edges fall all over the file (the repeated hour's rows stay together).
            let imported = try await bridget.run(["import", file, "--config", try Self.config(bridget, store: copy, batchSize: 97),
                                            "--summary", "json"])
            #expect(imported.status == 0, "\(imported.stderr)")
            let summary = try decodeJSON(ImportSummary.self, imported.stdout)
            #expect(summary.rejected == 0)
            let (missing, extra, count) = try Self.differences(original, copy)
            #expect(count > 2_000)
            #expect(summary.inserted == count)
            #expect(missing == 0, "\(format): rows lost")
            #expect(extra == 0, "\(format): rows changed or added")
        }
        // Standard input and output, through a pipe's worth of bytes.
        let csv = try await bridget.run(["export", "--config", try Self.config(bridget, store: original), "--format", "csv",
                                   "--bridge", "Fremont", "--since", "2025-11-01"])
        #expect(csv.stdout.hasPrefix("\"entitytype\",\"entityname\",\"entityid\",\"opendatetime\",\"closedatetime\",\"minutesopen\",\"latitude\",\"longitude\"\n"))
        let fremontRows = csv.stdout.split(separator: "\n").count - 1
        let expected = try await DatabaseQueue(path: original).read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM events WHERE bridge_id = '3' AND open_local >= '2025-11-01'")
        }
        #expect(fremontRows == expected)
    }

    @Test("importing the same file twice adds nothing; invalid rows are counted by reason and never stored")
    func idempotentAndValidated() async throws {
        let bridget = BridgetProcess()
        let store = bridget.home + "/store.sqlite"
        let config = try Self.config(bridget, store: store, batchSize: 50)
        let file = try bridget.write("rows.ndjson", """
            {"entitytype":"Bridge","entityname":"Fremont","entityid":"3","opendatetime":"2025-10-01T10:00:00.000","closedatetime":"2025-10-01T10:05:00.000","minutesopen":"5","latitude":"47.64760208129883","longitude":"-122.3497314453125"}
            {"entitytype":"Bridge","entityname":"Fremont","entityid":"3","opendatetime":"2025-10-01T11:00:00.000","closedatetime":"2025-10-01T10:05:00.000","minutesopen":"5"}
            {"entitytype":"Bridge","entityname":"Nowhere","entityid":"77","opendatetime":"2025-10-01T12:00:00.000"}
            {"entitytype":"Bridge","entityname":"Ballard","entityid":"2","opendatetime":"2025-10-01T13:00:00.000","minutesopen":4}

            """)
        let first = try decodeJSON(ImportSummary.self, try await bridget.run(["import", file, "--config", config, "--summary", "json"]).stdout)
        #expect(first.rowsRead == 4)
        #expect(first.inserted == 2)
        #expect(first.rejected == 2)
        #expect(first.rejectedByReason == ["close-before-open": 1, "unknown-bridge-id": 1])
        let second = try decodeJSON(ImportSummary.self, try await bridget.run(["import", file, "--config", config, "--summary", "json"]).stdout)
        #expect(second.inserted == 0 && second.updated == 0 && second.unchanged == 2)
        let count = try await DatabaseQueue(path: store).read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM events") }
        #expect(count == 2)
    }

    @Test("a text holding a NUL or another control character is rejected and counted; what is stored is what is exported")
    func controlCharacters() async throws {
        let bridget = BridgetProcess()
        let store = bridget.home + "/store.sqlite"
        let config = try Self.config(bridget, store: store)
        func row(_ hour: Int, name: String = "Fremont", minutes: String = "5", latitude: String = "47.64760208129883")
            -> String
        {
            let open = String(format: "2025-10-01T%02d:00:00.000", hour)
            let close = String(format: "2025-10-01T%02d:05:00.000", hour)
            return #"{"entitytype":"Bridge","entityname":"\#(name)","entityid":"3","opendatetime":"\#(open)","#
                + #""closedatetime":"\#(close)","minutesopen":"\#(minutes)","latitude":"\#(latitude)","#
                + #""longitude":"-122.3497314453125"}"#
        }
        let accepted = row(10)
        let file = try bridget.write("rows.ndjson", [
            accepted,
            row(11, name: #"Fre\u0000mont"#), // once stored whole and printed cut: "Fre"
            row(12, name: #"Fremont\u0000"#),
            row(13, minutes: #"5\u0000"#), // once read as 5
            row(14, latitude: #"47.64760208129883\u0000junk"#), // once read as 47.6476…
            row(15, name: #"Fremont\u001b[2J"#), // a terminal's clear-screen
            row(16, name: #"Fre\tmont"#),
        ].joined(separator: "\n") + "\n")
        let imported = try await bridget.run(["import", file, "--config", config, "--summary", "json"])
        #expect(imported.status == 0, "\(imported.stderr)")
        let summary = try decodeJSON(ImportSummary.self, imported.stdout)
        #expect(summary.rowsRead == 7)
        #expect(summary.inserted == 1)
        #expect(summary.rejectedByReason == ["control-character": 6])
        let table = try await bridget.run(["import", file, "--config", config])
        #expect(table.stdout.contains("control-character"), "\(table.stdout)")

        let stored = try await DatabaseQueue(path: store).read { db in
            try String.fetchAll(db, sql: "SELECT hex(entity_name) FROM events")
        }
        #expect(stored == [Data("Fremont".utf8).map { String(format: "%02X", $0) }.joined()])
        let exported = try await bridget.run(["export", "--config", config, "--format", "ndjson"])
        #expect(exported.status == 0, "\(exported.stderr)")
        #expect(exported.stdout == accepted + "\n")

        // The same through CSV, where a NUL arrives as a raw byte.
        var csv = Data(SocrataRowCSV.header.utf8)
        csv.append(Data(#""Bridge","Fre"#.utf8) + Data([0]) + Data(#"mont","3","2025-10-02T10:00:00.000",,,,"#.utf8))
        csv.append(Data("\n".utf8))
        let csvFile = bridget.home + "/rows.csv"
        try csv.write(to: URL(fileURLWithPath: csvFile))
        let fromCSV = try decodeJSON(ImportSummary.self, try await bridget.run(["import", csvFile, "--config", config,
                                                                          "--summary", "json"]).stdout)
        #expect(fromCSV.inserted == 0 && fromCSV.rejectedByReason == ["control-character": 1])
    }

    /// The API's CSV header.
    enum SocrataRowCSV {
        static let header = #""entitytype","entityname","entityid","opendatetime","closedatetime","minutesopen","latitude","longitude""#
            + "\n"
    }

    @Test("a malformed line stops the import with its line number; the batches before it stay, whole")
    func malformedInput() async throws {
        let bridget = BridgetProcess()
        let store = bridget.home + "/store.sqlite"
        var lines: [String] = []
        for minute in 0..<250 {
            let (hour, rest) = (minute / 60 + 8, minute % 60)
            let stamp = String(format: "2025-10-01T%02d:%02d:00.000", hour, rest)
            lines.append("{\"entityname\":\"Fremont\",\"entityid\":\"3\",\"opendatetime\":\"\(stamp)\"}")
        }
        lines[180] = "{\"entityname\":\"Fremont\",\"entityid\":\"3\",\"opendatetime\":2025-10-01}"
        let file = try bridget.write("broken.ndjson", lines.joined(separator: "\n") + "\n")
        let result = try await bridget.run(["import", file, "--config", try Self.config(bridget, store: store, batchSize: 50)])
        #expect(result.status == 65)
        #expect(result.stderr.contains("broken.ndjson line 181"), "\(result.stderr)")
        let (count, integrity) = try await DatabaseQueue(path: store).read { db in
            (try Int.fetchOne(db, sql: "SELECT count(*) FROM events"), try String.fetchOne(db, sql: "PRAGMA integrity_check"))
        }
        #expect(count == 150) // three whole batches of 50; the fourth held the broken line
        #expect(integrity == "ok")

        let stdin = try await bridget.run(["import", "-", "--config", try Self.config(bridget, store: store)])
        #expect(stdin.status == 64)
        #expect(stdin.stderr.contains("--format"))
        let missing = try await bridget.run(["import", bridget.home + "/nope.csv", "--config", try Self.config(bridget, store: store)])
        #expect(missing.status == 66)
        let unwritable = try await bridget.run(["export", "--config", try Self.config(bridget, store: store),
                                          "--out", bridget.home + "/no/such/folder/x.csv"])
        #expect(unwritable.status == 73)
        #expect(unwritable.stderr.contains("no/such/folder/x.csv"))
    }

    @Test("a UTF-8 byte-order mark at the start of a CSV, NDJSON or JSON file is skipped")
    func byteOrderMark() async throws {
        let bridget = BridgetProcess()
        let row = #"{"entityname":"Fremont","entityid":"3","opendatetime":"2025-10-01T10:00:00.000","closedatetime":"2025-10-01T10:05:00.000"}"#
        let files = [
            // A spreadsheet's "CSV UTF-8": a mark, then its own column order, unquoted.
            ("rows.csv", "entityid,entityname,opendatetime,closedatetime\r\n3,Fremont,2025-10-01T10:00:00.000,2025-10-01T10:05:00.000\r\n"),
            ("rows.ndjson", row + "\n"),
            ("rows.json", "[" + row + "]\n"),
        ]
        for (name, text) in files {
            let path = bridget.home + "/" + name
            try Data([0xEF, 0xBB, 0xBF] + Array(text.utf8)).write(to: URL(fileURLWithPath: path))
            let store = bridget.home + "/\(name).sqlite"
            let result = try await bridget.run(["import", path, "--config", try Self.config(bridget, store: store), "--summary", "json"])
            #expect(result.status == 0, "\(name): \(result.stderr)")
            guard result.status == 0 else { continue }
            let summary = try decodeJSON(ImportSummary.self, result.stdout)
            #expect(summary.rowsRead == 1 && summary.inserted == 1, "\(name)")
        }
        // Only at the start: a mark inside the rows is still an error.
        let inside = try bridget.write("inside.ndjson", row + "\n\u{FEFF}" + row + "\n")
        let result = try await bridget.run(["import", inside, "--config", try Self.config(bridget, store: bridget.home + "/x.sqlite")])
        #expect(result.status == 65 && result.stderr.contains("line 2"), "\(result.stderr)")
    }

    @Test("a folder or a missing file is no input: exit 66, saying which, whatever its name")
    func noInput() async throws {
        let bridget = BridgetProcess()
        let config = try Self.config(bridget, store: bridget.home + "/store.sqlite")
        for folder in ["rows", "rows.csv"] {
            try FileManager.default.createDirectory(atPath: bridget.home + "/" + folder, withIntermediateDirectories: true)
            for extra in [[], ["--format", "ndjson"]] {
                let result = try await bridget.run(["import", bridget.home + "/" + folder, "--config", config] + extra)
                #expect(result.status == 66, "\(folder) \(extra): \(result.stderr)")
                #expect(result.stderr.contains(folder + " is a folder"), "\(result.stderr)")
            }
        }
        for missing in ["nope", "nope.csv", "nope.txt"] {
            let result = try await bridget.run(["import", bridget.home + "/" + missing, "--config", config])
            #expect(result.status == 66, "\(missing): \(result.stderr)")
            #expect(result.stderr.contains(missing) && result.stderr.contains("No such file or directory"), "\(result.stderr)")
        }
        // A file that exists but whose name says no format is still a usage error.
        let unnamed = try bridget.write("rows.txt", "")
        #expect(try await bridget.run(["import", unnamed, "--config", config]).status == 64)
    }

    @Test("exit 66 is listed with the other exit statuses, in the help and the README")
    func exitStatusListed() async throws {
        let help = try await BridgetProcess().run(["--help"])
        #expect(help.stdout.contains("66 no input"), "\(help.stdout)")
        let readme = try String(contentsOf: repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let sentence = try #require(readme.range(of: "Exit status: 0 ok,").map { String(readme[$0.lowerBound...].prefix(400)) })
        #expect(sentence.contains("66 no input"), "\(sentence)")
    }

    @Test("an import killed mid-file resumes after its last committed batch and ends with the exact rows")
    func killedImportResumes() async throws {
        let bridget = BridgetProcess()
        let original = bridget.home + "/original.sqlite"
        #expect(try await bridget.run(["sync", "--config", try Self.config(bridget, store: original, days: 365), "--quiet"]).status == 0)
        let file = bridget.home + "/year.ndjson"
        #expect(try await bridget.run(["export", "--config", try Self.config(bridget, store: original), "--out", file]).status == 0)

        let store = bridget.home + "/resumed.sqlite"
        let config = try Self.config(bridget, store: store, batchSize: 100)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: BridgetProcess.executable)
        process.arguments = ["import", file, "--config", config, "--quiet"]
        process.environment = ["HOME": bridget.home, "PATH": "/usr/bin:/bin"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Let the import run a little at a time (SIGCONT, then SIGSTOP), looking at its checkpoint while it is
        // stopped, until one is past the first few batches; then kill -9, with no chance to clean up. However fast the
        // import or slow this loop, the import cannot end between the look and the kill. Until its first batch shows,
        // each turn is twice the one before (up to 100 ms: starting a process is slow under a sanitizer); from then
        // on 2 ms, so it stops within a batch or two of the mark.
        var killedAt = 0
        var looks: [Int?] = [] // what each look found, for the failure's message
        var turn = Duration.milliseconds(2)
        kill(process.processIdentifier, SIGSTOP)
        let deadline = Date().addingTimeInterval(TestTime.seconds(60)) // a hang detector
        while Date() < deadline, process.isRunning {
            let rows = FileManager.default.fileExists(atPath: store) ? try? await DatabaseQueue(path: store).read({ db in
                try Int.fetchOne(db, sql: "SELECT json_extract(state, '$.rowsRead') FROM import_checkpoints")
            }) : nil
            looks.append(rows)
            if let rows, rows >= 300 {
                killedAt = rows
                break
            }
            turn = (rows ?? 0) > 0 ? .milliseconds(2) : min(turn * 2, .milliseconds(100))
            kill(process.processIdentifier, SIGCONT)
            try await Task.sleep(for: turn)
            kill(process.processIdentifier, SIGSTOP)
        }
        kill(process.processIdentifier, SIGKILL)
        await process.exited()
        let ended = "exit \(process.terminationStatus)" + (process.terminationReason == .uncaughtSignal ? " (a signal)" : "")
        let seen = looks.suffix(40).map { $0.map(String.init) ?? "-" }.joined(separator: " ")
        #expect(killedAt >= 300, "the import ended before it could be killed: \(ended); its checkpoint at each look: \(seen)")
        let resumed = try await bridget.run(["import", file, "--config", config, "--summary", "json"])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        let summary = try decodeJSON(ImportSummary.self, resumed.stdout)
        #expect(summary.resumedAfterRows >= killedAt)
        let (missing, extra, _) = try Self.differences(original, store)
        #expect(missing == 0 && extra == 0)
        let leftover = try await DatabaseQueue(path: store).read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM import_checkpoints")
        }
        #expect(leftover == 0)
    }
}
