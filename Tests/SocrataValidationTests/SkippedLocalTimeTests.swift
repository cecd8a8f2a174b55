import BridgetAnalysis
import BridgetDTOs
import BridgetNetworking
import Foundation
import PropertyBased
import Testing

/// Local readings around Seattle's offset changes, generated: a row is refused as `nonexistent-local-time` exactly
/// when Foundation's own calendar says the reading never shows on a Seattle clock, and a row kept reads back as the
/// very reading it was given (no skipped reading lands on the hour after it). A failure names the seed to replay.
@Suite("Skipped local times, generated")
struct SkippedLocalTimeTests {
    static let validator = SocrataRowValidator(catalog: .seattle, now: Date(timeIntervalSince1970: 1_795_000_000))

    /// Whether a Seattle wall-clock reading exists, by Foundation's calendar (an oracle independent of `LocalClock`).
    static func exists(year: Int, month: Int, day: Int, hour: Int, minute: Int) -> Bool {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "America/Los_Angeles")!
        let asked = DateComponents(year: year, month: month, day: day, hour: hour, minute: minute)
        guard let date = calendar.date(from: asked) else { return false }
        let shown = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: date)
        return (shown.year, shown.month, shown.day, shown.hour, shown.minute) == (year, month, day, hour, minute)
    }

    @Test("a generated reading near a change is kept iff it exists, and a kept one reads back as given")
    func generatedReadings() async {
        // The second Sunday of March and the first of November fall on days 8–14 and 1–7.
        await propertyCheck(count: 400, input: Gen.int(in: 2015...2025), Gen.bool, Gen.int(in: 0...6),
                            Gen.int(in: 0...4), Gen.int(in: 0...59)) { year, spring, dayOffset, hour, minute in
            let (month, day) = spring ? (3, 8 + dayOffset) : (11, 1 + dayOffset)
            let text = String(format: "%04d-%02d-%02dT%02d:%02d:00.000", year, month, day, hour, minute)
            var row = SocrataValidationTests.good
            (row.opendatetime, row.closedatetime, row.minutesopen) = (text, nil, nil)
            let verdict = Self.validator.validate(row)
            if Self.exists(year: year, month: month, day: day, hour: hour, minute: minute) {
                let event = try verdict.get()
                #expect(LocalClock.seattle.reading(for: event.openedAt).description == text, "\(text)")
            } else {
                #expect(verdict == .failure(.nonexistentLocalTime), "\(text)")
            }
        }
    }
}
