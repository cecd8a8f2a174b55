import BridgetDTOs
import BridgetReadmeCheck
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

        #expect(ReadmeCheck.mismatch(testFile: #filePath, function: "fremontAtRushHour") == nil)
    }

    @Test("the README check fails on an example that is not in the test, and on a README without one")
    func checkCanFail() {
        let readme = "# X\n\n```swift\nimport X\n\nlet answer = 42\n```\n"
        #expect(ReadmeCheck.mismatch(readme: readme, source: "// nothing\n", function: "f") != nil)
        #expect(ReadmeCheck.mismatch(readme: readme, source: "func f() {\nlet answer = 42\n}", function: "f") == nil)
        #expect(ReadmeCheck.mismatch(readme: "# no code", source: "", function: "f") != nil)
    }
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
