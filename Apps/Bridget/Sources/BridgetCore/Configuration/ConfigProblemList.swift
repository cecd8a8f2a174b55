/// The problems found in a configuration: the first few in full, the rest only counted.
///
/// A file of 400,000 unknown keys must not print 400,000 lines, nor spend time building messages nobody reads.
package struct ConfigProblemList: Sendable {
    /// How many problems are written out.
    package static let shownLimit = 20

    private(set) var shown: [String] = []
    private(set) var count = 0
    /// The sections whose valid keys a problem already listed.
    private var listed: Set<String> = []

    package var isEmpty: Bool { count == 0 }

    /// Records a problem; its message is built only while fewer than `shownLimit` are kept.
    package mutating func add(_ message: () -> String) {
        count += 1
        if shown.count < Self.shownLimit { shown.append(message()) }
    }

    /// Records a problem.
    package mutating func add(_ message: @autoclosure () -> String) {
        add(message)
    }

    /// True the first time it is asked about `section`: the valid keys of a section are listed once, not on each
    /// unknown key's line.
    package mutating func firstMention(of section: String) -> Bool { listed.insert(section).inserted }

    /// One indented line per shown problem, then how many more there are.
    package var report: String {
        var lines = shown.map { "  " + $0 }
        if count > shown.count { lines.append("  … and \(count - shown.count) more") }
        return lines.joined(separator: "\n")
    }
}
