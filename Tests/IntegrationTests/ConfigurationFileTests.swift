import Foundation
import Testing

/// Configuration files a hostile user writes or names, through the executable: each is read as meant or stops with
/// exit 78 and a short message naming the file and what is wrong.
@Suite("bridget executable: configuration files")
struct ConfigurationFileTests {
    @Test("a duplicate key shows its line and a few lines around it, not the whole file")
    func duplicateKeyInALargeFile() async throws {
        let padding = String(repeating: "# " + String(repeating: "x", count: 48) + "\n", count: 100_000) // 5 MB
        let yaml = "sync:\n  batch_size: 5\n" + padding + "sync:\n  batch_size: 6\n"
        let bridget = BridgetProcess()
        let path = try bridget.write("bridget.yaml", yaml)
        let result = try await bridget.run(["config", "validate", path])
        #expect(result.status == 78)
        #expect(result.stderr.utf8.count < 2_000, "a \(result.stderr.utf8.count)-byte message")
        #expect(result.stderr.contains("bridget.yaml:100003"), "\(result.stderr.prefix(2_000))")
        #expect(result.stderr.contains("duplicate key 'sync'") && result.stderr.contains("line 1"))
        #expect(result.stderr.contains("100003 | sync:"))
    }

    @Test("a malformed line is shown with its neighbours, each cut short")
    func malformedLineExcerpt() async throws {
        let bridget = BridgetProcess()
        let long = String(repeating: "y", count: 3_000_000)
        let path = try bridget.write("bridget.yaml", "sync:\n  batch_size: 5\nprovider: [unclosed \(long)\n")
        for arguments in [["config", "validate", path], ["--config", path, "stats"]] {
            let result = try await bridget.run(arguments)
            #expect(result.status == 78)
            #expect(result.stderr.contains("malformed YAML"))
            #expect(result.stderr.contains("| provider: [unclosed yyy"), "\(result.stderr.prefix(2_000))")
            #expect(result.stderr.utf8.count < 2_000, "a \(result.stderr.utf8.count)-byte message")
        }
    }

    @Test("400,000 unknown keys: the first 20 and a count of the rest, not a line each")
    func manyUnknownKeys() async throws {
        let bridget = BridgetProcess()
        let yaml = (0..<400_000).map { "key\($0): 1" }.joined(separator: "\n") + "\n"
        let path = try bridget.write("bridget.yaml", yaml)
        let result = try await bridget.run(["config", "validate", path])
        #expect(result.status == 78)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count <= 25, "\(lines.count) lines")
        #expect(result.stderr.contains("bridget.yaml:1: unknown key 'key0'"))
        #expect(result.stderr.contains("bridget.yaml:20: unknown key 'key19'"))
        #expect(!result.stderr.contains("'key20'"))
        #expect(result.stderr.contains("and 399980 more"), "\(result.stderr)")
        #expect(result.stderr.utf8.count < 4_000, "a \(result.stderr.utf8.count)-byte message")
    }

    @Test("a file holding only '---' means the defaults, like an empty file", arguments: [
        "", "---\n", "---", "--- # nothing here\n", "# only a comment\n---\n...\n",
    ])
    func emptyDocuments(_ yaml: String) async throws {
        let bridget = BridgetProcess()
        let path = try bridget.write("bridget.yaml", yaml)
        let result = try await bridget.run(["config", "validate", path])
        #expect(result.status == 0, "\(result.stderr)")
        let show = try await bridget.run(["config", "show", "--config", path, "--format", "json"])
        #expect(show.status == 0 && show.stdout.contains("\"value\" : \"42\""), "\(show.stderr)")
    }

    @Test("a file that is not UTF-8 names the file, the byte and its line")
    func notUTF8() async throws {
        let bridget = BridgetProcess()
        let path = bridget.home + "/latin1.yaml"
        try Data("sync:\n  batch_size: 5 # caf".utf8 + [0xE9] + Data("\n".utf8)).write(to: URL(fileURLWithPath: path))
        for environment in [[:], ["BRIDGET_CONFIG": path]] {
            let result = try await bridget.run(environment.isEmpty ? ["config", "validate", path] : ["config", "validate"],
                                         environment: environment)
            #expect(result.status == 78)
            #expect(result.stderr.contains(path) && result.stderr.contains("not UTF-8"), "\(result.stderr)")
            #expect(result.stderr.contains("0xE9") && result.stderr.contains("line 2"), "\(result.stderr)")
        }
    }

    @Test("a configuration path that cannot be read names the file and the reason")
    func unreadablePaths() async throws {
        let bridget = BridgetProcess()
        let folder = bridget.home + "/a-folder"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var cases = [(folder, "is a folder"), (bridget.home + "/missing.yaml", "No such file or directory")]
        if getuid() != 0 { // root reads a file whatever its mode
            let locked = try bridget.write("locked.yaml", "sync:\n  batch_size: 5\n")
            chmod(locked, 0)
            cases.append((locked, "Permission denied"))
        }
        for (path, reason) in cases {
            for (arguments, environment) in [(["config", "validate"], ["BRIDGET_CONFIG": path]),
                                             (["stats"], ["BRIDGET_CONFIG": path]),
                                             (["config", "validate", path], [:])] {
                let result = try await bridget.run(arguments, environment: environment)
                #expect(result.status == 78, "\(arguments) \(path)")
                #expect(result.stderr.contains(path) && result.stderr.contains(reason), "\(result.stderr)")
            }
        }
        // The user's file in the XDG folder is a folder: said so, not silently skipped.
        try FileManager.default.createDirectory(atPath: bridget.home + "/config/bridget/bridget.yaml",
                                                withIntermediateDirectories: true)
        let xdg = try await bridget.run(["config", "validate"])
        #expect(xdg.status == 78 && xdg.stderr.contains("config/bridget/bridget.yaml") && xdg.stderr.contains("is a folder"),
                "\(xdg.stderr)")
    }
}
