import BridgetTestSupport
import Foundation
import GRDB
import SocrataFixtureServer
import Testing

/// The result of running the `bridget` executable.
struct ProcessResult {
    let status: Int32
    let stdout: String
    let stderr: String
    /// From the process's start to its exit (not the wait for a turn to run it: `ProcessTurns`).
    let seconds: Double
}

/// Runs the built `bridget` executable in its own temporary home, as a user would.
struct BridgetProcess {
    /// A private folder for this test: HOME, XDG folders and the store live here.
    let home: String

    init() {
        home = NSTemporaryDirectory() + "bridget-it-" + UUID().uuidString
        try? FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
    }

    /// The executable next to the test bundle (SwiftPM builds it because this target depends on it).
    static let executable: String = {
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("bridget"),
            Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("bridget"),
            Bundle.main.bundleURL.appendingPathComponent("bridget"),
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }?.path ?? "bridget-not-found"
    }()

    /// Writes a file in the home folder and returns its path.
    func write(_ name: String, _ text: String) throws -> String {
        let path = home + "/" + name
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// Runs `bridget` with arguments; the environment holds only what a clean shell would, plus `environment`.
    /// `executable` runs another program the same way (e.g. `script`, to give bridget a terminal).
    func run(_ arguments: [String], environment: [String: String] = [:], executable: String? = nil) async throws
        -> ProcessResult
    {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable ?? Self.executable)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: home)
        var env = ["HOME": home, "PATH": "/usr/bin:/bin", "XDG_DATA_HOME": home + "/data",
                   "XDG_CONFIG_HOME": home + "/config"]
        env.merge(environment) { $1 }
        process.environment = env
        let outPath = home + "/.stdout-\(UUID().uuidString)"
        let errPath = home + "/.stderr-\(UUID().uuidString)"
        guard FileManager.default.createFile(atPath: outPath, contents: nil),
              FileManager.default.createFile(atPath: errPath, contents: nil)
        else { throw CocoaError(.fileWriteUnknown) }
        let out = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
        let err = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        let seconds = try await ProcessTurns.shared.run {
            let started = ContinuousClock.now
            try await process.runToExit()
            let elapsed = ContinuousClock.now - started
            return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        }
        try out.close()
        try err.close()
        return ProcessResult(
            status: process.terminationStatus,
            stdout: (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? "",
            stderr: (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "", seconds: seconds)
    }

    /// A config over a fixed range of sample data, stored in this home's `store.sqlite`.
    func sampleConfig(days: Int = 60, endDate: String = "2026-06-30", invalidRate: Double = 0.01,
                      mergeGapMinutes: Double = 2) throws -> String {
        try write("bridget.yaml", """
            \(TestConfig.sampleProvider(days: days, endDate: endDate, invalidRate: invalidRate))
            store:
              path: \(home)/store.sqlite
            analysis:
              merge_gap_minutes: \(mergeGapMinutes)
            """)
    }

    var storePath: String { home + "/store.sqlite" }

    /// A config syncing from a Socrata-shaped server at `url` into this home's store: pages of 1,000, a batch a page
    /// (so a sync commits early and often), a timeout of ten minutes (a hang the test injects is waited on); `extra`
    /// adds lines (`refresh: …`).
    func liveConfig(_ name: String, url: String, extra: String = "") throws -> String {
        try write(name, """
            provider:
              kind: live
              live: {base_url: "\(url)", page_size: 1000, timeout_seconds: 600, state_url: null}
            cache: {path: \(home)/cache}
            store: {path: \(storePath)}
            sync: {batch_size: 1000}
            \(extra)
            """)
    }

    /// The events in this home's store now, read as another process would (0 before it exists).
    func storedEvents() -> Int {
        var readOnly = Configuration()
        readOnly.readonly = true
        guard FileManager.default.fileExists(atPath: storePath),
              let queue = try? DatabaseQueue(path: storePath, configuration: readOnly)
        else { return 0 }
        return (try? queue.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM events") ?? 0 }) ?? 0
    }

    /// Waits (two minutes at most: a hang detector) until `fixture` has handed out every fault queued (the last one
    /// a hang the sync now waits on) and a batch is committed; returns the rows stored then.
    func waitForHangingSync(_ fixture: SocrataFixtureServer) async throws -> Int {
        let until = ContinuousClock.now + TestTime.duration(.seconds(120))
        while ContinuousClock.now < until, fixture.pendingFaults > 0 || storedEvents() == 0 {
            try await Task.sleep(for: .milliseconds(50))
        }
        let committed = storedEvents()
        #expect(committed > 0 && fixture.pendingFaults == 0, "no batch was committed, or the hanging page was not asked for")
        return committed
    }
}

extension SocrataFixtureServer {
    /// Answers the next five requests and hangs the sixth for ten minutes: a sync that starts after this always waits
    /// inside itself, with batches committed, however slow or loaded the machine.
    func hangMidSync() { inject(Array(repeating: .pass, count: 5) + [.hang(600)]) }
}

/// Decodes a command's JSON output.
func decodeJSON<T: Decodable>(_ type: T.Type, _ text: String) throws -> T {
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .iso8601
    return try decoder.decode(type, from: Data(text.utf8))
}
