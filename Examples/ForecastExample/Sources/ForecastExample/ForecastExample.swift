import BridgetAnalysis
import BridgetDTOs
import BridgetNetworking
import Foundation

/// A year of sample openings, judged by the shared rule book, kept in memory, learnt from, and one forecast:
/// Bridget's pipeline without its CLI or a store.
@main
struct ForecastExample {
    static func main() async throws {
        // The sample provider: a year of Seattle openings up to 2025-05-31, generated from a seed (the same every run).
        let lastDay = CivilCalendar.daysFromCivil(year: 2025, month: 5, day: 31)
        let provider = SampleProvider(generator: SampleOpeningGenerator(seed: 2025), lastDay: lastDay, days: 365)
        let catalog = BridgeCatalog(bridges: try await provider.fetchBridgeCatalog())
        let clock = provider.clock
        // "Now" is the end of the sample's last day, so the run does not depend on the day it is made.
        let now = clock.openingInstant(for: FloatingTimestamp(wallClockSeconds: Int64(lastDay + 1) * 86_400))

        // Validate each page with the processor, against the provider's catalog and clock; keep the events.
        let history = ArrayHistory(bridges: catalog.bridges)
        let processor = SerialProcessor(history: history, now: { now })
        var (pages, fetched, rejected) = (0, 0, RejectionCounts())
        for try await page in provider.eventPages(since: nil) {
            let outcome = try await processor.validate(page.observations, catalog: catalog, clock: clock)
            await history.append(outcome.events)
            pages += 1
            fetched += page.observations.count
            for rejection in outcome.rejected { rejected.record(rejection.reason) }
        }
        let accepted = await history.count
        let reasons = rejected.byReason.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.value) \($0.key.rawValue)" }
        print("fetched \(fetched) records in \(pages) pages: \(accepted) accepted, \(rejected.total) rejected "
              + "(\(reasons.joined(separator: ", ")))")

        // The models of every bridge, then Fremont's forecast for a Tuesday's evening rush (when the sample, like
        // SDOT, keeps the Ship Canal bridges closed to boats: expect a low chance).
        let models = try await processor.buildOpeningModels()
        guard let fremont = catalog.resolve("Fremont"), let model = models.first(where: { $0.bridgeID == fremont.id }),
              let at = FloatingTimestamp(year: 2025, month: 6, day: 3, hour: 17, minute: 40)
        else { throw ExampleError(message: "no model for Fremont") }
        print("models for \(models.count) bridges, history \(model.firstDay ?? "?") to \(model.lastDay ?? "?")")
        let forecast = OpeningModelBuilder.forecast(model, bridge: fremont, at: at, windowMinutes: 20)
        let percent = String(format: "%.1f%%", forecast.chanceOfOpening * 100)
        print("\(fremont.name) (\(fremont.id)) on \(clock.display(clock.openingInstant(for: at))): "
              + "chance of an opening in the next \(forecast.windowMinutes) minutes \(percent)")
    }
}

/// What went wrong, said plainly.
struct ExampleError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
