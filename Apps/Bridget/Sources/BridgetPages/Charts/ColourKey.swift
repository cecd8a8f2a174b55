import BridgetCharts

/// A chart's colour key: a row of swatches, each with what its colour means.
struct ColourKey: Sendable {
    struct Swatch: Sendable {
        let x: String
        let fill: String
        let labelX: String
        let label: String
    }

    let id: String
    let title: String
    let width: String
    let swatches: [Swatch]

    init(id: String, title: String, entries: [(fill: String, label: String)]) {
        self.id = id
        self.title = title
        var x = 0.0
        var swatches: [Swatch] = []
        for entry in entries {
            swatches.append(Swatch(x: ChartPaths.number(x), fill: entry.fill, labelX: ChartPaths.number(x + 18),
                                   label: entry.label))
            x += 18 + Double(entry.label.count) * 6.2 + 14
        }
        self.swatches = swatches
        width = ChartPaths.number(max(x, 1))
    }

    /// The key of a map of counts up to `most`: none, then the palette's colour at a quarter, half, three quarters
    /// and all of the most, each with the count it stands for (the colours between shade continuously).
    static func counts(id: String, most: Int) -> ColourKey {
        guard most > 0 else {
            return ColourKey(id: id, title: "Colour key: openings in the hour", entries: [(ChartPalette.empty, "none")])
        }
        let steps = [0.25, 0.5, 0.75, 1.0].map { fraction in
            (fill: ChartText.shade(fraction),
             label: fraction == 1 ? "\(most), the most" : "\(Int((Double(most) * fraction).rounded()))")
        }
        return ColourKey(id: id, title: "Colour key: openings in the hour",
                         entries: [(ChartPalette.empty, "none")] + steps)
    }

    /// The key of chances of an opening, shaded to full at 50% and above (as the strips and the map shade them).
    static func chances(id: String) -> ColourKey {
        let entries = [0.0, 0.1, 0.2, 0.3, 0.4, 0.5].map { chance in
            (fill: ChartText.shade(min(chance * 2, 1)), label: chance >= 0.5 ? "50% or more" : ChartText.percent(chance))
        }
        return ColourKey(id: id, title: "Colour key: chance of an opening", entries: entries)
    }
}
