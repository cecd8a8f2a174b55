import Foundation
import Testing

/// A second city through the built executable: the NDW provider on the real snapshot of 2023-11-22, from the file
/// `Config/examples/ndw-snapshot.yaml` names and from a server on 127.0.0.1 serving the same gzip file.
@Suite("bridget executable with the NDW provider")
struct NDWExecutableTests {
    static let snapshot = repositoryRoot.appendingPathComponent("Config/examples/data/ndw-brugopeningen-2023-11-22.xml.gz")

    struct Event: Decodable {
        let bridgeID: String
        let status: String
        let recordID: String?
        let openLocal: String
    }

    struct Bridge: Decodable {
        struct Info: Decodable {
            let id: String
            let name: String
        }

        let bridge: Info
        let openings: Int
        let rows: Int
    }

    /// The snapshot's counts (taken independently with Python by NDWSnapshotTests).
    func expectSnapshotStored(_ bridget: BridgetProcess, _ config: String) async throws {
        let bridges = try await bridget.run(["bridges", "--config", config, "--format", "json"])
        #expect(bridges.status == 0, "\(bridges.stderr)")
        let list = try JSONDecoder().decode([Bridge].self, from: Data(bridges.stdout.utf8))
        #expect(list.count == 50)
        #expect(list.allSatisfy { $0.bridge.id.hasPrefix("NL") && $0.bridge.name.contains("° N") })
        #expect(list.map(\.rows).reduce(0, +) == 978)
        // Openings as stats counts them (below): the 7 under way, not the 971 announced.
        #expect(list.map(\.openings).reduce(0, +) == 7)
        let events = try await bridget.run(["events", "--config", config, "--format", "json", "--limit", "0"])
        #expect(events.status == 0, "\(events.stderr)")
        let stored = try JSONDecoder().decode([Event].self, from: Data(events.stdout.utf8))
        #expect(stored.count == 978)
        #expect(stored.filter { $0.status == "observed" }.count == 7)
        #expect(stored.filter { $0.status == "planned" }.count == 971)
        #expect(Set(stored.compactMap(\.recordID)).count == 978)
        // Local readings in Amsterdam's time: the record opening 2023-11-23T00:01Z reads 01:01 there.
        #expect(stored.contains { $0.openLocal == "2023-11-23T01:01:00" })
        let stats = try await bridget.run(["stats", "--config", config, "--format", "json"])
        #expect(stats.status == 0, "\(stats.stderr)")
        // Statistics describe what happened: the 7 openings under way, not the 971 announced.
        #expect(stats.stdout.contains("\"totalOpenings\" : 7"), "\(stats.stdout.prefix(400))")
    }

    @Test("the snapshot from a file: sync stores every record with its status, again adds nothing; bridges, events, stats")
    func snapshotFromFile() async throws {
        let bridget = BridgetProcess()
        let config = repositoryRoot.appendingPathComponent("Config/examples/ndw-snapshot.yaml").path
        let first = try await bridget.run(["sync", "--config", config, "--format", "json"])
        #expect(first.status == 0, "\(first.stderr)")
        let report = try decodeJSON(SyncSummary.self, first.stdout)
        #expect(report.fetched == 978 && report.inserted == 978 && report.rejected == 0)
        let again = try await bridget.run(["sync", "--config", config, "--format", "json"])
        let second = try decodeJSON(SyncSummary.self, again.stdout)
        #expect(second.inserted == 0 && second.updated == 0 && second.unchanged == 978)
        try await expectSnapshotStored(bridget, config)
        let table = try await bridget.run(["events", "--config", config, "--limit", "3"])
        #expect(table.stdout.contains("CET"), "\(table.stdout)") // times for people in the source's zone
    }

    @Test("the snapshot from a server on 127.0.0.1 (the live path: retries, cache)")
    func snapshotFromServer() async throws {
        // The server in a process of its own (as LiveExecutableTests runs it): in this process it shared the
        // cooperative threads with the suite's busiest tests and once answered too late.
        let (server, address) = try LiveExecutableTests().startServer([
            "--rows", "1", "--faults", "503", "--serve-file", "/brugopeningen.xml.gz=\(Self.snapshot.path)",
        ]) // the first attempt fails: retried
        defer { if server.isRunning { server.terminate() } }
        let url = try #require(URL(string: address))
        let bridget = BridgetProcess()
        let config = try bridget.write("ndw.yaml", """
            provider:
              kind: ndw
              ndw:
                source: \(url.absoluteString)/brugopeningen.xml.gz
                timeout_seconds: 10
            store:
              path: \(bridget.home)/ndw.sqlite
            cache:
              path: \(bridget.home)/cache
            """)
        let first = try await bridget.run(["sync", "--config", config, "--format", "json"])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(try decodeJSON(SyncSummary.self, first.stdout).inserted == 978)
        let again = try await bridget.run(["sync", "--config", config, "--format", "json"])
        #expect(try decodeJSON(SyncSummary.self, again.stdout).unchanged == 978)
        #expect(try FileManager.default.contentsOfDirectory(atPath: bridget.home + "/cache").count >= 2) // body, meta
        try await expectSnapshotStored(bridget, config)
    }

    @Test("a file that is not a gzip DATEX II feed is a clear error")
    func notAFeed() async throws {
        let bridget = BridgetProcess()
        let garbage = try bridget.write("feed.xml.gz", "not gzip, not xml")
        let config = try bridget.write("bad.yaml", """
            provider:
              kind: ndw
              ndw:
                source: \(garbage)
            store:
              path: \(bridget.home)/bad.sqlite
            """)
        let result = try await bridget.run(["sync", "--config", config])
        #expect(result.status == 65)
        #expect(result.stderr.contains("feed.xml.gz"), "\(result.stderr)")

        // A feed file over the limit is refused before it is read; a folder or a missing file is no input.
        let tooSmall = try bridget.write("small.yaml", "provider:\n  kind: ndw\n  ndw:\n    source: \(Self.snapshot.path)\n"
            + "    max_bytes: 10000\nstore:\n  path: \(bridget.home)/small.sqlite\n")
        let over = try await bridget.run(["sync", "--config", tooSmall])
        #expect(over.status == 65 && over.stderr.contains("over the limit of 10000"), "\(over.stderr)")
        let folder = try bridget.write("folder.yaml", "provider:\n  kind: ndw\n  ndw:\n    source: \(bridget.home)\n"
            + "store:\n  path: \(bridget.home)/folder.sqlite\n")
        let notAFile = try await bridget.run(["sync", "--config", folder])
        #expect(notAFile.status == 66 && notAFile.stderr.contains("not a regular file"), "\(notAFile.stderr)")
    }
}
