import BridgetAnswers
import BridgetContext
import BridgetCore
import BridgetDTOs
import Foundation
import Testing

/// A range of departures without a date means its next occurrence; a weekday's name works as a date; the best is the
/// least delay, ties being the same to a hundredth of a minute.
@Suite("the next commute")
struct NextCommuteTests {
    /// Tuesday 2026-11-24 17:03 PST.
    static let now = Date(timeIntervalSince1970: 1_795_568_400 + 180)

    func answers() async throws -> (RouteAnswers, String) {
        let folder = NSTemporaryDirectory() + "bridget-commute-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try "store: {path: \(folder)/store.sqlite}\nroutes: {path: \(folder)/routes.yaml}\n"
            .write(toFile: folder + "/bridget.yaml", atomically: true, encoding: .utf8)
        let context = try AppContext.load(configPath: folder + "/bridget.yaml", environment: [:], now: { Self.now },
                                          notes: { _ in })
        return (RouteAnswers(context: context, store: try await context.assembly.makeStore()), folder)
    }

    func departures(_ from: String, _ to: String, date: String? = nil, step: Int = 10) async throws -> String {
        let (answers, folder) = try await answers()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (day, times) = try answers.departures(between: (from, to), date: date, stepMinutes: step)
        return "\(day) \(times.0.localText.dropFirst(11).prefix(5))–\(times.1.localText.dropFirst(11).prefix(5))"
    }

    @Test("a morning range at 17:03 is tomorrow's; an evening range under way starts at the next departure")
    func nextOccurrence() async throws {
        #expect(try await departures("7:00", "9:30") == "2026-11-25 07:00–09:30")
        #expect(try await departures("16:00", "18:00") == "2026-11-24 17:10–18:00")
        #expect(try await departures("16:00", "18:00", step: 1) == "2026-11-24 17:03–18:00")
        #expect(try await departures("17:30", "19:00") == "2026-11-24 17:30–19:00")
        #expect(try await departures("6:00", "17:00") == "2026-11-25 06:00–17:00")
    }

    @Test("a date is that day's whole range; a weekday's name is the next such day, today included")
    func dates() async throws {
        #expect(try await departures("16:00", "18:00", date: "tue") == "2026-11-24 16:00–18:00")
        #expect(try await departures("7:00", "9:00", date: "mon") == "2026-11-30 07:00–09:00")
        #expect(try await departures("7:00", "9:00", date: "tomorrow") == "2026-11-25 07:00–09:00")
        #expect(try await departures("7:00", "9:00", date: "2026-12-01") == "2026-12-01 07:00–09:00")
        await #expect(throws: BridgetError.self) { try await departures("7:00", "9:00", date: "someday") }
    }

    @Test("a day in words: its weekday, and today or tomorrow when it is")
    func dayWords() throws {
        let tuesday = try #require(LocalDay("2026-11-24"))
        #expect(tuesday.words(from: tuesday) == "Tuesday 2026-11-24 (today)")
        #expect(try #require(LocalDay("2026-11-25")).words(from: tuesday) == "Wednesday 2026-11-25 (tomorrow)")
        #expect(try #require(LocalDay("2026-11-30")).words(from: tuesday) == "Monday 2026-11-30")
        #expect(try #require(LocalDay("2026-11-23")).words(from: tuesday) == "Monday 2026-11-23")
    }

    @Test("the best is the least delay: a delay ties only when it is the same to a hundredth of a minute")
    func ties() {
        #expect(RouteAnswers.ties(0.121, 0.12) && RouteAnswers.ties(0.12, 0.12))
        #expect(!RouteAnswers.ties(0.15, 0.12) && !RouteAnswers.ties(0.126, 0.12))
    }
}
