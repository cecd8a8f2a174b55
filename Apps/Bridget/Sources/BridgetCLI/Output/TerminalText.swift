import Foundation

extension String {
    /// The text with every character a terminal would act on made visible: C0 and C1 control characters (ESC, CR,
    /// LF, BEL, backspace, …) and DEL as `\e`, `\r`, `\n`, `\t` or `\u{9B}`, and the bidirectional overrides that
    /// reorder what is shown. Data (a bridge's name from the source, a route's name) goes through this before any
    /// table or message line, so it cannot colour, retitle, clear or rewrite the user's terminal; JSON and CSV carry
    /// the text exactly.
    var terminalSafe: String {
        guard unicodeScalars.contains(where: Self.isUnsafe) else { return self }
        var result = ""
        result.reserveCapacity(utf8.count + 8)
        for scalar in unicodeScalars {
            guard Self.isUnsafe(scalar) else {
                result.unicodeScalars.append(scalar)
                continue
            }
            switch scalar {
            case "\u{1B}": result += "\\e"
            case "\r": result += "\\r"
            case "\n": result += "\\n"
            case "\t": result += "\\t"
            default: result += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            }
        }
        return result
    }

    /// Lines of text for a terminal: each line made safe, the line breaks between them kept.
    var terminalSafeLines: String {
        split(separator: "\n", omittingEmptySubsequences: false).map { String($0).terminalSafe }.joined(separator: "\n")
    }

    private static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: true // C0, DEL, C1 (CSI 0x9B, OSC 0x9D included)
        case 0x202A...0x202E, 0x2066...0x2069: true // bidirectional embeddings, overrides and isolates
        default: false
        }
    }
}
