@testable import BridgetAnswers
import BridgetCore
import BridgetDTOs
import Foundation
import Testing

/// The answers that write their own JSON write exactly what Foundation's encoder writes of them: the output is a
/// contract (Docs/OUTPUT.md), and the writer is only a faster way to the same bytes.
@Suite("Answers' own JSON")
struct JSONTextTests {
    static let clock = LocalClock.seattle

    /// Texts a JSON writer gets wrong first: quotes, backslashes, every control character, slashes, non-ASCII,
    /// the line separators JavaScript minds, DEL, and nothing.
    static let texts = ["", "Fremont", "a \"quoted\" \\ back/slash", String((0..<32).map { Character(Unicode.Scalar($0)) }),
                        "Zuidhorn brug — \u{2028}\u{2029}\u{7F} 😀", "</script>"]
    /// Numbers whose shortest form has an exponent, a negative zero, many digits, or none after the point.
    static let numbers: [Double] = [0, -0.0, 1, 0.1, 1.0 / 3, 12.5, 47.647_5, -122.347_1, 1e-5, 2.5e-7, 1e16,
                                    1.234_567_890_123_456_8e20, .leastNonzeroMagnitude, 1e300]
    /// Instants before 1970, with fractions (dropped toward the past), around a leap day and a year's end.
    static let instants: [Date] = [
        Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: -0.5), Date(timeIntervalSince1970: -86_400 * 365.25 * 50),
        Date(timeIntervalSince1970: 951_782_400.999), Date(timeIntervalSince1970: 1_709_164_800),
        Date(timeIntervalSince1970: 1_735_689_599.5), Date(timeIntervalSince1970: 1_795_568_400.123),
        Date(timeIntervalSince1970: 253_402_300_799),
    ]

    static func event(_ index: Int, full: Bool) -> BridgeEventDTO {
        let opened = instants[index % instants.count]
        return BridgeEventDTO(
            bridgeID: texts[index % texts.count], bridgeName: texts[(index + 1) % texts.count], openedAt: opened,
            openLocal: "2025-01-01T00:00:00.000", closedAt: full ? opened.addingTimeInterval(Double(index) * 61.5) : nil,
            closeLocal: full ? "2025-01-01T00:10:00.000" : nil, minutesOpen: full ? index - 3 : nil,
            latitude: full ? numbers[index % numbers.count] : nil, longitude: full ? numbers[(index + 5) % numbers.count] : nil,
            status: index.isMultiple(of: 2) ? .observed : .planned,
            recordID: full ? texts[(index + 2) % texts.count] : nil, recordVersion: full ? index : nil)
    }

    static func expectSameBytes(_ value: some JSONTextWritable, sourceLocation: SourceLocation = #_sourceLocation) throws {
        var json = JSONText()
        value.write(to: &json)
        let mine = String(decoding: json.bytes, as: UTF8.self)
        let foundation = String(decoding: try AnswerJSON.encoded(value), as: UTF8.self)
        #expect(mine == foundation, sourceLocation: sourceLocation)
        #expect(!json.invalid, sourceLocation: sourceLocation)
    }

    @Test("a page of events: every field present or absent, edge texts, numbers and instants, empty and last pages")
    func eventPages() throws {
        for full in [true, false] {
            let events = (0..<40).map { EventOutput(Self.event($0, full: full), clock: Self.clock) }
            try Self.expectSameBytes(EventPageOutput(events: events, next: "/v1/events?order=newest&limit=40&cursor=eyJ9",
                                                     cursor: "eyJ9"))
            try Self.expectSameBytes(EventPageOutput(events: events, next: nil, cursor: nil))
        }
        try Self.expectSameBytes(EventPageOutput(events: [], next: nil, cursor: nil))
    }

    @Test("a forecast: edge numbers, evidence slots with and without openings, none at all")
    func forecasts() throws {
        for (index, number) in Self.numbers.enumerated() {
            let forecast = ForecastDTO(
                bridgeID: Self.texts[index % Self.texts.count], bridgeName: "Fremont", at: "2026-11-24T17:40:00",
                windowMinutes: index * 7, chanceOfOpening: number, chanceOpenOnArrival: -number,
                expectedDelayMinutes: number * 3, baseChanceOfOpening: number / 7, sampleStarts: index,
                sampleOccurrences: -index, slotChanceOfOpening: number / 3,
                reasons: (0..<(index % 4)).map { reason in
                    ForecastReasonDTO(kind: ["follows", "holiday", "deviation"][reason % 3],
                                      text: Self.texts[(index + reason) % Self.texts.count],
                                      chance: reason == 1 ? nil : number, bridgeID: reason == 0 ? "2" : nil)
                })
            let slots = (0..<(index % 6)).map { slot in
                ForecastAnswer.Slot(from: "2026-11-\(10 + slot)T17:40:00",
                                    openings: (0..<(slot % 3)).map { "17:4\($0) (\($0) min)" + Self.texts[$0] })
            }
            try Self.expectSameBytes(ForecastAnswer(
                forecast: forecast, atInstant: Self.instants[index % Self.instants.count], atLocal: "2026-11-24T17:40:00",
                waitIfOpenMinutes: number, modelBuiltAt: Self.instants[(index + 3) % Self.instants.count],
                history: "2025-01-01 to \(Self.texts[index % Self.texts.count])", lastSimilarSlots: slots))
        }
    }

    @Test("a number JSON cannot hold leaves the answer to the encoder, which refuses it")
    func nonFinite() {
        let forecast = ForecastDTO(bridgeID: "1", bridgeName: "x", at: "2026-11-24T17:40:00", windowMinutes: 20,
                                   chanceOfOpening: .nan, chanceOpenOnArrival: 0, expectedDelayMinutes: .infinity,
                                   baseChanceOfOpening: 0, sampleStarts: 0, sampleOccurrences: 0)
        var json = JSONText()
        forecast.write(to: &json)
        #expect(json.invalid)
        #expect(throws: EncodingError.self) { try AnswerJSON.bytes(forecast) }
    }
}
