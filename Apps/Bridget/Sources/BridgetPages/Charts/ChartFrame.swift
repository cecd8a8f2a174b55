import BridgetCharts
import BridgetCore
import Foundation

/// What every chart has: its element id, size, title and a summary in words (`<title>` and `<desc>`, which a screen
/// reader reads), a caption saying what it shows and from what, and, when there is nothing to draw, the message shown
/// instead. Numbers are already text: views only lay them out.
///
/// Chart text is `ChartText.fontSize` in the chart's own units. A chart scales with the page, so it is never drawn
/// narrower than keeps that text at `ChartText.minimumRenderedSize` on screen (on a phone a wider chart scrolls
/// inside its own box) nor wider than 1.25 times its size.
struct ChartFrame: Sendable {
    let id: String
    let width: String
    let height: String
    let title: String
    let summary: String
    /// `img`, or `group` for a chart whose marks are links (the map): an image's parts are not reachable.
    let role: String
    let minWidth: String
    let maxWidth: String
    /// Whether marks carry a `data-tip` a tap shows in the chart's readout.
    let hasTips: Bool
    /// What the chart shows and from what, under it.
    let caption: String?
    /// Set when the chart has nothing to draw: the message, in the middle.
    let empty: EmptyMessage?

    struct EmptyMessage: Sendable {
        let x: String
        let y: String
        let message: String
    }

    init(id: String, width: Double, height: Double, title: String, summary: String, caption: String? = nil,
         hasTips: Bool = true, role: String = "img") {
        self.id = id
        self.width = ChartPaths.number(width)
        self.height = ChartPaths.number(height)
        self.title = title
        self.summary = summary
        self.caption = caption
        self.hasTips = hasTips
        self.role = role
        (minWidth, maxWidth) = Self.widths(width)
        empty = nil
    }

    /// A frame with `message` in place of a chart.
    init(id: String, width: Double, height: Double, title: String, emptyMessage message: String) {
        self.id = id
        self.width = ChartPaths.number(width)
        self.height = ChartPaths.number(height)
        self.title = title
        summary = message
        caption = nil
        hasTips = false
        role = "img"
        (minWidth, maxWidth) = Self.widths(width)
        empty = EmptyMessage(x: ChartPaths.number(width / 2), y: ChartPaths.number(height / 2), message: message)
    }

    /// The narrowest and widest a chart `width` units wide is drawn, in CSS pixels.
    static func widths(_ width: Double) -> (String, String) {
        let narrowest = (width * ChartText.minimumRenderedSize / ChartText.fontSize).rounded(.up) + 1
        return (ChartPaths.number(narrowest), ChartPaths.number((width * 1.25).rounded()))
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

/// A text label at a point (a tick's, or an axis's title).
struct PlacedLabel: Sendable {
    let x: String
    let y: String
    let text: String
    let anchor: String
}

/// How charts write numbers and chances in words.
enum ChartText {
    /// The size of every chart's text, in the chart's units (the `.tick`, `.label`, `.axis-title` classes).
    static let fontSize = 12.0
    /// The smallest a chart's text may be drawn on screen, in CSS pixels.
    static let minimumRenderedSize = 11.0
    /// About how wide a character of chart text is (12 px system sans-serif; digits are 0.55 em).
    static let characterWidth = 7.0

    static let weekdays = LocalDay.weekdayNames

    static func percent(_ chance: Double) -> String {
        guard chance.isFinite else { return "–" }
        let value = chance * 100
        return value > 0 && value < 1 ? "under 1%" : String(format: "%.0f%%", value)
    }

    static func number(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(format: "%.2f", value)
    }

    /// The one colour scale of every page: a chance of an opening, from the lightest blue at 0% to the darkest at
    /// 50% or more (one hue from light to dark reads alike to colour-blind eyes and in grey). Strips, the heatmap
    /// and the map use it, each over its own stretch of time, which its key names.
    static func chanceFill(_ chance: Double) -> String {
        ChartPalette.lightToDark(chance.isFinite ? chance * 2 : 0)
    }

    /// The y axis of `y` from `left` to `right`: about four round ticks, each a grid line and a label.
    static func yAxis(_ y: LinearScale, from left: Double, to right: Double) -> [AxisTick] {
        let step = LinearScale.tickStep(span: y.domain.upperBound - y.domain.lowerBound, count: 4)
        return y.ticks(count: 4).map { tick in
            let position = ChartPaths.number(y(tick))
            return AxisTick(x: ChartPaths.number(left - 4), y: position, label: ChartPaths.label(tick, step: step),
                            grid: "M\(ChartPaths.number(left)) \(position)H\(ChartPaths.number(right))")
        }
    }

    /// How many labels to skip so that labels about `characters` long, centred every `spacing` units, do not run
    /// into each other (`characterWidth` a character, with a gap of 8): label every `n`th.
    static func labelEvery(characters: Int, spacing: Double) -> Int {
        guard spacing > 0 else { return 1 }
        return max(1, Int(((Double(characters) * characterWidth + 8) / spacing).rounded(.up)))
    }
}
