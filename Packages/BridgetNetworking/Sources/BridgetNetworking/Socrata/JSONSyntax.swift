import BridgetDTOs
import Foundation

/// A check that bytes are one well-formed JSON value (RFC 8259), without building it.
///
/// An HTTP client can tell a complete response from a truncated or garbled one before caching it, at the cost of a
/// single pass over the bytes: `JSONSerialization` builds every object and string only to throw them away, which
/// measured a quarter of a sync's time. The check is structural: strings may hold any bytes other than control
/// characters, so the UTF-8 encoding itself is left to whoever reads the strings.
public enum JSONSyntax {
    /// True when `data` holds exactly one JSON value (any kind, as with `.fragmentsAllowed`), with only whitespace
    /// around it, nested at most `maximumDepth` deep.
    public static func isValid(_ data: Data, maximumDepth: Int = 512) -> Bool {
        data.withUnsafeBytes { isValid(bytes: $0, maximumDepth: maximumDepth) }
    }

    /// True when `bytes` hold exactly one JSON value with only whitespace around it.
    public static func isValid(bytes: UnsafeRawBufferPointer, maximumDepth: Int = 512) -> Bool {
        var reader = Reader(bytes: bytes)
        return reader.document(maximumDepth: maximumDepth)
    }

    private struct Reader {
        let bytes: UnsafeRawBufferPointer
        var index = 0

        init(bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

        /// Reads the document, keeping the open containers on a stack instead of recursing, so depth costs no stack.
        mutating func document(maximumDepth: Int) -> Bool {
            var open: [UInt8] = [] // `[` or `{`, innermost last
            while true {
                // A value is expected here.
                skipWhitespace()
                guard let byte = peek() else { return false }
                switch byte {
                case UInt8(ascii: "["), UInt8(ascii: "{"):
                    index += 1
                    skipWhitespace()
                    let close = byte == UInt8(ascii: "[") ? UInt8(ascii: "]") : UInt8(ascii: "}")
                    if peek() == close {
                        index += 1 // an empty container is a complete value
                    } else {
                        guard open.count < maximumDepth else { return false }
                        open.append(byte)
                        if byte == UInt8(ascii: "{"), !member() { return false }
                        continue
                    }
                case UInt8(ascii: "\""):
                    guard string() else { return false }
                case UInt8(ascii: "t"):
                    guard literal("true") else { return false }
                case UInt8(ascii: "f"):
                    guard literal("false") else { return false }
                case UInt8(ascii: "n"):
                    guard literal("null") else { return false }
                default:
                    guard number() else { return false }
                }
                // A value ended: close containers until one continues with a comma.
                while true {
                    skipWhitespace()
                    guard let container = open.last else { return index == bytes.count }
                    guard let byte = peek() else { return false }
                    index += 1
                    if byte == UInt8(ascii: ",") {
                        if container == UInt8(ascii: "{"), !member() { return false }
                        break
                    }
                    let close = container == UInt8(ascii: "[") ? UInt8(ascii: "]") : UInt8(ascii: "}")
                    guard byte == close else { return false }
                    open.removeLast()
                }
            }
        }

        /// An object member's `"name" :`, leaving the reader before its value.
        private mutating func member() -> Bool {
            skipWhitespace()
            guard peek() == UInt8(ascii: "\""), string() else { return false }
            skipWhitespace()
            guard peek() == UInt8(ascii: ":") else { return false }
            index += 1
            return true
        }

        private func peek() -> UInt8? { index < bytes.count ? bytes[index] : nil }

        private mutating func skipWhitespace() {
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x0A, 0x0D, 0x09: index += 1
                default: return
                }
            }
        }

        private mutating func string() -> Bool {
            index += 1 // the opening quote
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                if byte == UInt8(ascii: "\"") { return true }
                if byte < 0x20 { return false }
                guard byte == UInt8(ascii: "\\") else { continue }
                guard let escaped = peek() else { return false }
                index += 1
                switch escaped {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                     UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    continue
                case UInt8(ascii: "u"):
                    for _ in 0..<4 {
                        guard let hex = peek(), hex.isHexDigit else { return false }
                        index += 1
                    }
                default:
                    return false
                }
            }
            return false
        }

        private mutating func literal(_ word: StaticString) -> Bool {
            let count = word.utf8CodeUnitCount
            guard bytes.count - index >= count else { return false }
            for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] { return false }
            index += count
            return true
        }

        /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`
        private mutating func number() -> Bool {
            if peek() == UInt8(ascii: "-") { index += 1 }
            guard let first = peek(), first.isDigit else { return false }
            index += 1
            if first != UInt8(ascii: "0") { digits() }
            if peek() == UInt8(ascii: ".") {
                index += 1
                guard digits() > 0 else { return false }
            }
            if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
                index += 1
                if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { index += 1 }
                guard digits() > 0 else { return false }
            }
            return true
        }

        @discardableResult
        private mutating func digits() -> Int {
            let start = index
            while let byte = peek(), byte.isDigit { index += 1 }
            return index - start
        }
    }
}

private extension UInt8 {
    var isDigit: Bool { self >= UInt8(ascii: "0") && self <= UInt8(ascii: "9") }
    var isHexDigit: Bool {
        isDigit || (self >= UInt8(ascii: "a") && self <= UInt8(ascii: "f"))
            || (self >= UInt8(ascii: "A") && self <= UInt8(ascii: "F"))
    }
}
