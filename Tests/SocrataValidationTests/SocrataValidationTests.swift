import BridgetAnalysis
import BridgetDTOs
@testable import BridgetNetworking
import Foundation
import Testing

@Suite("Row decoding and validation")
struct SocrataValidationTests {
    static let now = Date(timeIntervalSince1970: 1_795_000_000) // 2026-11-17
    let validator = SocrataRowValidator(catalog: .seattle, now: Self.now)

    static let good = SocrataRow(
        entityname: "Fremont", entityid: "3", opendatetime: "2026-09-23T22:35:00.000",
        closedatetime: "2026-09-23T22:39:00.000", minutesopen: "4",
        latitude: "47.64760208129883", longitude: "-122.3497314453125")

    @Test func decodesTheDatasetsRealRows() throws {
        let json = """
            [{"entitytype":"Bridge","entityname":"Fremont","entityid":"3","opendatetime":"2026-09-23T22:35:00.000",\
            "closedatetime":"2026-09-23T22:39:00.000","minutesopen":"4","latitude":"47.64760208129883",\
            "longitude":"-122.3497314453125"}
            ,{"entitytype":"Bridge","entityname":"1st Ave South","entityid":"1","opendatetime":"2025-01-03T10:12:00.000",\
            "closedatetime":"2025-01-03T10:20:00.000","minutesopen":"8","latitude":"47.542213439941406",\
            "longitude":"-122.33446502685547"}
            ]
            """
        let rows = try JSONDecoder().decode([SocrataRow].self, from: Data(json.utf8))
        let outcome = validator.validate(rows)
        #expect(outcome.rejected.isEmpty)
        #expect(outcome.events.count == 2)
        let fremont = try #require(outcome.events.first)
        #expect(fremont.openedAt == Date(timeIntervalSince1970: 1_790_228_100)) // 2026-09-24T05:35:00Z
        #expect(fremont.openLocal == "2026-09-23T22:35:00.000")
        #expect(fremont.durationMinutes == 4)
        #expect(fremont.minutesOpen == 4)
        #expect(outcome.events[1].durationMinutes == 8)
    }

    @Test("omitted fields are accepted; numbers sent as JSON numbers are kept as text")
    func omittedFieldsAndNumbers() throws {
        let json = #"{"entityname":"Ballard","entityid":2,"opendatetime":"2026-05-01T10:00:00.000","extra":"ignored"}"#
        let row = try JSONDecoder().decode(SocrataRow.self, from: Data(json.utf8))
        #expect(row.entityid == "2")
        #expect(row.closedatetime == nil && row.minutesopen == nil && row.latitude == nil)
        let event = try validator.validate(row).get()
        #expect(event.closedAt == nil)
        #expect(event.durationMinutes == nil)
        #expect(event.latitude == nil)
    }

    @Test func encodingOmitsNilFields() throws {
        var row = Self.good
        row.closedatetime = nil
        let text = String(decoding: try JSONEncoder().encode(row), as: UTF8.self)
        #expect(!text.contains("closedatetime"))
        #expect(text.contains(#""minutesopen":"4""#))
    }

    static let broken: [(RejectionReason, @Sendable (inout SocrataRow) -> Void)] = [
        (.controlCharacter, { $0.entityname = "Fre\u{0}mont" }),
        (.controlCharacter, { $0.entityname = "\u{0}" }),
        (.controlCharacter, { $0.entityname = "Fremont\u{1B}[2J" }),
        (.controlCharacter, { $0.entityname = "Fre\nmont" }),
        (.controlCharacter, { $0.entityname = "Fremont\u{7F}" }),
        (.controlCharacter, { $0.entityname = "Fremont\u{9B}2J" }),
        (.controlCharacter, { $0.entityid = "3\u{0}" }),
        (.controlCharacter, { $0.opendatetime = "2026-09-23T22:35:00.000\u{0}" }),
        (.controlCharacter, { $0.closedatetime = "2026-09-23T22:39:00.000\u{0}" }),
        (.controlCharacter, { $0.minutesopen = "4\u{0}" }),
        (.controlCharacter, { $0.latitude = "47.64760208129883\u{0}1" }),
        (.controlCharacter, { $0.longitude = "-122.3497314453125\u{0}" }),
        (.unknownBridgeID, { $0.entityid = "99" }),
        (.unknownBridgeID, { $0.entityid = nil }),
        (.emptyName, { $0.entityname = "  " }),
        (.emptyName, { $0.entityname = nil }),
        (.unparseableOpenTime, { $0.opendatetime = "yesterday" }),
        (.unparseableOpenTime, { $0.opendatetime = nil }),
        (.unparseableCloseTime, { $0.closedatetime = "2026-09-23 22:39" }),
        (.closeBeforeOpen, { $0.closedatetime = "2026-09-23T22:30:00.000" }),
        (.openTimeOutOfRange, { $0.opendatetime = "1999-09-23T22:35:00.000" }),
        (.openTimeOutOfRange, { row in
            row.opendatetime = "2027-09-23T22:35:00.000"
            row.closedatetime = "2027-09-23T22:39:00.000"
        }),
        (.unparseableMinutesOpen, { $0.minutesopen = "four" }),
        (.unparseableMinutesOpen, { row in
            row.minutesopen = "1e300" // once crashed converting to Int
            row.closedatetime = nil
        }),
        (.negativeMinutesOpen, { $0.minutesopen = "-4" }),
        (.inconsistentMinutesOpen, { $0.minutesopen = "6" }),
        (.coordinatesOutOfRange, { $0.latitude = "91" }),
        (.coordinatesOutOfRange, { $0.longitude = "west" }),
        (.coordinatesOutOfRange, { $0.longitude = nil }),
        (.coordinatesFarFromBridge, { $0.latitude = "47.7" }),
    ]

    @Test("whitespace around a value (tabs and line breaks included) is trimmed as before, not a control character")
    func surroundingWhitespaceIsTrimmed() throws {
        var row = Self.good
        row.entityname = "\tFremont\r\n"
        row.entityid = " 3\t"
        row.minutesopen = "4\t"
        row.entitytype = "Bridge\u{0}" // a field Bridget neither reads nor stores
        let event = try validator.validate(row).get()
        #expect(event.bridgeName == "Fremont" && event.bridgeID == "3" && event.minutesOpen == 4)
    }

    @Test("each broken rule is rejected with its own reason", arguments: broken.indices)
    func rejectsBrokenRows(_ index: Int) {
        let (reason, breakIt) = Self.broken[index]
        var row = Self.good
        breakIt(&row)
        let outcome = validator.validate([row])
        #expect(outcome.events.isEmpty)
        #expect(outcome.rejected.map(\.reason) == [reason])
        #expect(outcome.rejected.first?.source == SocrataObservationReader.source(row))
    }

    @Test("in a batch, each row's coordinates are judged as its own, whatever the bridge's rows before it had")
    func coordinatesJudgedPerRow() {
        // One bridge whose coordinates change from row to row, with another bridge's rows in between: a verdict
        // remembered for one row's coordinates must not stand in for the next row's.
        func row(_ minute: Int, bridge: String = "3", latitude: String?, longitude: String?) -> SocrataRow {
            var row = Self.good
            row.entityid = bridge
            row.entityname = bridge == "3" ? "Fremont" : "Ballard"
            row.opendatetime = "2026-09-23T22:\(minute):00.000"
            row.closedatetime = "2026-09-23T22:\(minute + 4):00.000"
            row.latitude = latitude
            row.longitude = longitude
            return row
        }
        let (lat, lon) = (Self.good.latitude, Self.good.longitude)
        let rows = [
            row(10, latitude: lat, longitude: lon),
            row(11, latitude: lat, longitude: lon), // the same again: remembered
            row(12, latitude: "47.7", longitude: lon), // far
            row(13, latitude: "47.7", longitude: lon), // far again: remembered
            row(14, bridge: "2", latitude: "47.65981674194336", longitude: "-122.37619018554688"),
            row(15, latitude: lat, longitude: lon),
            row(16, latitude: lat, longitude: nil), // half missing
            row(17, latitude: lat, longitude: lon),
            row(18, latitude: nil, longitude: nil), // none: not checked
            row(19, latitude: lat, longitude: lon), // after none
            row(20, latitude: "47.64760208129883", longitude: "-122.3497314453126"), // equal value, other text
            row(21, bridge: "2", latitude: lat, longitude: lon), // Fremont's place, Ballard's row: far
            row(22, bridge: "2", latitude: lat, longitude: lon), // far again
        ]
        let outcome = validator.validate(rows)
        #expect(outcome.events.map(\.openLocal) == [10, 11, 14, 15, 17, 18, 19, 20].map { "2026-09-23T22:\($0):00.000" })
        #expect(outcome.rejected.map(\.reason) == [.coordinatesFarFromBridge, .coordinatesFarFromBridge,
                                                    .coordinatesOutOfRange, .coordinatesFarFromBridge,
                                                    .coordinatesFarFromBridge])
        #expect(outcome.events[5].latitude == nil && outcome.events[7].longitude == -122.3497314453126)
        // The same rows one at a time (nothing remembered between them) give exactly the same outcome, and so
        // does the concurrent first pass, whole or in chunks.
        let alone = rows.map { validator.validate($0) }
        #expect(outcome.events == alone.compactMap { try? $0.get() })
        #expect(outcome.rejected.map(\.reason) == alone.compactMap { if case .failure(let reason) = $0 { reason } else { nil } })
        #expect(outcome.rejected.map(\.index) == alone.indices.filter { (try? alone[$0].get()) == nil })
        #expect(validator.firstPass(rows[...]) == alone)
        #expect(validator.firstPass(rows[..<6]) + validator.firstPass(rows[6...]) == alone)
    }

    @Test func minutesOpenWithinOneMinuteIsAccepted() throws {
        var row = Self.good
        row.minutesopen = "5"
        #expect(try validator.validate(row).get().minutesOpen == 5)
    }

    @Test("a repeated natural key in one batch is a duplicate; every reason is counted separately")
    func duplicatesAndCounts() {
        var other = Self.good
        other.entityid = "2"
        other.entityname = "Ballard"
        other.latitude = "47.65981674194336"
        other.longitude = "-122.37619018554688"
        var unknown = Self.good
        unknown.entityid = "5"
        let outcome = validator.validate([Self.good, other, Self.good, unknown, unknown, Self.good])
        #expect(outcome.events.count == 2)
        #expect(outcome.rejectionCounts[.duplicateInBatch] == 2)
        #expect(outcome.rejectionCounts[.unknownBridgeID] == 2)
        #expect(outcome.rejectionCounts.total == 4)
        #expect(outcome.rejectionCounts.summary == "4 rejected: 2 unknown-bridge-id, 2 duplicate-in-batch")
    }

    @Test func rejectionCountsEncodeAsAnObjectByReason() throws {
        let counts = RejectionCounts([.closeBeforeOpen: 2])
        let text = String(decoding: try JSONEncoder().encode(counts), as: UTF8.self)
        #expect(text.contains(#""close-before-open":2"#))
    }

    @Test func catalogResolvesIdsAndNames() {
        #expect(BridgeCatalog.seattle.bridges.map(\.id) == ["1", "2", "3", "4", "6", "21", "29"])
        #expect(BridgeCatalog.seattle.resolve("fremont")?.id == "3")
        #expect(BridgeCatalog.seattle.resolve("21")?.name == "University")
        #expect(BridgeCatalog.seattle.resolve("Lower Spokane Street Bridge")?.id == "6")
        #expect(BridgeCatalog.seattle.resolve("Aurora") == nil)
        #expect(BridgeCatalog.seattle.bridges.filter(\.isShipCanalBridge).map(\.id) == ["2", "3", "4", "21"])
    }

    @Test("fall-back day: minutesopen picks the occurrence, so a PST opening is not rejected")
    func repeatedHourUsesMinutesOpen() throws {
        var row = Self.good
        (row.opendatetime, row.closedatetime, row.minutesopen) = ("2024-11-03T01:58:00.000", "2024-11-03T02:03:00.000", "5")
        let event = try validator.validate(row).get()
        #expect(event.openedAt == ISO8601DateFormatter().date(from: "2024-11-03T09:58:00Z")) // the PST occurrence
        #expect(event.durationMinutes == 5)
        (row.closedatetime, row.minutesopen) = ("2024-11-03T01:03:00.000", "5") // 01:58 PDT → 01:03 PST
        #expect(try validator.validate(row).get().openedAt == ISO8601DateFormatter().date(from: "2024-11-03T08:58:00Z"))
    }

    @Test("fall-back day: two openings at the same reading are both kept, an hour apart")
    func repeatedHourTwoOpenings() {
        var row = Self.good
        (row.opendatetime, row.closedatetime, row.minutesopen) = ("2024-11-03T01:30:00.000", "2024-11-03T01:34:00.000", "4")
        let outcome = validator.validate([row, row])
        #expect(outcome.rejected.isEmpty)
        #expect(outcome.events.map(\.openedAt) == [Date(timeIntervalSince1970: 1_730_622_600),
                                                   Date(timeIntervalSince1970: 1_730_626_200)])
        #expect(validator.validate([row, row, row]).rejectionCounts[.duplicateInBatch] == 1)
    }

    @Test("spring-forward day: a reading in the skipped hour is rejected by name, and never displaces the real hour after")
    func springGapRow() throws {
        var row = Self.good
        (row.opendatetime, row.closedatetime, row.minutesopen) = ("2024-03-10T01:58:00.000", "2024-03-10T03:02:00.000", "4")
        let event = try validator.validate(row).get()
        #expect(event.durationMinutes == 4)
        (row.opendatetime, row.closedatetime, row.minutesopen) = ("2024-03-10T02:30:00.000", "2024-03-10T03:34:00.000", "4")
        #expect(validator.validate(row) == .failure(.nonexistentLocalTime))
        (row.opendatetime, row.closedatetime, row.minutesopen) = ("2024-03-10T01:55:00.000", "2024-03-10T02:10:00.000", nil)
        #expect(validator.validate(row) == .failure(.nonexistentLocalTime), "a closing in the gap too")

        // Readings 02:00–02:50 and the genuine 03:00–03:50 in one batch: the genuine ones are all kept.
        let rows = (0..<6).flatMap { index -> [SocrataRow] in
            var skipped = Self.good
            var genuine = Self.good
            (skipped.opendatetime, skipped.closedatetime, skipped.minutesopen)
                = ("2024-03-10T02:\(index)0:00.000", nil, nil)
            (genuine.opendatetime, genuine.closedatetime, genuine.minutesopen)
                = ("2024-03-10T03:\(index)0:00.000", "2024-03-10T03:\(index)5:00.000", "5")
            return [skipped, genuine]
        }
        let outcome = validator.validate(rows)
        #expect(outcome.events.count == 6 && outcome.events.allSatisfy { $0.openLocal.hasPrefix("2024-03-10T03:") })
        #expect(outcome.rejectionCounts[.nonexistentLocalTime] == 6 && outcome.rejected.count == 6)
    }

    @Test("an exported event reads back as the row it came from")
    func exportForm() throws {
        let validator = SocrataRowValidator(catalog: .seattle, now: Date(timeIntervalSince1970: 1_900_000_000))
        let row = Self.good
        let event = try validator.validate(row).get()
        #expect(SocrataRow(event: event) == row)
        #expect(try validator.validate(SocrataRow(event: event)).get() == event)
    }
}
