import BridgetDTOs
import Foundation

/// Where a row's text ended in its input, so a reader can checkpoint after it.
public struct RowPosition: Sendable, Equatable {
    /// Bytes from the start of the input to just after the row.
    public var offset: Int64
    /// The 1-based line the row ended on.
    public var line: Int

    public init(offset: Int64, line: Int) {
        self.offset = offset
        self.line = line
    }
}

/// The UTF-8 byte-order mark some editors and spreadsheets write at the start of a file: not part of the rows.
enum ByteOrderMark {
    /// How many bytes of a mark open an input's first bytes: 3 for a mark, 0 for none; `nil` when the bytes end
    /// inside what may be one, so the scanner waits for more input.
    static func length(at start: UnsafeBufferPointer<UInt8>, isFinal: Bool) -> Int? {
        let mark: (UInt8, UInt8, UInt8) = (0xEF, 0xBB, 0xBF)
        switch start.count {
        case 0: return isFinal ? 0 : nil
        case 1: return start[0] != mark.0 ? 0 : isFinal ? 0 : nil
        case 2: return start[0] != mark.0 || start[1] != mark.1 ? 0 : isFinal ? 0 : nil
        default: return start[0] == mark.0 && start[1] == mark.1 && start[2] == mark.2 ? 3 : 0
        }
    }
}

/// Input that is not well-formed: names the line and what was expected.
public struct RowSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    public var line: Int
    public var message: String

    public init(line: Int, message: String) {
        self.line = line
        self.message = message
    }

    public var description: String { "line \(line): \(message)" }
}

/// Incremental reader of Socrata rows in JSON: one array of rows (a page, or `export --format json`) or
/// newline-delimited objects (NDJSON). Feed it chunks of any size; it hands back each complete row with the
/// position after it, and keeps nothing but a few bytes of state between chunks.
///
/// A row is a flat object. String values are kept as they are; a number, `true` or `false` is kept as its text
/// (like the lenient `SocrataRow` decoder); `null` and missing fields are `nil`; unknown fields are skipped, whatever
/// their value. Judging the values is left to `EventValidator`. A UTF-8 byte-order mark opening the input is skipped.
public struct SocrataJSONScanner: Sendable {
    /// The layouts the scanner accepts.
    public enum Layout: Sendable {
        /// Exactly one JSON array of rows.
        case array
        /// Rows one after another, separated by whitespace (one per line in NDJSON).
        case lines
        /// Either, decided by the first byte.
        case either
    }

    private enum State: Sendable { case start, arrayFirst, arrayAfterRow, arrayNext, lines, done }

    private let layout: Layout
    private var state = State.start
    /// Bytes consumed by earlier `scan` calls.
    private var base: Int64 = 0
    /// The current line (1-based) at the consumed position.
    private var line = 1
    private var repeated = RepeatedValues()

    public init(layout: Layout) {
        self.layout = layout
    }

    /// Reads every complete row in `bytes` (which continue the bytes of earlier calls from where they were consumed)
    /// and returns how many bytes were consumed: the caller passes the rest again, followed by more input. With
    /// `isFinal`, the input ends here and anything incomplete is an error.
    public mutating func scan(
        _ bytes: UnsafeBufferPointer<UInt8>, isFinal: Bool, row body: (SocrataRow, RowPosition) throws -> Void
    ) throws -> Int {
        var index = 0
        let count = bytes.count
        if state == .start, base == 0 { // the input's first bytes
            guard let mark = ByteOrderMark.length(at: bytes, isFinal: isFinal) else { return 0 }
            index = mark
        }
        func skipWhitespace() {
            while index < count {
                switch bytes[index] {
                case 0x0A: line += 1; index += 1
                case 0x20, 0x09, 0x0D: index += 1
                default: return
                }
            }
        }
        func fail(_ message: String) -> RowSyntaxError { RowSyntaxError(line: line, message: message) }
        func found() -> String {
            guard index < count else { return "the end of the input" }
            let byte = bytes[index]
            return (0x21...0x7E).contains(byte) ? "'\(Character(Unicode.Scalar(byte)))'" : "byte \(byte)"
        }

        while true {
            skipWhitespace()
            guard index < count else { break }
            let byte = bytes[index]
            switch state {
            case .start:
                if byte == UInt8(ascii: "["), layout != .lines {
                    state = .arrayFirst
                    index += 1
                } else if byte == UInt8(ascii: "{"), layout != .array {
                    state = .lines
                } else {
                    throw fail(layout == .array ? "expected a JSON array of rows, found \(found())"
                                                : "expected a row (a JSON object), found \(found())")
                }
            case .arrayFirst where byte == UInt8(ascii: "]"), .arrayAfterRow where byte == UInt8(ascii: "]"):
                state = .done
                index += 1
            case .arrayAfterRow:
                guard byte == UInt8(ascii: ",") else { throw fail("expected ',' or ']' after a row, found \(found())") }
                state = .arrayNext
                index += 1
            case .arrayFirst, .arrayNext, .lines:
                guard byte == UInt8(ascii: "{") else { throw fail("expected a row (a JSON object), found \(found())") }
                var row = SocrataRow(entitytype: nil, entityname: nil, entityid: nil, opendatetime: nil,
                                     closedatetime: nil, minutesopen: nil, latitude: nil, longitude: nil)
                let end: Int?
                do {
                    end = try Self.parseObject(bytes, from: index, into: &row, repeated: &repeated)
                } catch let error as RowSyntaxError {
                    throw RowSyntaxError(line: line, message: error.message)
                }
                guard let end else { // the row goes on in the next chunk: it is read again from its start
                    if isFinal { throw fail("the input ends inside a row") }
                    base += Int64(index)
                    return index
                }
                index = end
                if state != .lines { state = .arrayAfterRow }
                try body(row, RowPosition(offset: base + Int64(index), line: line))
            case .done:
                throw fail("unexpected \(found()) after the end of the array")
            }
        }
        if isFinal, state == .arrayFirst || state == .arrayAfterRow || state == .arrayNext {
            throw fail("the input ends before the array's closing ']'")
        }
        if isFinal, state == .start, layout == .array { throw fail("the input is empty; expected a JSON array") }
        base += Int64(count)
        return count
    }

    /// Continues reading at a row's position, as after a checkpoint. Call it after this scanner has read the
    /// input's first bytes (so it knows whether the rows sit in an array), then pass the bytes from `position.offset`.
    public mutating func resume(at position: RowPosition) {
        base = position.offset
        line = position.line
        switch state {
        // A position is just after a row: inside the array, even if the head read to prime this scanner went on
        // to the array's end (a small file).
        case .arrayFirst, .arrayNext, .arrayAfterRow, .done: state = .arrayAfterRow
        case .start where layout == .array: state = .arrayAfterRow
        case .start, .lines: state = .lines
        }
    }

    /// Parses one whole JSON array of rows, such as a page from the API.
    public static func decodeArray(_ data: Data) throws -> [SocrataRow] {
        var scanner = SocrataJSONScanner(layout: .array)
        var rows: [SocrataRow] = []
        _ = try data.withUnsafeBytes { raw in
            try scanner.scan(raw.bindMemory(to: UInt8.self), isFinal: true) { row, _ in rows.append(row) }
        }
        return rows
    }

    /// The index just past the `}` closing the object that starts at `start`, or `nil` if the bytes end first.
    private static func endOfObject(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        var depth = 0
        var index = start
        var inString = false
        while index < bytes.count {
            let byte = bytes[index]
            if inString {
                if byte == UInt8(ascii: "\\") {
                    index += 1
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
            } else {
                switch byte {
                case UInt8(ascii: "\""): inString = true
                case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                    if depth == 0 { return index + 1 }
                default: break
                }
            }
            index += 1
        }
        return nil
    }

    /// Parses the object whose `{` is at `start` into `row`, in one pass; returns the index after its `}`, or `nil`
    /// when the bytes end first (the rest of the row is in input not read yet). Only a byte that is there and wrong
    /// is an error: a row cut short by the end of a chunk never is.
    private static func parseObject(
        _ bytes: UnsafeBufferPointer<UInt8>, from start: Int, into row: inout SocrataRow, repeated: inout RepeatedValues
    ) throws -> Int? {
        let count = bytes.count
        var index = start + 1
        func skipWhitespace() {
            while index < count, bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x0D || bytes[index] == 0x09 {
                index += 1
            }
        }
        func fail(_ message: String) -> RowSyntaxError { RowSyntaxError(line: 0, message: message) }
        skipWhitespace()
        guard index < count else { return nil }
        if bytes[index] == UInt8(ascii: "}") { return index + 1 }
        while true {
            guard index < count else { return nil }
            guard bytes[index] == UInt8(ascii: "\"") else { throw fail("expected a field name in a row") }
            guard let keyRange = try stringRange(bytes, from: index) else { return nil }
            let key = UnsafeBufferPointer(rebasing: bytes[keyRange.content])
            index = keyRange.next
            skipWhitespace()
            guard index < count else { return nil }
            guard bytes[index] == UInt8(ascii: ":") else { throw fail("expected ':' after a field name") }
            index += 1
            skipWhitespace()
            guard index < count else { return nil }
            let field = SocrataField(key)
            let value: String?
            switch bytes[index] {
            case UInt8(ascii: "\""):
                guard let range = try stringRange(bytes, from: index) else { return nil }
                let content = UnsafeBufferPointer(rebasing: bytes[range.content])
                if let field {
                    value = range.escaped ? try decodeString(content, escaped: true) : repeated.string(content, for: field)
                } else {
                    value = nil
                }
                index = range.next
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                guard field == nil else {
                    throw fail("the field \(String(decoding: key, as: UTF8.self)) holds an object or array, not a value")
                }
                guard let close = endOfObject(bytes, from: index) else { return nil }
                value = nil
                index = close
            default:
                let valueStart = index
                while index < count, !Self.endsBareValue(bytes[index]) { index += 1 }
                guard index < count else { return nil } // a number may go on in the next chunk
                let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[valueStart..<index]), as: UTF8.self)
                switch text {
                case "null": value = nil
                case "true", "false": value = text
                default:
                    guard Double(text) != nil else { throw fail("'\(text)' is not a JSON value") }
                    value = text
                }
            }
            if let field { row[field] = value }
            skipWhitespace()
            guard index < count else { return nil }
            switch bytes[index] {
            case UInt8(ascii: "}"): return index + 1
            case UInt8(ascii: ","):
                index += 1
                skipWhitespace()
            default: throw fail("expected ',' or '}' in a row")
            }
        }
    }

    private static func endsBareValue(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: ",") || byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]") || byte == 0x20
            || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    /// The string starting at the quote `from`: its content range, whether it holds escapes, and the index after it;
    /// `nil` when the bytes end before its closing quote.
    private static func stringRange(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) throws
        -> (content: Range<Int>, escaped: Bool, next: Int)?
    {
        var index = start + 1
        var escaped = false
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\""): return (start + 1..<index, escaped, index + 1)
            case UInt8(ascii: "\\"):
                escaped = true
                index += 2
            case 0..<0x20: throw RowSyntaxError(line: 0, message: "a control character inside a string")
            default: index += 1
            }
        }
        return nil
    }

    private static func decodeString(_ bytes: UnsafeBufferPointer<UInt8>, escaped: Bool) throws -> String {
        guard escaped else { return String(decoding: bytes, as: UTF8.self) }
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        func hex4(_ at: Int) throws -> UInt32 {
            guard at + 4 <= bytes.count else { throw RowSyntaxError(line: 0, message: "a \\u escape is cut short") }
            var value: UInt32 = 0
            for byte in bytes[at..<(at + 4)] {
                guard let digit = Character(Unicode.Scalar(byte)).hexDigitValue else {
                    throw RowSyntaxError(line: 0, message: "a \\u escape has a non-hex digit")
                }
                value = value * 16 + UInt32(digit)
            }
            return value
        }
        while index < bytes.count {
            let byte = bytes[index]
            guard byte == UInt8(ascii: "\\") else {
                output.append(byte)
                index += 1
                continue
            }
            guard index + 1 < bytes.count else { throw RowSyntaxError(line: 0, message: "a string ends in a backslash") }
            let kind = bytes[index + 1]
            index += 2
            switch kind {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): output.append(kind)
            case UInt8(ascii: "b"): output.append(0x08)
            case UInt8(ascii: "f"): output.append(0x0C)
            case UInt8(ascii: "n"): output.append(0x0A)
            case UInt8(ascii: "r"): output.append(0x0D)
            case UInt8(ascii: "t"): output.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try hex4(index)
                index += 4
                if (0xD800..<0xDC00).contains(scalar), index + 6 <= bytes.count, bytes[index] == UInt8(ascii: "\\"),
                   bytes[index + 1] == UInt8(ascii: "u") {
                    let low = try hex4(index + 2)
                    if (0xDC00..<0xE000).contains(low) {
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        index += 6
                    }
                }
                output.append(contentsOf: Array(String(Unicode.Scalar(scalar).map(Character.init) ?? "\u{FFFD}").utf8))
            default:
                throw RowSyntaxError(line: 0, message: "an unknown escape '\\\(Character(Unicode.Scalar(kind)))'")
            }
        }
        return String(decoding: output, as: UTF8.self)
    }
}

/// The strings a scanner has built for fields whose values repeat (a bridge's name and coordinates), so the next row
/// with the same bytes shares the string instead of allocating its own: two or three allocations a row fewer (the
/// coordinates, and the names longer than 15 bytes). Only values too long for Swift's inline small strings (15 bytes) are kept, at most `limit` per field.
struct RepeatedValues: Sendable {
    static let limit = 32
    private var known: [[String]] = Array(repeating: [], count: SocrataField.allCases.count)

    /// The string of `bytes` (UTF-8, repaired like `String(decoding:as:)`), shared with earlier rows when it repeats.
    mutating func string(_ bytes: UnsafeBufferPointer<UInt8>, for field: SocrataField) -> String {
        guard bytes.count > 15, field.repeats, let start = bytes.baseAddress else {
            return String(decoding: bytes, as: UTF8.self)
        }
        for candidate in known[field.index] where candidate.utf8.count == bytes.count {
            // Bytes that are not valid UTF-8 were repaired in the stored string, so they never match it. The
            // candidate has as many bytes as `bytes`, more than 15, so its storage has a base address.
            if candidate.utf8.withContiguousStorageIfAvailable({ memcmp($0.baseAddress!, start, bytes.count) == 0 })
                == true
            {
                return candidate
            }
        }
        let value = String(decoding: bytes, as: UTF8.self)
        if known[field.index].count < Self.limit { known[field.index].append(value) }
        return value
    }
}
