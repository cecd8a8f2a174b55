import BridgetDTOs
import Foundation
import Testing

@Suite("Seattle wall-clock time")
struct LocalClockTests {
    let time = LocalClock.seattle

    func instant(_ iso: String) -> Date {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: iso)!
    }

    func reading(_ text: String) -> FloatingTimestamp { FloatingTimestamp(text)! }

    @Test func zoneIdentifierResolves() {
        #expect(time.zone.identifier == "America/Los_Angeles")
    }

    @Test("the offsets agree with the zone, every half hour from 1960 to 2070 (the table's 1990–2060 and past both its edges) and around every transition")
    func offsetsAgreeWithTheZone() {
        var mismatches = 0
        var instant: Int64 = -315_619_200 // 1960-01-01
        while instant < 3_155_760_000 { // 2070-01-01
            let date = Date(timeIntervalSince1970: Double(instant))
            if time.utcOffset(at: date) != time.zone.secondsFromGMT(for: date) { mismatches += 1 }
            instant += 1800
        }
        var cursor = Date(timeIntervalSince1970: -315_619_200)
        var transitions = 0
        while let next = time.zone.nextDaylightSavingTimeTransition(after: cursor), next.timeIntervalSince1970 < 3_155_760_000 {
            for delta in [-1.0, 0, 1] {
                let date = next.addingTimeInterval(delta)
                if time.utcOffset(at: date) != time.zone.secondsFromGMT(for: date) { mismatches += 1 }
            }
            transitions += 1
            cursor = next
        }
        #expect(transitions > 150)
        #expect(mismatches == 0)
    }

    @Test("summer readings are PDT, winter readings PST")
    func ordinaryDays() {
        #expect(time.openingInstant(for: reading("2026-09-23T22:35:00.000")) == instant("2026-09-24T05:35:00Z"))
        #expect(time.openingInstant(for: reading("2025-01-03T10:12:00.000")) == instant("2025-01-03T18:12:00Z"))
        #expect(time.abbreviation(at: instant("2026-09-24T05:35:00Z")) == "PDT")
        #expect(time.abbreviation(at: instant("2025-01-03T18:12:00Z")) == "PST")
    }

    @Test("spring gap: a missing reading takes the offset before the gap")
    func springGap() {
        let gap = reading("2024-03-10T02:30:00.000")
        #expect(time.instants(for: gap).isEmpty)
        #expect(time.openingInstant(for: gap) == instant("2024-03-10T10:30:00Z"))
        #expect(time.instants(for: reading("2024-03-10T01:59:00.000")) == [instant("2024-03-10T09:59:00Z")])
        #expect(time.instants(for: reading("2024-03-10T03:00:00.000")) == [instant("2024-03-10T10:00:00Z")])
    }

    @Test("autumn repeated hour: openings take the first occurrence")
    func autumnRepeatedHour() {
        let repeated = reading("2024-11-03T01:30:00.000")
        #expect(time.instants(for: repeated) == [instant("2024-11-03T08:30:00Z"), instant("2024-11-03T09:30:00Z")])
        #expect(time.openingInstant(for: repeated) == instant("2024-11-03T08:30:00Z"))
        #expect(time.instants(for: reading("2024-11-03T02:00:00.000")) == [instant("2024-11-03T10:00:00Z")])
    }

    @Test("a closing in the repeated hour is the first occurrence at or after the opening")
    func closingAcrossFallBack() {
        let opened = time.openingInstant(for: reading("2024-11-03T01:55:00.000"))
        let closed = time.closingInstant(for: reading("2024-11-03T01:02:00.000"), after: opened)
        #expect(closed == instant("2024-11-03T09:02:00Z"))
        #expect(closed.timeIntervalSince(opened) == 7 * 60)
        let sameHour = time.closingInstant(for: reading("2024-11-03T01:59:00.000"), after: opened)
        #expect(sameHour == instant("2024-11-03T08:59:00Z"))
    }

    @Test("the unambiguous fast path agrees with the candidates every 10 minutes for 6 years, and steps aside near changes")
    func unambiguousInstantAgrees() {
        var wall = reading("2022-01-01T00:00:00.000").wallClockSeconds
        let end = reading("2028-01-01T00:00:00.000").wallClockSeconds
        var (disagreements, declined) = (0, 0)
        while wall < end {
            let local = FloatingTimestamp(wallClockSeconds: wall + 7) // a second that is not a round number
            let candidates = time.candidateInstants(for: local)
            if let fast = time.unambiguousInstant(for: local) {
                if candidates != [fast] { disagreements += 1 }
            } else {
                declined += 1
            }
            wall += 600
        }
        #expect(disagreements == 0)
        // Declined only within a day of each of the 12 changes: at most 12 × 2 days of 144 readings.
        #expect(declined > 0 && declined <= 12 * 2 * 144)
        #expect(time.unambiguousInstant(for: reading("2024-11-03T01:30:00.000")) == nil)
        #expect(time.unambiguousInstant(for: reading("2024-03-10T02:30:00.000")) == nil)
        #expect(time.unambiguousInstant(for: reading("2026-09-23T22:35:00.250")) == instant("2026-09-24T05:35:00Z").addingTimeInterval(0.25))
    }

    @Test func readingAndDisplayRoundTrip() {
        let summer = instant("2026-07-04T19:05:00Z")
        #expect(time.reading(for: summer).description == "2026-07-04T12:05:00.000")
        #expect(time.display(summer) == "2026-07-04 12:05 PDT")
        #expect(time.display(instant("2026-01-04T19:05:00Z")) == "2026-01-04 11:05 PST")
    }
}

@Suite("Floating timestamps and the civil calendar")
struct FloatingTimestampTests {
    @Test(arguments: ["2026-09-23T22:35:00.000", "2026-09-23T22:35:00", "2024-02-29T00:00:00.999"])
    func parsesValidReadings(_ text: String) throws {
        let reading = try #require(FloatingTimestamp(text))
        #expect(reading.description.hasPrefix(String(text.prefix(19))))
    }

    @Test(arguments: ["", "not a time", "2026-09-23 22:35:00.000", "2026-09-23T22:35:00.000Z", "2026-13-01T00:00:00.000",
                      "2025-02-29T00:00:00.000", "2026-09-23T24:00:00.000", "2026-09-23T22:35:00.0", "２０２６-09-23T22:35:00"])
    func rejectsInvalidReadings(_ text: String) {
        #expect(FloatingTimestamp(text) == nil)
    }

    @Test func weekdays() {
        #expect(FloatingTimestamp("2026-11-22T12:00:00.000")?.weekday == 1) // a Sunday
        #expect(FloatingTimestamp("2026-11-23T12:00:00.000")?.weekday == 2)
        #expect(FloatingTimestamp("1970-01-01T00:00:00.000")?.weekday == 5)
    }

    @Test func civilCalendarRoundTrips() {
        for day in stride(from: -800_000, through: 800_000, by: 997) {
            let (year, month, dayOfMonth) = CivilCalendar.civilFromDays(day)
            #expect(CivilCalendar.daysFromCivil(year: year, month: month, day: dayOfMonth) == day)
        }
        #expect(CivilCalendar.daysFromCivil(year: 2000, month: 3, day: 1) == 11_017)
    }
}

@Suite("the change log's entries")
struct OpeningChangeCodingTests {
    @Test("recordedAt is written to the millisecond and read back; every other instant as the encoder's strategy says")
    func milliseconds() throws {
        for (seconds, text) in [(1_780_315_200.123, "2026-06-01T12:00:00.123Z"), (0.0, "1970-01-01T00:00:00.000Z"),
                                (951_782_399.999, "2000-02-28T23:59:59.999Z"), (951_868_800.5, "2000-03-01T00:00:00.500Z"),
                                (4_102_444_799.001, "2099-12-31T23:59:59.001Z")] {
            #expect(OpeningChangeDTO.millisecondText(Date(timeIntervalSince1970: seconds)) == text)
        }
        let change = OpeningChangeDTO(sequence: 7, recordedAt: Date(timeIntervalSince1970: 1_780_315_200.25), kind: .announced,
                                      bridgeID: "3", openedAt: Date(timeIntervalSince1970: 1_780_318_800), closedAt: nil,
                                      status: .planned, recordID: "r", recordVersion: 2)
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = .sortedKeys
        let json = String(decoding: try encoder.encode(change), as: UTF8.self)
        #expect(json.contains("\"recordedAt\":\"2026-06-01T12:00:00.250Z\"") && json.contains("\"openedAt\":\"2026-06-01T13:00:00Z\""))
        #expect(!json.contains("closedAt"))
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        #expect(try decoder.decode(OpeningChangeDTO.self, from: Data(json.utf8)) == change)
    }

    @Test("an entry is an opening's change or a bulk summary, told apart by its kind; a summary that counts an unknown kind or a negative number is refused")
    func entries() throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = .sortedKeys
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let summary = BulkChangeDTO(sequence: 9, recordedAt: Date(timeIntervalSince1970: 1_780_315_200.5),
                                    counts: [.new: 150, .closed: 3], bridgeIDs: ["2", "3"],
                                    openedFrom: Date(timeIntervalSince1970: 1_700_000_000),
                                    openedThrough: Date(timeIntervalSince1970: 1_710_000_000), historyVersion: 4)
        let json = String(decoding: try encoder.encode(ChangeLogEntryDTO.bulk(summary)), as: UTF8.self)
        #expect(json.contains(#""kind":"bulk""#) && json.contains(#""counts":{"closed":3,"new":150}"#)
                && json.contains(#""total":153"#) && json.contains(#""recordedAt":"2026-06-01T12:00:00.500Z""#), "\(json)")
        let entry = try decoder.decode(ChangeLogEntryDTO.self, from: Data(json.utf8))
        #expect(entry == .bulk(summary) && entry.opening == nil && entry.bridgeIDs == ["2", "3"] && entry.kindName == "bulk")
        let change = OpeningChangeDTO(sequence: 10, recordedAt: Date(timeIntervalSince1970: 1_780_315_201), kind: .new,
                                      bridgeID: "3", openedAt: Date(timeIntervalSince1970: 1_780_315_000), closedAt: nil,
                                      status: .observed, recordID: nil, recordVersion: nil)
        let opening = try decoder.decode(ChangeLogEntryDTO.self, from: encoder.encode(ChangeLogEntryDTO.opening(change)))
        #expect(opening.opening == change && opening.sequence == 10 && opening.bridgeIDs == ["3"])
        for bad in [json.replacingOccurrences(of: #""new":150"#, with: #""moved":150"#),
                    json.replacingOccurrences(of: #""new":150"#, with: #""new":-1"#)] {
            #expect(throws: DecodingError.self, "\(bad)") { try decoder.decode(ChangeLogEntryDTO.self, from: Data(bad.utf8)) }
        }
    }
}
