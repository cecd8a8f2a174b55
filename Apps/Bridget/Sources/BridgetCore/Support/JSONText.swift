import BridgetDTOs
import Foundation

/// An answer that writes its own JSON, byte for byte what `AnswerJSON`'s encoder makes of it (pretty-printed, keys
/// sorted by their bytes, ISO 8601 instants in whole seconds, slashes as they are), without the encoder's generic
/// machinery: the answers a server gives most (a page of events, a forecast) are written this way.
/// Members are written in sorted order by hand; a test holds every such answer to the encoder's bytes.
package protocol JSONTextWritable: Encodable {
    func write(to json: inout JSONText)
}

/// A JSON text being written, in the layout of `JSONEncoder`'s `[.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]`
/// with `.iso8601` dates: two spaces a level, `"key" : value`, an empty container as an opening line, an empty line
/// and its closing.
package struct JSONText {
    package private(set) var bytes: [UInt8] = []
    /// Whether each open container has a member yet, innermost last.
    private var filled: [Bool] = []
    /// A value that JSON cannot hold (a non-finite number) was written.
    package private(set) var invalid = false

    package init(capacity: Int = 1_024) { bytes.reserveCapacity(capacity) }

    /// Room for `count` more bytes, so a long answer is not copied as it grows.
    package mutating func reserve(_ count: Int) { bytes.reserveCapacity(bytes.count + count) }

    // MARK: Containers

    package mutating func object(_ members: (inout JSONText) -> Void) {
        open(UInt8(ascii: "{"))
        members(&self)
        close(UInt8(ascii: "}"))
    }

    package mutating func array<S: Sequence>(_ elements: S, _ write: (inout JSONText, S.Element) -> Void) {
        open(UInt8(ascii: "["))
        for element in elements {
            startMember()
            write(&self, element)
        }
        close(UInt8(ascii: "]"))
    }

    /// The member `key` of the object being written, its value written by `value`.
    package mutating func member(_ key: StaticString, _ value: (inout JSONText) -> Void) {
        startMember()
        bytes.append(UInt8(ascii: "\""))
        key.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: " "), UInt8(ascii: ":"), UInt8(ascii: " ")])
        value(&self)
    }

    // MARK: Members by type (an absent optional is left out, as the encoder's synthesized conformances do)

    package mutating func member(_ key: StaticString, _ value: String?) {
        guard let value else { return }
        member(key) { $0.string(value) }
    }

    package mutating func member(_ key: StaticString, _ value: Int?) {
        guard let value else { return }
        member(key) { $0.integer(value) }
    }

    package mutating func member(_ key: StaticString, _ value: Double?) {
        guard let value else { return }
        member(key) { $0.number(value) }
    }

    package mutating func member(_ key: StaticString, _ value: Date?) {
        guard let value else { return }
        member(key) { $0.instant(value) }
    }

    package mutating func member(_ key: StaticString, _ value: some JSONTextWritable) {
        member(key) { value.write(to: &$0) }
    }

    // MARK: Values

    package mutating func string(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { utf8 in
            var start = 0
            for index in utf8.indices {
                let byte = utf8[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                bytes.append(contentsOf: utf8[start..<index])
                start = index + 1
                bytes.append(UInt8(ascii: "\\"))
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(byte)
                case 0x0A: bytes.append(UInt8(ascii: "n"))
                case 0x0D: bytes.append(UInt8(ascii: "r"))
                case 0x09: bytes.append(UInt8(ascii: "t"))
                case 0x08: bytes.append(UInt8(ascii: "b"))
                case 0x0C: bytes.append(UInt8(ascii: "f"))
                default:
                    bytes.append(contentsOf: [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                                              Self.hex[Int(byte >> 4)], Self.hex[Int(byte & 0x0F)]])
                }
            }
            bytes.append(contentsOf: utf8[start...])
        }
        bytes.append(UInt8(ascii: "\""))
    }

    package mutating func integer(_ value: Int) {
        if value < 0 {
            bytes.append(UInt8(ascii: "-"))
            // The magnitude of Int.min does not fit an Int.
            digits(value.magnitude, 1)
        } else {
            digits(UInt(value), 1)
        }
    }

    /// A number as the encoder writes it: Swift's shortest round-tripping form, without a trailing `.0`. The last
    /// few are kept as text: a page of one bridge's openings repeats its coordinates in every event.
    package mutating func number(_ value: Double) {
        guard value.isFinite else {
            invalid = true
            return
        }
        let bits = value.bitPattern
        if let kept = recentNumbers.first(where: { $0.bits == bits }) {
            bytes.append(contentsOf: kept.text)
            return
        }
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        let written = Array(text.utf8)
        bytes.append(contentsOf: written)
        if recentNumbers.count < 4 { recentNumbers.append((bits, written)) } else {
            recentNumbers[nextNumberSlot] = (bits, written)
            nextNumberSlot = (nextNumberSlot + 1) % 4
        }
    }

    private var recentNumbers: [(bits: UInt64, text: [UInt8])] = []
    private var nextNumberSlot = 0

    /// An instant as ISO 8601 UTC in whole seconds (`2025-03-01T17:05:09Z`), the fraction dropped toward the past.
    package mutating func instant(_ date: Date) {
        let seconds = Int64(date.timeIntervalSince1970.rounded(.down))
        let (days, second) = seconds.quotientAndRemainder(dividingBy: 86_400)
        let day = second < 0 ? days - 1 : days
        let secondOfDay = second < 0 ? second + 86_400 : second
        let (year, month, dayOfMonth) = CivilCalendar.civilFromDays(Int(day))
        bytes.append(UInt8(ascii: "\""))
        digits(UInt(clamping: year), 4)
        bytes.append(UInt8(ascii: "-"))
        digits(UInt(month), 2)
        bytes.append(UInt8(ascii: "-"))
        digits(UInt(dayOfMonth), 2)
        bytes.append(UInt8(ascii: "T"))
        digits(UInt(secondOfDay / 3600), 2)
        bytes.append(UInt8(ascii: ":"))
        digits(UInt(secondOfDay / 60 % 60), 2)
        bytes.append(UInt8(ascii: ":"))
        digits(UInt(secondOfDay % 60), 2)
        bytes.append(contentsOf: [UInt8(ascii: "Z"), UInt8(ascii: "\"")])
    }

    // MARK: Layout

    private static let hex = Array("0123456789abcdef".utf8)

    private mutating func open(_ bracket: UInt8) {
        bytes.append(bracket)
        filled.append(false)
    }

    private mutating func close(_ bracket: UInt8) {
        let hadMembers = filled.removeLast()
        bytes.append(UInt8(ascii: "\n"))
        if !hadMembers { bytes.append(UInt8(ascii: "\n")) }
        indent(filled.count)
        bytes.append(bracket)
    }

    private mutating func startMember() {
        if filled[filled.count - 1] { bytes.append(UInt8(ascii: ",")) }
        filled[filled.count - 1] = true
        bytes.append(UInt8(ascii: "\n"))
        indent(filled.count)
    }

    private static let spaces = [UInt8](repeating: UInt8(ascii: " "), count: 64)

    private mutating func indent(_ level: Int) {
        var count = 2 * level
        while count > 0 {
            let step = min(count, Self.spaces.count)
            Self.spaces.withUnsafeBufferPointer { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: $0[0..<step])) }
            count -= step
        }
    }

    /// `value` in decimal, zero-padded to `width` digits.
    private mutating func digits(_ value: UInt, _ width: Int) {
        var count = 1
        var rest = value / 10
        while rest > 0 {
            count += 1
            rest /= 10
        }
        let length = max(count, width)
        let end = bytes.count + length
        bytes.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: length))
        var index = end - 1
        var left = value
        repeat {
            bytes[index] = UInt8(ascii: "0") + UInt8(left % 10)
            left /= 10
            index -= 1
        } while left > 0
    }
}
