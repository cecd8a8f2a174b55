import BridgetDTOs
import Yams

extension ConfigurationLoader {
    /// The error for YAML that does not parse: where, what, and the lines around it, never the whole file (Yams'
    /// own description of a duplicate key holds the entire text).
    package static func malformed(_ error: YamlError, yaml: String, origin: String) -> BridgetError {
        let hint = "`bridget config show` lists every key, its type and its default"
        switch error {
        case .scanner(_, let problem, let mark, _), .parser(_, let problem, let mark, _),
             .composer(_, let problem, let mark, _):
            return BridgetError(.configMalformedYAML, "\(origin): malformed YAML: line \(mark.line), column \(mark.column): "
                    + ConfigValueType.escaped(problem, limit: 200) + "\n" + excerpt(of: yaml, around: mark.line))
        case .duplicatedKeysInMapping(let duplicates, let context):
            // Yams names the first of the duplicated keys (in sorted order) and where it first appears.
            let name = duplicates.first ?? "?"
            let first = context.mark.line
            let others = duplicates.dropFirst()
            let more = others.isEmpty ? ""
                : "; also repeated: " + others.prefix(5).map(ConfigValueType.quoted).joined(separator: ", ")
                    + (others.count > 5 ? ", …" : "")
            let message: String
            let line: Int
            if let again = repeatedLine(of: name, in: yaml, firstAt: first, column: context.mark.column) {
                line = again
                message = "\(origin):\(again): duplicate key \(ConfigValueType.quoted(name)) (first at line \(first))"
            } else {
                line = first
                message = "\(origin):\(first): duplicate key \(ConfigValueType.quoted(name)) in this mapping"
            }
            return BridgetError(.configDuplicateKey, message + more + "\n" + excerpt(of: yaml, around: line),
                                              hint: hint)
        case .reader(let problem, _, _, _):
            return BridgetError(.configMalformedYAML, "\(origin): malformed YAML: "
                + ConfigValueType.escaped(problem, limit: 200))
        default:
            return BridgetError(.configMalformedYAML, "\(origin): malformed YAML: "
                + ConfigValueType.escaped(String(describing: error), limit: 200))
        }
    }

    /// Lines `line - 2` to `line + 1`, numbered, the named one marked with `>`, each cut after 100 characters.
    package static func excerpt(of yaml: String, around line: Int) -> String {
        let firstShown = max(1, line - 2)
        // Split no further than needed: the rest of a large file stays one piece.
        let lines = yaml.utf8.split(separator: UInt8(ascii: "\n"), maxSplits: line + 1, omittingEmptySubsequences: false)
        guard firstShown <= lines.count else { return "" }
        let shown = lines[(firstShown - 1)..<min(lines.count, line + 1)]
        let width = String(firstShown + shown.count - 1).count
        return shown.enumerated().map { index, bytes in
            let number = String(firstShown + index)
            let text = ConfigValueType.escaped(String(decoding: bytes, as: UTF8.self), limit: 100)
            return (firstShown + index == line ? "  > " : "    ") + String(repeating: " ", count: width - number.count)
                + number + " | " + text
        }.joined(separator: "\n")
    }

    /// The line where a key first seen at `first` (its name starting at `column`) is given again in the same
    /// block mapping: the next line at that indentation that starts with the name and a colon, before the mapping
    /// ends (a line indented less). `nil` when not found that way (a flow mapping, a quoted key spelt differently).
    package static func repeatedLine(of name: String, in yaml: String, firstAt first: Int, column: Int) -> Int? {
        let indent = column - 1
        let spellings = [name, "\"\(name)\"", "'\(name)'"].map { Array($0.utf8) }
        var number = 0
        for line in yaml.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            number += 1
            guard number > first else { continue }
            let spaces = line.prefix { $0 == UInt8(ascii: " ") }.count
            let rest = line.dropFirst(spaces)
            guard let lead = rest.first, lead != UInt8(ascii: "#"), lead != UInt8(ascii: "\r") else { continue }
            if spaces < indent { return nil }
            guard spaces == indent else { continue }
            for spelling in spellings where rest.starts(with: spelling) {
                let after = rest.dropFirst(spelling.count).drop { $0 == UInt8(ascii: " ") }
                if after.first == UInt8(ascii: ":") { return number }
            }
        }
        return nil
    }
}
