import BridgetDTOs
import BridgetNetworking
import BridgetReadmeCheck
import Foundation
import Testing

/// The example of the package's README, compiled and run: the function below is the README's first Swift block
/// (after its imports), and the test fails when the two differ.
@Suite("README")
struct ReadmeExampleTests {
    @Test("the README's example compiles, runs, and matches its copy in the README")
    func example() async throws {
        let (bridges, pageIndices, observations) = try await sampleWeek()
        #expect(bridges == BridgeCatalog.seattle.bridges.count)
        #expect(pageIndices.count > 1)
        #expect(pageIndices == Array(0..<pageIndices.count))
        #expect(observations > 100)

        #expect(ReadmeCheck.mismatch(testFile: #filePath, function: "sampleWeek") == nil)
    }
}

// README.md's example, as it is there.
func sampleWeek() async throws -> (bridges: Int, pageIndices: [Int], observations: Int) {
    // Seven Seattle local days ending 2025-06-07, generated from seed 42: the same seed gives the same rows.
    let lastDay = CivilCalendar.daysFromCivil(year: 2025, month: 6, day: 7)
    let provider = SampleProvider(generator: SampleOpeningGenerator(seed: 42), lastDay: lastDay, days: 7, pageSize: 100)
    let bridges = try await provider.fetchBridgeCatalog() // what the observations' bridge ids refer to

    var pageIndices: [Int] = []
    var observations = 0
    // Pull-based: a page is generated when the loop asks for it; cancelling the task ends the loop.
    for try await page in provider.eventPages(since: nil) {
        pageIndices.append(page.index)
        observations += page.observations.count // unvalidated: BridgetAnalysis's ObservationValidator judges them
    }
    return (bridges.count, pageIndices, observations)
}
