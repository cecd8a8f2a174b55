import BridgetDTOs
import BridgetTestSupport
import Foundation
import Testing

/// The change log of bulk writes, through the built `bridget`: an import of older openings logs a summary a batch,
/// openings of the last hours an entry each, and the stream, `events --follow` and the JSON page say both.
@Suite("Bulk writes in the change log")
struct BulkChangesTests {
    /// A Socrata row (NDJSON) of `bridge` opening at the local wall time `local` (`YYYY-MM-DDTHH:MM:SS`) for 4 min.
    static func row(_ bridge: (id: String, name: String), _ local: String) -> String {
        let close = FloatingTimestamp(local).map { FloatingTimestamp(wallClockSeconds: $0.wallClockSeconds + 240).localText }
        return #"{"entitytype":"Bridge","entityname":"\#(bridge.name)","entityid":"\#(bridge.id)","#
            + #""opendatetime":"\#(local).000","closedatetime":"\#(close ?? local).000","minutesopen":"4"}"#
    }

    static let bridges = [(id: "3", name: "Fremont"), (id: "2", name: "Ballard"), (id: "4", name: "Montlake")]

    @Test("an import of 6,000 older openings logs one bulk entry a batch; three openings of the last hours one entry each; the stream, events --follow and a poller get bulk events that say what to read again")
    func bulkImport() async throws {
        let bridget = BridgetProcess()
        let config = try bridget.write("bulk.yaml", """
            store:
              path: \(bridget.storePath)
            import:
              batch_size: 2500
            stream:
              poll_ms: 50
              heartbeat_seconds: 1
            """)
        // 6,000 openings of 2024, every two hours at each of three bridges: three batches. At odd hours, so none
        // falls in the hour the clocks skip on 2024-03-10 (such a row is rejected as nonexistent-local-time).
        let start = try #require(FloatingTimestamp("2024-01-01T01:00:00")).wallClockSeconds
        let old = (0..<6_000).map { index in
            Self.row(Self.bridges[index % 3], FloatingTimestamp(wallClockSeconds: start + Int64(index / 3) * 7_200).localText)
        }
        let oldFile = try bridget.write("old.ndjson", old.joined(separator: "\n") + "\n")
        // Three openings of the last hours (local wall times in Seattle).
        let now = Date()
        let recent = (1...3).map { hours in
            Self.row(Self.bridges[0], LocalClock.seattle.reading(for: now.addingTimeInterval(Double(-hours) * 3_600)).localText)
        }
        let recentFile = try bridget.write("recent.ndjson", recent.joined(separator: "\n") + "\n")

        let server = try await ServeTests.Server(bridget, config: config)
        defer { server.terminate() }
        let stream = try StreamClient(port: try #require(server.base.port), lastEventID: "0")
        defer { stream.hangUp() }
        // A client of Ballard's only: the summaries count Ballard, Fremont's openings do not.
        let ballardStream = try StreamClient(port: try #require(server.base.port), path: "/v1/stream?bridge=2",
                                             lastEventID: "0")
        defer { ballardStream.hangUp() }
        // Two followers: NDJSON, and the table a person reads.
        var followers: [(process: Process, out: String, err: String)] = []
        for format in ["json", "table"] {
            let follow = Process()
            follow.executableURL = URL(fileURLWithPath: BridgetProcess.executable)
            follow.arguments = ["events", "--config", config, "--follow", "--format", format]
            follow.environment = ["HOME": bridget.home, "PATH": "/usr/bin:/bin"]
            let out = bridget.home + "/follow-\(format).out", err = bridget.home + "/follow-\(format).err"
            _ = FileManager.default.createFile(atPath: out, contents: nil)
            _ = FileManager.default.createFile(atPath: err, contents: nil)
            follow.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: out))
            follow.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: err))
            try follow.run()
            followers.append((follow, out, err))
        }
        defer { for follower in followers where follower.process.isRunning { follower.process.terminate() } }
        for follower in followers {
            for _ in 0..<2_400 { // two minutes: a hang detector
                if ((try? String(contentsOfFile: follower.err, encoding: .utf8)) ?? "").contains("following the changes") { break }
                try await Task.sleep(for: .milliseconds(50))
            }
        }
        let imported = try await bridget.run(["import", oldFile, "--config", config])
        #expect(imported.status == 0, "\(imported.stderr)")
        let fresh = try await bridget.run(["import", recentFile, "--config", config])
        #expect(fresh.status == 0, "\(fresh.stderr)")
        #expect(bridget.storedEvents() == 6_003)

        // The log: three summaries (one a batch), then the three recent openings one by one.
        let page = try await server.get("/v1/stream?after=0&limit=1000")
        #expect(page.0 == 200, "\(page.2)")
        struct Page: Decodable { let changes: [ChangeLogEntryDTO]; let next: Int64 }
        let logged = try decodeJSON(Page.self, page.2).changes
        #expect(logged.map(\.kindName) == ["bulk", "bulk", "bulk", "new", "new", "new"], "\(logged.map(\.kindName))")
        let summaries = logged.compactMap { if case .bulk(let summary) = $0 { summary } else { nil } }
        // Batches of about 2,500 (a batch is never cut next to one of Seattle's offset changes).
        #expect(summaries.count == 3 && summaries.map(\.total).reduce(0, +) == 6_000
                && summaries.allSatisfy { $0.total > 100 }, "\(summaries.map(\.total))")
        #expect(summaries.allSatisfy { $0.counts.keys.sorted { $0.rawValue < $1.rawValue } == [.new] })
        #expect(summaries.allSatisfy { $0.bridgeIDs == ["2", "3", "4"] })
        #expect(summaries.map(\.historyVersion) == summaries.map(\.historyVersion).sorted())
        #expect(logged.compactMap(\.opening).allSatisfy { $0.bridgeID == "3" && now.timeIntervalSince($0.openedAt) < 4 * 3_600 })

        // The stream: `bulk` events, then `change` events, numbered as the log.
        let events = await stream.next(6)
        #expect(events.map(\.event) == ["bulk", "bulk", "bulk", "change", "change", "change"])
        #expect(events.map(\.id) == logged.map { "\($0.sequence)" })
        let streamed = try events.map { try decodeJSON(ChangeLogEntryDTO.self, $0.data) }
        #expect(streamed.map(\.sequence) == logged.map(\.sequence) && streamed.map(\.kindName) == logged.map(\.kindName))
        // A reader of one bridge gets the summaries that count it: none for the First Avenue South bridge (1), the
        // summaries and not Fremont's openings for Ballard (2).
        let first1 = try await server.get("/v1/stream?after=0&limit=1000&bridge=1")
        #expect(try decodeJSON(Page.self, first1.2).changes.isEmpty, "\(first1.2)")
        let ballard = try await server.get("/v1/stream?after=0&limit=1000&bridge=2")
        #expect(try decodeJSON(Page.self, ballard.2).changes.map(\.kindName) == ["bulk", "bulk", "bulk"])

        // events --follow: the same six, as NDJSON.
        var followed: [ChangeLogEntryDTO] = []
        for _ in 0..<2_400 where followed.count < 6 { // two minutes: a hang detector
            let text = (try? String(contentsOfFile: followers[0].out, encoding: .utf8)) ?? ""
            followed = text.split(separator: "\n").compactMap { try? decodeJSON(ChangeLogEntryDTO.self, String($0)) }
            if followed.count < 6 { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(followed.map(\.sequence) == logged.map(\.sequence))

        // Acting on them: the openings they name, read again, are the ones the import wrote.
        let first = try #require(summaries.first), last = try #require(summaries.last)
        let since = String(LocalClock.seattle.reading(for: first.openedFrom).localText.prefix(10))
        let until = String(LocalClock.seattle.reading(for: last.openedThrough.addingTimeInterval(86_400)).localText.prefix(10))
        let reread = try await bridget.run(["events", "--config", config, "--since", since, "--until", until,
                                            "--format", "csv"])
        #expect(reread.status == 0, "\(reread.stderr)")
        let summarized: Int = summaries.reduce(0) { $0 + $1.total }
        #expect(reread.stdout.split(separator: "\n").count - 1 == summarized)

        // The table a person reads: a line a summary that counts it and says how to read it again.
        var lines: [Substring] = []
        for _ in 0..<2_400 where lines.count < 6 { // two minutes: a hang detector
            lines = ((try? String(contentsOfFile: followers[1].out, encoding: .utf8)) ?? "").split(separator: "\n")
                .filter { $0.hasPrefix("#") }
            if lines.count < 6 { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(lines.count == 6)
        // Each bridge by the one name every command uses.
        let firstLine = "bulk       \(summaries[0].total) older openings (new \(summaries[0].total)) of Ballard, "
            + "Fremont, Montlake"
        #expect(lines.first?.contains(firstLine) == true, "\(lines.first ?? "")")
        #expect(lines.first?.contains("read them again: bridget events --since 2024-01-01 --until 2024-") == true)
        #expect(lines.last?.contains("new") == true && lines.last?.contains("Fremont") == true)

        // Ballard's stream: the three summaries, then, skipping Fremont's openings, Ballard's own next opening.
        let ballardRow = Self.row(Self.bridges[1], LocalClock.seattle.reading(for: now.addingTimeInterval(-1_800)).localText)
        let ballardFile = try bridget.write("ballard.ndjson", ballardRow + "\n")
        #expect(try await bridget.run(["import", ballardFile, "--config", config]).status == 0)
        let ballardEvents = await ballardStream.next(4)
        #expect(ballardEvents.map(\.event) == ["bulk", "bulk", "bulk", "change"])
        #expect(ballardEvents.prefix(3).map(\.id) == summaries.map { "\($0.sequence)" })
        let ballardChange = try decodeJSON(ChangeLogEntryDTO.self, try #require(ballardEvents.last).data)
        #expect(ballardChange.bridgeIDs == ["2"] && ballardChange.sequence == logged.last.map { $0.sequence + 1 })
    }
}
