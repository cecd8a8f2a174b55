import BridgetDTOs
import Foundation

/// Incremental reader of Socrata rows in CSV (RFC 4180, the API's `.csv` layout): a header naming the columns,
/// then one record per row; quoted fields may hold commas, doubled quotes and line breaks.
///
/// An empty unquoted field is a missing value (`nil`, as the API omits nulls); a quoted empty field is an empty
/// string. Columns the header does not know are skipped. A UTF-8 byte-order mark opening the input (a spreadsheet's
/// "CSV UTF-8") is skipped.
public struct SocrataCSVScanner: Sendable {
    private var columns: [SocrataField?]?
    private var base: Int64 = 0
    private var line = 1
    private var repeated = RepeatedValues()

    public init() {}

    /// Continues reading at a row's position, as after a checkpoint. Call it after this scanner has read the
    /// header, then pass the bytes from `position.offset`.
    public mutating func resume(at position: RowPosition) {
        base = position.offset
        line = position.line + 1
    }

    /// Like `SocrataJSONScanner.scan`: reads every complete record in `bytes`, returns the bytes consumed.
    public mutating func scan(
        _ bytes: UnsafeBufferPointer<UInt8>, isFinal: Bool, row body: (SocrataRow, RowPosition) throws -> Void
    ) throws -> Int {
        var index = 0
        if columns == nil, base == 0 { // the input's first bytes
            guard let mark = ByteOrderMark.length(at: bytes, isFinal: isFinal) else { return 0 }
            index = mark
        }
        var fields: [(value: Range<Int>, quoted: Bool, escaped: Bool)] = []
        while index < bytes.count {
            let recordStart = index
            let lineAtStart = line
            fields.removeAll(keepingCapacity: true)
            let end: Int?
            do {
                end = try record(bytes, from: index, isFinal: isFinal, into: &fields)
            } catch let error as RowSyntaxError {
                throw RowSyntaxError(line: lineAtStart, message: error.message)
            }
            guard let next = end else {
                line = lineAtStart
                base += Int64(recordStart)
                return recordStart
            }
            index = next
            if fields.count == 1, fields[0].value.isEmpty, !fields[0].quoted { continue } // a blank line
            guard let columns else {
                columns = fields.map { SocrataField(UnsafeBufferPointer(rebasing: bytes[$0.value])) }
                for required in ["entityid", "opendatetime"] where !fields.contains(where: {
                    String(decoding: UnsafeBufferPointer(rebasing: bytes[$0.value]), as: UTF8.self) == required
                }) {
                    throw RowSyntaxError(line: lineAtStart, message: "the CSV header has no \(required) column")
                }
                continue
            }
            guard fields.count == columns.count else {
                throw RowSyntaxError(
                    line: lineAtStart, message: "\(fields.count) fields where the header has \(columns.count)")
            }
            var row = SocrataRow(entitytype: nil, entityname: nil, entityid: nil, opendatetime: nil,
                                 closedatetime: nil, minutesopen: nil, latitude: nil, longitude: nil)
            for (column, field) in zip(columns, fields) {
                guard let column else { continue }
                if field.value.isEmpty, !field.quoted { continue }
                let content = UnsafeBufferPointer(rebasing: bytes[field.value])
                row[column] = (field.escaped
                    ? String(decoding: content, as: UTF8.self).replacingOccurrences(of: "\"\"", with: "\"")
                    : repeated.string(content, for: column))
            }
            try body(row, RowPosition(offset: base + Int64(index), line: line - 1))
        }
        base += Int64(bytes.count)
        return bytes.count
    }

    /// Reads one record's field ranges; returns the index after its line break, or `nil` when the bytes end first.
    private mutating func record(
        _ bytes: UnsafeBufferPointer<UInt8>, from start: Int, isFinal: Bool,
        into fields: inout [(value: Range<Int>, quoted: Bool, escaped: Bool)]
    ) throws -> Int? {
        var index = start
        let count = bytes.count
        while true {
            if index < count, bytes[index] == UInt8(ascii: "\"") {
                var cursor = index + 1
                var escaped = false
                while true {
                    guard cursor < count else {
                        if isFinal { throw RowSyntaxError(line: line, message: "the input ends inside a quoted field") }
                        return nil
                    }
                    let byte = bytes[cursor]
                    if byte == UInt8(ascii: "\"") {
                        if cursor + 1 < count, bytes[cursor + 1] == UInt8(ascii: "\"") {
                            escaped = true
                            cursor += 2
                            continue
                        }
                        if cursor + 1 == count, !isFinal { return nil } // a doubled quote may follow
                        break
                    }
                    if byte == 0x0A { line += 1 }
                    cursor += 1
                }
                fields.append((index + 1..<cursor, true, escaped))
                index = cursor + 1
            } else {
                let fieldStart = index
                while index < count, bytes[index] != UInt8(ascii: ","), bytes[index] != 0x0A { index += 1 }
                var fieldEnd = index
                if index < count || isFinal, fieldEnd > fieldStart, bytes[fieldEnd - 1] == 0x0D { fieldEnd -= 1 }
                fields.append((fieldStart..<fieldEnd, false, false))
            }
            guard index < count else {
                if !isFinal { return nil }
                line += 1
                return index
            }
            switch bytes[index] {
            case UInt8(ascii: ","): index += 1
            case 0x0A:
                line += 1
                return index + 1
            case 0x0D where index + 1 < count && bytes[index + 1] == 0x0A:
                line += 1
                return index + 2
            case 0x0D where index + 1 == count && !isFinal:
                return nil
            default:
                throw RowSyntaxError(line: line, message: "unexpected text after a quoted field")
            }
        }
    }
}

extension SocrataRow {
    /// The row exported from a stored event: the API's fields and string forms (`minutesopen` as an integer,
    /// coordinates as the shortest text that reads back to the same number, the timestamps as received).
    public init(event: BridgeEventDTO) {
        self.init(
            entitytype: "Bridge", entityname: event.bridgeName, entityid: event.bridgeID,
            opendatetime: event.openLocal, closedatetime: event.closeLocal,
            minutesopen: event.minutesOpen.map(String.init), latitude: event.latitude.map { "\($0)" },
            longitude: event.longitude.map { "\($0)" })
    }

    /// The API's CSV header line, with its line break.
    public static var csvHeader: String { columns.map { "\"\($0)\"" }.joined(separator: ",") + "\n" }

    /// Appends the row as one CSV record: present values quoted, missing values empty.
    public func appendCSV(to output: inout [UInt8]) {
        for field in SocrataField.allCases {
            if field.index > 0 { output.append(UInt8(ascii: ",")) }
            guard var value = self[field] else { continue }
            output.append(UInt8(ascii: "\""))
            value.withUTF8 { bytes in
                guard bytes.contains(UInt8(ascii: "\"")) else { return output.append(contentsOf: bytes) }
                for byte in bytes {
                    if byte == UInt8(ascii: "\"") { output.append(byte) }
                    output.append(byte)
                }
            }
            output.append(UInt8(ascii: "\""))
        }
        output.append(0x0A)
    }

    /// Appends the row as one JSON object, fields in the API's order, missing values omitted.
    public func appendJSON(to output: inout [UInt8]) {
        output.append(UInt8(ascii: "{"))
        var first = true
        for field in SocrataField.allCases {
            guard var value = self[field] else { continue }
            if !first { output.append(UInt8(ascii: ",")) }
            output.append(UInt8(ascii: "\""))
            first = false
            output.append(contentsOf: field.rawValue.utf8)
            output.append(contentsOf: "\":\"".utf8)
            value.withUTF8 { bytes in
                // Most values need no escape: copied whole, not byte by byte.
                guard bytes.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) else {
                    return output.append(contentsOf: bytes)
                }
                for byte in bytes {
                    switch byte {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                        output.append(UInt8(ascii: "\\"))
                        output.append(byte)
                    case 0x0A: output.append(contentsOf: "\\n".utf8)
                    case 0x0D: output.append(contentsOf: "\\r".utf8)
                    case 0x09: output.append(contentsOf: "\\t".utf8)
                    case 0..<0x20:
                        let hex = String(byte, radix: 16)
                        output.append(contentsOf: ("\\u" + String(repeating: "0", count: 4 - hex.count) + hex).utf8)
                    default: output.append(byte)
                    }
                }
            }
            output.append(UInt8(ascii: "\""))
        }
        output.append(UInt8(ascii: "}"))
    }
}
