import BridgetAnalysis
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
        let (accepted, rejected, chance) = fremontForecast()
        #expect(accepted == 28)
        #expect(rejected == [.unknownBridgeID])
        let forecast = try #require(chance)
        #expect(forecast > 0.5 && forecast < 1)

        #expect(ReadmeCheck.mismatch(testFile: #filePath, function: "fremontForecast") == nil)
    }
}

// README.md's example, as it is there.
func fremontForecast() -> (accepted: Int, rejected: [RejectionReason], chance: Double?) {
    // A Fremont opening at 17:40 for six minutes on each day of June 2025 up to the 28th, in Seattle wall-clock time
    // (as the Socrata dataset gives it), and one record naming bridge 99.
    func local(day: Int, minute: Int) -> ObservedField<TimeReading> {
        let wall = Int64(CivilCalendar.daysFromCivil(year: 2025, month: 6, day: day)) * 86_400 + Int64(minute) * 60
        return .value(.local(FloatingTimestamp(wallClockSeconds: wall)))
    }
    var observations = (1...28).map { day in
        OpeningObservation(bridgeID: "3", bridgeName: "Fremont", opened: local(day: day, minute: 17 * 60 + 40),
                           closed: local(day: day, minute: 17 * 60 + 46), durationMinutes: .value(6))
    }
    observations.append(OpeningObservation(bridgeID: "99", bridgeName: "Nowhere", opened: local(day: 2, minute: 600)))

    // The shared rule book: the catalog the records name, the source's clock, and now (openings may not be later).
    let validator = ObservationValidator(catalog: .seattle, clock: .seattle, now: Date(timeIntervalSince1970: 1_780_000_000))
    let outcome = validator.validate(observations)

    // Models from the accepted events (rows of one bridge less than two minutes apart are one opening).
    let models = OpeningModelBuilder().buildAll(bridges: BridgeCatalog.seattle.bridges, events: outcome.events,
                                                mergeGap: 120, builtAt: Date(timeIntervalSince1970: 1_780_000_000))
    let forecast = zip(models, BridgeCatalog.seattle.bridges).first { $0.1.id == "3" }.map { model, fremont in
        // Monday 2025-06-30 at 17:30: the chance of an opening in the next 20 minutes.
        let reading = FloatingTimestamp(wallClockSeconds: Int64(CivilCalendar.daysFromCivil(year: 2025, month: 6, day: 30))
            * 86_400 + (17 * 60 + 30) * 60)
        return OpeningModelBuilder.forecast(model, bridge: fremont, at: reading, windowMinutes: 20)
    }
    return (outcome.events.count, outcome.rejected.map(\.reason), forecast?.chanceOfOpening)
}
