import BridgetDTOs
import Foundation
import Testing

@Suite("Rule calendar")
struct RuleCalendarTests {
    @Test("the federal holidays of 2026 and 2027 on their observed days (a Saturday's on the Friday, a Sunday's on the Monday)")
    func holidays() {
        #expect(FederalHoliday.observed(in: 2026).map(\.date) == [
            "2026-01-01", "2026-01-19", "2026-02-16", "2026-05-25", "2026-06-19", "2026-07-03", "2026-09-07",
            "2026-10-12", "2026-11-11", "2026-11-26", "2026-12-25",
        ])
        // 2027: Juneteenth and Christmas fall on Saturdays; New Year's Day 2028 is a Saturday too, observed on
        // Friday 31 December 2027.
        #expect(FederalHoliday.observed(in: 2027).map(\.date) == [
            "2027-01-01", "2027-01-18", "2027-02-15", "2027-05-31", "2027-06-18", "2027-07-05", "2027-09-06",
            "2027-10-11", "2027-11-11", "2027-11-25", "2027-12-24", "2027-12-31",
        ])
        // 2028 has no New Year's Day of its own: it was observed in 2027.
        #expect(!FederalHoliday.observed(in: 2028).contains { $0.date == "2028-01-01" })
        #expect(FederalHoliday.observed(in: 2026).first { $0.date == "2026-11-26" }?.name == "Thanksgiving Day")
    }

    @Test("the Ship Canal's curfew holds on working days at rush hours, not on holidays, weekends or other bridges")
    func curfew() throws {
        let rules = RuleCalendar.seattle
        let at = { (text: String) in try #require(FloatingTimestamp(text + ".000")) }
        #expect(rules.curfewHolds("3", at: try at("2026-11-25T17:40:00")))
        #expect(!rules.curfewHolds("3", at: try at("2026-11-26T17:40:00")), "Thanksgiving")
        #expect(rules.liftedCurfew("3", onDay: try at("2026-11-26T17:40:00").dayNumber)?.name == "Thanksgiving Day")
        #expect(!rules.curfewHolds("3", at: try at("2026-11-28T17:40:00")), "a Saturday")
        #expect(!rules.curfewHolds("3", at: try at("2026-11-25T18:00:00")), "the window ends at 18:00")
        #expect(rules.curfewHolds("4", at: try at("2026-11-25T07:00:00")))
        #expect(!rules.curfewHolds("1", at: try at("2026-11-25T17:40:00")), "1st Ave South keeps no curfew")
        #expect(rules.liftedCurfew("1", onDay: try at("2026-11-26T17:40:00").dayNumber) == nil)
        #expect(rules.liftedDays("2", inYear: 2026).count == 11)
    }

    @Test("a deviation closes its bridges from its start up to (not including) its end")
    func deviation() throws {
        let run = RuleDeviationDTO(id: "run", bridgeIDs: ["3", "21"], from: "2026-10-04T07:30:00",
                                   until: "2026-10-04T10:00:00", reason: "a 10K")
        let rules = RuleCalendar.seattle.with(deviations: [run])
        let at = { (text: String) in try #require(FloatingTimestamp(text + ".000")) }
        #expect(rules.deviation(closing: "21", at: try at("2026-10-04T07:30:00")) == run)
        #expect(rules.deviation(closing: "3", at: try at("2026-10-04T10:00:00")) == nil)
        #expect(rules.deviation(closing: "2", at: try at("2026-10-04T08:00:00")) == nil)
    }
}
