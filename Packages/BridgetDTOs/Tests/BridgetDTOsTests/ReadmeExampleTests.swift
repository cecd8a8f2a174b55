import BridgetDTOs
import Foundation
import Testing

/// The example of the package's README, compiled and run: the function below is the README's first Swift block
/// (after its imports), and the test fails when the two differ.
@Suite("README")
struct ReadmeExampleTests {
    @Test("the README's example compiles, runs, and matches its copy in the README")
    func example() throws {
        let (bridge, instant, display, autumnInstants) = fremontAtRushHour()
        #expect(bridge == "Fremont Bridge")
        #expect(instant == Date(timeIntervalSince1970: 1_748_997_600))
        #expect(display == "2025-06-03 17:40 PDT")
        #expect(autumnInstants == 2)

        let readme = try String(contentsOfFile: Self.packageFolder + "/README.md", encoding: .utf8)
        let source = try String(contentsOfFile: #filePath, encoding: .utf8)
        let block = try #require(readme.components(separatedBy: "```swift\n").dropFirst().first?
            .components(separatedBy: "```").first)
        let code = block.components(separatedBy: "\n\n").dropFirst().joined(separator: "\n\n") // after the imports
        let same = source.contains("\n" + code)
        #expect(same, "README.md's example and fremontAtRushHour below differ: change both")
    }

    /// Packages/BridgetDTOs, from this file's path.
    static let packageFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path
}

// README.md's example, as it is there.
func fremontAtRushHour() -> (bridge: String?, instant: Date?, display: String?, autumnInstants: Int) {
    // By id, name or display name, ignoring case.
    let fremont = BridgeCatalog.seattle.resolve("fremont")

    // A reading as the Socrata dataset gives it: no zone; it is read in the source's (Seattle's).
    let clock = LocalClock.seattle
    let reading = FloatingTimestamp("2025-06-03T17:40:00.000")
    let instant = reading.map { clock.openingInstant(for: $0) } // 2025-06-04 00:40 UTC
    let display = instant.map { clock.display($0) } // "2025-06-03 17:40 PDT"

    // 01:30 on the night the clocks go back happens twice: the clock knows both instants.
    let autumn = FloatingTimestamp(year: 2025, month: 11, day: 2, hour: 1, minute: 30).map { clock.instants(for: $0) }
    return (fremont?.displayName, instant, display, autumn?.count ?? 0)
}
