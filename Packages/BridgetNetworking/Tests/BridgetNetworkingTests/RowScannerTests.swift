import BridgetDTOs
@testable import BridgetNetworking
import Foundation
import Testing

@Suite("Streaming row readers and writers")
struct RowScannerTests {
    static let awkward = [
        SocrataRow(entityname: "Fremont", entityid: "3", opendatetime: "2026-09-23T22:35:00.000",
                   closedatetime: "2026-09-23T22:39:00.000", minutesopen: "4", latitude: "47.64760208129883",
                   longitude: "-122.3497314453125"),
        SocrataRow(entitytype: nil, entityname: "Quote \" comma, \\ back\nline é 🌉", entityid: "21",
                   opendatetime: "2026-09-24T01:05:00.000", closedatetime: nil, minutesopen: nil, latitude: nil,
                   longitude: nil),
        SocrataRow(entityname: "", entityid: " 4 ", opendatetime: "x", closedatetime: "", minutesopen: "4.5",
                   latitude: "1e3", longitude: "\t"),
    ]

    /// Scans `bytes` in chunks of `chunk` bytes, passing the unconsumed rest again as a reader would.
    static func scanInChunks(_ bytes: [UInt8], chunk: Int, csv: Bool, layout: SocrataJSONScanner.Layout = .either)
        throws -> [(SocrataRow, RowPosition)]
    {
        var json = SocrataJSONScanner(layout: layout)
        var table = SocrataCSVScanner()
        var rows: [(SocrataRow, RowPosition)] = []
        var pending: [UInt8] = []
        var offset = 0
        repeat {
            let next = min(offset + chunk, bytes.count)
            pending += bytes[offset..<next]
            offset = next
            let isFinal = offset == bytes.count
            let consumed = try pending.withUnsafeBufferPointer { buffer in
                csv ? try table.scan(buffer, isFinal: isFinal) { rows.append(($0, $1)) }
                    : try json.scan(buffer, isFinal: isFinal) { rows.append(($0, $1)) }
            }
            pending.removeFirst(consumed)
        } while offset < bytes.count
        return rows
    }

    @Test("an API page: strings kept, numbers and booleans as text, null and unknown fields dropped")
    func page() throws {
        let page = """
            [{"entitytype":"Bridge","entityname":"Fremont","entityid":3,"opendatetime":"2026-09-23T22:35:00.000",
              "minutesopen":4.0,"latitude":null,":id":"row-x","location":{"type":"Point","coordinates":[1,2]},
              "longitude":"-122.3\\u00e9\\ud83c\\udf09\\/"}
            , {}]
            """
        let rows = try SocrataJSONScanner.decodeArray(Data(page.utf8))
        #expect(rows.count == 2)
        #expect(rows[0].entityid == "3")
        #expect(rows[0].minutesopen == "4.0")
        #expect(rows[0].latitude == nil)
        #expect(rows[0].closedatetime == nil)
        #expect(rows[0].longitude == "-122.3é🌉/")
        #expect(rows[1] == SocrataRow(entitytype: nil, entityname: nil, entityid: nil, opendatetime: nil,
                                      closedatetime: nil, minutesopen: nil, latitude: nil, longitude: nil))
        #expect(try SocrataJSONScanner.decodeArray(Data("[]".utf8)).isEmpty)
    }

    @Test("every chunk size reads the same rows and positions, in all three layouts")
    func chunking() throws {
        var ndjson: [UInt8] = []
        var array: [UInt8] = Array("[\n".utf8)
        var csv: [UInt8] = Array(SocrataRow.csvHeader.utf8)
        for (index, row) in Self.awkward.enumerated() {
            row.appendJSON(to: &ndjson)
            ndjson.append(0x0A)
            if index > 0 { array += Array(",\n".utf8) }
            row.appendJSON(to: &array)
            row.appendCSV(to: &csv)
        }
        array += Array("\n]\n".utf8)
        for (bytes, isCSV) in [(ndjson, false), (array, false), (csv, true)] {
            let whole = try Self.scanInChunks(bytes, chunk: bytes.count, csv: isCSV)
            #expect(whole.map(\.0) == Self.awkward)
            // Each position is just after its row: the bytes up to it hold exactly the rows so far.
            #expect(whole.last.map { Int($0.1.offset) } ?? 0 <= bytes.count)
            for chunk in [1, 2, 3, 7, 16, 64] {
                let pieces = try Self.scanInChunks(bytes, chunk: chunk, csv: isCSV)
                #expect(pieces.map(\.0) == whole.map(\.0), "chunk \(chunk)")
                #expect(pieces.map(\.1) == whole.map(\.1), "chunk \(chunk)")
            }
        }
    }

    @Test("an API page cut at every byte reads the same: bare values, nulls, nested and unknown fields")
    func pageAtEveryCut() throws {
        let page = Array("""
            [{"entitytype":"Bridge","entityname":"Fremont","entityid":3,"opendatetime":"2026-09-23T22:35:00.000",
              "minutesopen":4.0,"latitude":null,":id":"row-x","location":{"type":"Point","coordinates":[1,-2.5e3]},
              "flag":true,"none":false,"longitude":"-122.3\\u00e9\\ud83c\\udf09\\/"} ,
             {"entityid" : "21" , "closedatetime":null , "minutesopen":12},{}]
            """.utf8)
        let whole = try Self.scanInChunks(page, chunk: page.count, csv: false, layout: .array)
        #expect(whole.count == 3)
        #expect(whole[0].0.entityid == "3" && whole[0].0.minutesopen == "4.0" && whole[0].0.latitude == nil)
        #expect(whole[0].0.longitude == "-122.3é🌉/")
        #expect(whole[1].0.entityid == "21" && whole[1].0.minutesopen == "12" && whole[1].0.closedatetime == nil)
        for chunk in 1..<page.count {
            let pieces = try Self.scanInChunks(page, chunk: chunk, csv: false, layout: .array)
            #expect(pieces.map(\.0) == whole.map(\.0), "chunk \(chunk)")
            #expect(pieces.map(\.1) == whole.map(\.1), "chunk \(chunk)")
        }
    }

    @Test("CSV and JSON rows list the fields in the header's order")
    func fieldOrder() {
        var row = SocrataRow(entityname: nil, entityid: nil, opendatetime: nil, closedatetime: nil, minutesopen: nil,
                             latitude: nil, longitude: nil)
        row.entitytype = "entitytype"
        row.entityname = "entityname"
        row.entityid = "entityid"
        row.opendatetime = "opendatetime"
        row.closedatetime = "closedatetime"
        row.minutesopen = "minutesopen"
        row.latitude = "latitude"
        row.longitude = "longitude"
        var csv: [UInt8] = []
        row.appendCSV(to: &csv)
        #expect(String(decoding: csv, as: UTF8.self) == SocrataRow.csvHeader)
        var json: [UInt8] = []
        row.appendJSON(to: &json)
        let expected = "{" + SocrataRow.columns.map { "\"\($0)\":\"\($0)\"" }.joined(separator: ",") + "}"
        #expect(String(decoding: json, as: UTF8.self) == expected)
    }

    @Test("values shared between rows never stand in for different bytes, in JSON and CSV")
    func repeatedValues() throws {
        // More distinct long values than a field keeps (32), values differing only in their last byte, a short
        // value, and bytes that are not UTF-8 next to the text they are repaired to.
        var values: [[UInt8]] = (0..<40).map { Array("47.5713768005371\($0 % 10)\($0 / 10)".utf8) }
        values.append(Array("Short".utf8))
        values.append(Array("47.5713768005371".utf8) + [0xFF])
        values.append(Array("47.5713768005371\u{FFFD}".utf8))
        var json: [UInt8] = []
        var csv: [UInt8] = Array("entityname,latitude,entityid,opendatetime\n".utf8)
        var expected: [String] = []
        for round in 0..<3 {
            for (index, value) in values.enumerated() {
                let name = values[(index + round) % values.count]
                json += Array(#"{"entityname":""#.utf8) + name + Array(#"","latitude":""#.utf8) + value
                    + Array(#"","entityid":"1","opendatetime":"t"}"#.utf8) + [0x0A]
                csv += name + [UInt8(ascii: ",")] + value + Array(",1,t\n".utf8)
                expected.append(String(decoding: name, as: UTF8.self))
                expected.append(String(decoding: value, as: UTF8.self))
            }
        }
        for isCSV in [false, true] {
            let rows = try Self.scanInChunks(isCSV ? csv : json, chunk: 4096, csv: isCSV).map(\.0)
            #expect(rows.count == values.count * 3)
            let read = rows.flatMap { [$0.entityname ?? "nil", $0.latitude ?? "nil"] }
            #expect(read == expected, "csv: \(isCSV)")
        }
    }

    @Test("resuming at a row's position reads exactly the rows after it")
    func resumeAtPosition() throws {
        var ndjson: [UInt8] = []
        for row in Self.awkward + Self.awkward {
            row.appendJSON(to: &ndjson)
            ndjson.append(0x0A)
        }
        let all = try Self.scanInChunks(ndjson, chunk: 5, csv: false)
        let rest = try Self.scanInChunks(Array(ndjson[Int(all[1].1.offset)...]), chunk: 5, csv: false)
        #expect(rest.map(\.0) == Array(all.dropFirst(2).map(\.0)))
    }

    @Test("resuming an array whose head was read to its end (a small file) continues after the row")
    func resumeSmallArray() throws {
        var array: [UInt8] = Array("[\n".utf8)
        for (index, row) in Self.awkward.enumerated() {
            if index > 0 { array += Array(",\n".utf8) }
            row.appendJSON(to: &array)
        }
        array += Array("\n]\n".utf8)
        let all = try Self.scanInChunks(array, chunk: array.count, csv: false, layout: .array)
        var scanner = SocrataJSONScanner(layout: .array)
        _ = try array.withUnsafeBufferPointer { try scanner.scan($0, isFinal: false) { _, _ in } } // the priming read
        scanner.resume(at: all[0].1)
        var rest: [SocrataRow] = []
        let tail = Array(array[Int(all[0].1.offset)...])
        _ = try tail.withUnsafeBufferPointer { try scanner.scan($0, isFinal: true) { row, _ in rest.append(row) } }
        #expect(rest == Array(Self.awkward.dropFirst()))
    }

    @Test("a UTF-8 byte-order mark at the very start is skipped at every chunk size; positions still count its bytes")
    func byteOrderMark() throws {
        var ndjson: [UInt8] = []
        var array: [UInt8] = Array("[".utf8)
        var csv: [UInt8] = Array(SocrataRow.csvHeader.utf8)
        for (index, row) in Self.awkward.enumerated() {
            row.appendJSON(to: &ndjson)
            ndjson.append(0x0A)
            if index > 0 { array += Array(",".utf8) }
            row.appendJSON(to: &array)
            row.appendCSV(to: &csv)
        }
        array += Array("]".utf8)
        let mark: [UInt8] = [0xEF, 0xBB, 0xBF]
        for (bytes, isCSV) in [(ndjson, false), (array, false), (csv, true)] {
            let plain = try Self.scanInChunks(bytes, chunk: bytes.count, csv: isCSV)
            #expect(plain.count == Self.awkward.count)
            for chunk in [1, 2, 3, 4, 64, bytes.count + 3] {
                let marked = try Self.scanInChunks(mark + bytes, chunk: chunk, csv: isCSV)
                #expect(marked.map(\.0) == plain.map(\.0), "chunk \(chunk)")
                #expect(marked.map(\.1) == plain.map { RowPosition(offset: $0.1.offset + 3, line: $0.1.line) }, "chunk \(chunk)")
            }
        }
        #expect(try Self.scanInChunks(mark, chunk: 1, csv: true).isEmpty)
        #expect(try Self.scanInChunks(mark, chunk: 1, csv: false, layout: .lines).isEmpty)
        // Only the start: a mark after the first byte, or half a mark, is input like any other.
        #expect(throws: RowSyntaxError.self) { try Self.scanInChunks([0x20] + mark + ndjson, chunk: 2, csv: false) }
        #expect(throws: RowSyntaxError.self) { try Self.scanInChunks([0xEF, 0xBB] + ndjson, chunk: 1, csv: false) }
        #expect(throws: RowSyntaxError.self) { try Self.scanInChunks(mark + mark + ndjson, chunk: 5, csv: false) }
    }

    @Test("CSV: the API's quoting, CRLF line ends, blank lines and unknown columns")
    func csvDetails() throws {
        let text = "\"entityid\",\"opendatetime\",\"extra\",\"minutesopen\"\r\n\"3\",\"2026-01-01T10:00:00.000\",\"a,b\",\r\n\r\n"
            + "\"6\",\"2026-01-02T10:00:00.000\",,\"\"\"7\"\"\""
        let rows = try Self.scanInChunks(Array(text.utf8), chunk: 4, csv: true)
        #expect(rows.count == 2)
        #expect(rows[0].0.entityid == "3")
        #expect(rows[0].0.minutesopen == nil)
        #expect(rows[1].0.minutesopen == "\"7\"")
        #expect(rows[1].1.line == 4)
    }

    @Test("malformed input fails with its line and what was wrong", arguments: [
        ("[{\"entityid\":\"3\"},", false, 1, "ends before the array's closing"),
        ("{\"entityid\":\"3\"}\n{\"entityid\":\"3\"\n", false, 2, "ends inside a row"),
        ("{\"entityid\":\"3\"}\n\n<html>503</html>", false, 3, "expected a row (a JSON object)"),
        ("{\"entityid\":\"3\",}", false, 1, "field name"),
        ("{\"entityid\":tru}", false, 1, "not a JSON value"),
        ("{\"entityid\":\"a\\qb\"}", false, 1, "unknown escape"),
        ("[{}] {}", false, 1, "after the end of the array"),
        ("\"entityid\",\"opendatetime\"\n\"3\",\"x\",\"y\"\n", true, 2, "3 fields where the header has 2"),
        ("\"name\",\"when\"\n", true, 1, "no entityid column"),
        ("\"entityid\",\"opendatetime\"\n\"3\",\"x\n", true, 2, "ends inside a quoted field"),
    ])
    func malformed(input: String, csv: Bool, line: Int, message: String) {
        do {
            _ = try Self.scanInChunks(Array(input.utf8), chunk: 3, csv: csv)
            Issue.record("accepted \(input)")
        } catch let error as RowSyntaxError {
            #expect(error.line == line, "\(error)")
            #expect(error.message.contains(message), "\(error)")
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test("an array is required where one is expected, and NDJSON refuses an array")
    func layouts() {
        #expect(throws: RowSyntaxError.self) { try SocrataJSONScanner.decodeArray(Data("{\"a\":\"b\"}".utf8)) }
        #expect(throws: RowSyntaxError.self) { try SocrataJSONScanner.decodeArray(Data()) }
        #expect(throws: RowSyntaxError.self) { try Self.scanInChunks(Array("[]".utf8), chunk: 2, csv: false, layout: .lines) }
    }
}
