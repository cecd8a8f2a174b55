import Foundation
import Testing

/// README's "Using bridget" block, run line by line as written, on the embedded default configuration in a fresh
/// home: an example that fails for a reader (a route never saved, a flag renamed) fails here.
@Suite("README: Using bridget")
struct ReadmeCommandTests {
    /// The lines left out, by their start, and why: what a test cannot give them.
    static let notRun: [(start: String, why: String)] = [
        ("swift ", "builds bridget: the toolchain, minutes"),
        ("bridget --config Config/examples/live.yaml", "reads data.seattle.gov: the internet"),
        ("bridget events --follow", "runs until Ctrl-C (CommandLineTests.followLikeTail runs it)"),
        ("bridget serve", "runs until stopped (ServeTests runs it)"),
    ]

    /// The block's command lines, in order.
    static func commands() throws -> [String] {
        let readme = try String(contentsOf: repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let block = try #require(readme.components(separatedBy: "## Using bridget\n\n```sh\n").dropFirst().first?
            .components(separatedBy: "\n```").first)
        return block.split(separator: "\n").map(String.init)
    }

    @Test("every line of the block runs as written, exit 0 and no error, in the order given")
    func usingBridget() async throws {
        let lines = try Self.commands()
        for skipped in Self.notRun {
            #expect(lines.contains { $0.hasPrefix(skipped.start) }, "'\(skipped.start)' is no longer in the README")
        }
        let run = lines.filter { line in !Self.notRun.contains { line.hasPrefix($0.start) } }
        #expect(run.count > 20 && run.allSatisfy { $0.hasPrefix("bridget ") }, "\(run)")
        #expect(run.contains { $0.hasPrefix("bridget route compare commute scenic ") })

        let bridget = BridgetProcess()
        // The example configuration the block names, where it names it (relative to the current folder).
        let examples = bridget.home + "/Config/examples"
        try FileManager.default.createDirectory(atPath: examples, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: repositoryRoot.appendingPathComponent("Config/examples/offline.yaml").path,
            toPath: examples + "/offline.yaml")
        let folder = URL(fileURLWithPath: BridgetProcess.executable).deletingLastPathComponent().path
        for line in run {
            // bash, so a pipeline fails when bridget does (`| wc -l` would hide it) and `;` and `>` work as written.
            let result = try await bridget.run(["-c", "set -eo pipefail; " + line],
                                               environment: ["PATH": folder + ":/usr/bin:/bin"],
                                               executable: "/bin/bash")
            #expect(result.status == 0, "\(line)\nexit \(result.status)\n\(result.stderr)")
            #expect(!result.stderr.contains("error:"), "\(line)\n\(result.stderr)")
        }
    }
}
