import BridgetDTOs
import Foundation

/// A 7×24 hour-of-week heatmap drawn with Unicode shading, and ANSI colour when the output is a terminal.
struct Heatmap: Sendable {
    /// Whether to colour the cells (never when piped or when `NO_COLOR` is set).
    let colored: Bool

    /// Shading from empty to the busiest hour, five steps.
    static let shades: [Character] = [" ", "░", "▒", "▓", "█"]
    /// ANSI 256-colour codes for the same steps (grey to deep blue).
    static let colors = [240, 153, 75, 33, 19]
    static let weekdays = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]

    /// Colour when standard output is a terminal and `NO_COLOR` is unset.
    static func forStandardOutput(environment: [String: String]) -> Heatmap {
        Heatmap(colored: isatty(STDOUT_FILENO) == 1 && environment["NO_COLOR"] == nil)
    }

    /// The step (0…4) of a count against the busiest count.
    static func level(_ count: Int, maximum: Int) -> Int {
        guard count > 0, maximum > 0 else { return 0 }
        return min(4, 1 + (count * 4 - 1) / maximum)
    }

    /// One bridge's map: a title, an hour ruler, seven rows of 24 two-character cells.
    func render(title: String, counts: [[Int]]) -> String {
        let maximum = counts.flatMap { $0 }.max() ?? 0
        var lines = [title]
        lines.append("     " + stride(from: 0, to: 24, by: 3).map { String(format: "%02d    ", $0) }.joined())
        for (index, row) in counts.enumerated() {
            let cells = row.map { count -> String in
                let step = Self.level(count, maximum: maximum)
                let glyph = String(repeating: Self.shades[step], count: 2)
                return colored && step > 0 ? "\u{1B}[38;5;\(Self.colors[step])m\(glyph)\u{1B}[0m" : glyph
            }
            lines.append(Self.weekdays[index] + "  " + cells.joined())
        }
        return lines.joined(separator: "\n")
    }

    /// The legend of the shading steps.
    func legend() -> String {
        let steps = (1...4).map { step -> String in
            let glyph = String(repeating: Self.shades[step], count: 2)
            let swatch = colored ? "\u{1B}[38;5;\(Self.colors[step])m\(glyph)\u{1B}[0m" : glyph
            return "\(swatch) ≤\(step * 25)%"
        }
        return "Legend: openings starting in that hour, against each bridge's busiest hour (blank: none): "
            + steps.joined(separator: "  ")
    }
}
