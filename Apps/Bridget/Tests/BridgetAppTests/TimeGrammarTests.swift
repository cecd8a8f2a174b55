import BridgetCore
import BridgetDTOs
import Foundation
import Testing

@Suite("Time grammar")
struct TimeGrammarTests {
    static var iso: ISO8601DateFormatter { ISO8601DateFormatter() }
    /// Tuesday 2026-11-24 17:00 PST.
    static let now = Date(timeIntervalSince1970: 1_795_568_400)
    let grammar = TimeGrammar(clock: .seattle, now: TimeGrammarTests.now)

    func instant(_ text: String, _ direction: TimeGrammar.Direction = .back) throws -> String {
        Self.iso.string(from: try grammar.instant(text, option: "--at", direction: direction))
    }

    @Test("full forms: a date is its local midnight; local times, the zone tables print, ISO 8601 instants")
    func fullForms() throws {
        #expect(try instant("2026-07-01") == "2026-07-01T07:00:00Z")
        #expect(try instant("2026-12-01 17:40") == "2026-12-02T01:40:00Z")
        #expect(try instant("2026-12-01T17:40") == "2026-12-02T01:40:00Z")
        #expect(try instant("2026-12-01T17:40:00.000") == "2026-12-02T01:40:00Z") // as events and predict print it
        #expect(try instant("2026-10-01 10:00 PDT") == "2026-10-01T17:00:00Z")
        #expect(try instant("2026-12-01T17:40:00Z") == "2026-12-01T17:40:00Z")
        #expect(try instant("2026-12-01T17:40:00+01:00") == "2026-12-01T16:40:00Z")
    }

    @Test("a time of day is the next such time ahead, the latest such time back")
    func timesOfDay() throws {
        #expect(try instant("17:40", .ahead) == "2026-11-25T01:40:00Z") // today, 40 minutes from now
        #expect(try instant("7:00", .ahead) == "2026-11-25T15:00:00Z") // tomorrow morning
        #expect(try instant("17:40", .back) == "2026-11-24T01:40:00Z") // yesterday's, today's is still ahead
        #expect(try instant("07:00", .back) == "2026-11-24T15:00:00Z") // this morning
    }

    @Test("days by name: today, tomorrow, a weekday is the next one ahead and the latest one back, today included",
          arguments: [
              ("today", TimeGrammar.Direction.ahead, "2026-11-24T08:00:00Z"), ("tomorrow", .ahead, "2026-11-25T08:00:00Z"),
              ("yesterday", .back, "2026-11-23T08:00:00Z"), ("tue", .ahead, "2026-11-24T08:00:00Z"),
              ("tuesday", .back, "2026-11-24T08:00:00Z"), ("mon", .ahead, "2026-11-30T08:00:00Z"),
              ("Monday", .back, "2026-11-23T08:00:00Z"), ("sun", .ahead, "2026-11-29T08:00:00Z"),
              ("wed", .back, "2026-11-18T08:00:00Z"), ("FRI", .ahead, "2026-11-27T08:00:00Z"),
          ])
    func daysByName(text: String, direction: TimeGrammar.Direction, expected: String) throws {
        // Now is Tuesday 2026-11-24 17:00 PST: midnight there is 08:00 UTC.
        #expect(try instant(text, direction) == expected)
    }

    @Test("a weekday's name must be whole or its first three letters")
    func weekdayNamesRefused() {
        for text in ["mo", "mond", "tues", "thur", "weekday", "someday"] {
            #expect(throws: BridgetError.self, "\(text)") { try instant(text, .ahead) }
        }
    }

    @Test("now and spans: ago looking back, ahead looking ahead, a sign decides")
    func relative() throws {
        #expect(try instant("now") == "2026-11-25T01:00:00Z")
        // Days are calendar days: 30 days before 17:00 PST is 17:00 PDT, across the clock change.
        #expect(try instant("30d") == "2026-10-26T00:00:00Z")
        #expect(try instant("2h", .ahead) == "2026-11-25T03:00:00Z")
        #expect(try instant("-2h", .ahead) == "2026-11-24T23:00:00Z")
        #expect(try instant("+1w") == "2026-12-02T01:00:00Z")
        #expect(try instant("45m") == "2026-11-25T00:15:00Z")
    }

    @Test("a time of day in the repeated autumn hour takes the occurrence nearest on the right side of now")
    func repeatedHourTimeOfDay() throws {
        // 2026-11-01 01:45 PST, the second pass through 01:xx.
        let late = TimeGrammar(clock: .seattle, now: Date(timeIntervalSince1970: 1_793_526_300))
        #expect(Self.iso.string(from: late.now) == "2026-11-01T09:45:00Z")
        let ahead = try late.resolve("01:50", option: "--at", direction: .ahead)
        #expect(Self.iso.string(from: ahead.instant) == "2026-11-01T09:50:00Z") // 01:50 PST, 5 minutes away
        #expect(ahead.note?.contains("using the second") == true)
        let back = try late.resolve("01:40", option: "--since", direction: .back)
        #expect(Self.iso.string(from: back.instant) == "2026-11-01T09:40:00Z") // 01:40 PST, 5 minutes ago
        #expect(try late.resolve("2026-10-01T17:40Z", option: "--at", direction: .ahead).instant
                == Self.iso.date(from: "2026-10-01T17:40:00Z"))
        #expect(try late.resolve("17:40:30", option: "--at", direction: .ahead).reading.minute == 40)
        #expect {
            _ = try late.resolve("2027-03-14 02:30 PDT", option: "--at", direction: .ahead)
        } throws: { "\($0)".contains("does not exist") }
    }

    @Test("a missing local time moves forward by the gap, a repeated one takes its first occurrence, each with a note")
    func daylightSaving() throws {
        let gap = try grammar.resolve("2027-03-14 02:30", option: "--at", direction: .ahead)
        #expect(Self.iso.string(from: gap.instant) == "2027-03-14T10:30:00Z") // 03:30 PDT
        #expect(gap.note?.contains("does not exist") == true && gap.note?.contains("03:30 PDT") == true)
        let repeated = try grammar.resolve("2026-11-01 01:30", option: "--at", direction: .ahead)
        #expect(Self.iso.string(from: repeated.instant) == "2026-11-01T08:30:00Z") // 01:30 PDT, the first
        #expect(repeated.note?.contains("occurs twice") == true)
        let second = try grammar.resolve("2026-11-01 01:30 PST", option: "--at", direction: .ahead)
        #expect(Self.iso.string(from: second.instant) == "2026-11-01T09:30:00Z" && second.note == nil)
        #expect(try grammar.resolve("2026-07-01 12:00", option: "--at", direction: .ahead).note == nil)
    }

    @Test("anything else is refused with the option, the text and every form")
    func refusals() {
        for text in ["next tuesday", "25:00", "7:5", "2026-13-01", "30x", "9999-12-31", "2026-07-01 10:00 PST"] {
            #expect {
                _ = try grammar.instant(text, option: "--since", direction: .back)
            } throws: { error in
                guard let error = error as? BridgetError else { return false }
                return error.exitCode == 64 && error.message.contains("--since '\(text)'")
            }
        }
    }

    @Test("weekday lists")
    func weekdays() throws {
        #expect(try Weekdays.parse("mon-fri", option: "--on") == Set(0...4))
        #expect(try Weekdays.parse("sat,sun", option: "--on") == [5, 6])
        #expect(try Weekdays.parse("fri-mon", option: "--on") == [4, 5, 6, 0])
        #expect(try Weekdays.parse("Daily", option: "--on") == Set(0...6))
        #expect(throws: BridgetError.self) { try Weekdays.parse("funday", option: "--on") }
    }
}
