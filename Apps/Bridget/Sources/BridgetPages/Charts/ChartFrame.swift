import BridgetCharts
import Foundation

/// What every chart has: its element id, size, title and a summary in words (`<title>` and `<desc>`, which a screen
/// reader reads), and, when there is nothing to draw, the message shown instead. Numbers are already text: views
/// only lay them out.
struct ChartFrame: Sendable {
    let id: String
    let width: String
    let height: String
    let title: String
    let summary: String
    /// Set when the chart has nothing to draw: the message, in the middle.
    let empty: EmptyMessage?

    struct EmptyMessage: Sendable {
        let x: String
        let y: String
        let message: String
    }

    init(id: String, width: Double, height: Double, title: String, summary: String) {
        self.id = id
        self.width = ChartPaths.number(width)
        self.height = ChartPaths.number(height)
        self.title = title
        self.summary = summary
        empty = nil
    }

    /// A frame with `message` in place of a chart.
    init(id: String, width: Double, height: Double, title: String, emptyMessage message: String) {
        self.id = id
        self.width = ChartPaths.number(width)
        self.height = ChartPaths.number(height)
        self.title = title
        summary = message
        empty = EmptyMessage(x: ChartPaths.number(width / 2), y: ChartPaths.number(height / 2), message: message)
    }
}

/// A tick of an axis: where, and its label.
struct AxisTick: Sendable {
    let x: String
    let y: String
    let label: String
    /// A grid line's path through the tick, if it has one.
    let grid: String?
}

/// A text label at a point.
struct PlacedLabel: Sendable {
    let x: String
    let y: String
    let text: String
    let anchor: String
}

/// How charts write numbers and chances in words.
enum ChartText {
    static let weekdays = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]

    static func percent(_ chance: Double) -> String {
        guard chance.isFinite else { return "–" }
        let value = chance * 100
        return value > 0 && value < 1 ? "under 1%" : String(format: "%.0f%%", value)
    }

    static func number(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(format: "%.2f", value)
    }

    /// The fill for `fraction` of the most: light for few, dark for many (cividis read backwards), so an empty
    /// cell's light grey sits beside the lightest colour.
    static func shade(_ fraction: Double) -> String { ChartPalette.sequential(1 - fraction) }

    /// The y axis of `y` from `left` to `right`: about four round ticks, each a grid line and a label.
    static func yAxis(_ y: LinearScale, from left: Double, to right: Double) -> [AxisTick] {
        let step = LinearScale.tickStep(span: y.domain.upperBound - y.domain.lowerBound, count: 4)
        return y.ticks(count: 4).map { tick in
            let position = ChartPaths.number(y(tick))
            return AxisTick(x: ChartPaths.number(left - 4), y: position, label: ChartPaths.label(tick, step: step),
                            grid: "M\(ChartPaths.number(left)) \(position)H\(ChartPaths.number(right))")
        }
    }

    /// How many labels to skip so that labels about `characters` long, centred every `spacing` pixels, do not run
    /// into each other (11 px text is about 6.2 px a character, with a gap of 8 px): label every `n`th.
    static func labelEvery(characters: Int, spacing: Double) -> Int {
        guard spacing > 0 else { return 1 }
        return max(1, Int(((Double(characters) * 6.2 + 8) / spacing).rounded(.up)))
    }
}
