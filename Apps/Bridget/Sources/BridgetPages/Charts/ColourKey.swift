/// A chart's colour key: what its colours measure, then a swatch for each with its words. Every chart of the pages
/// colours one thing, a chance of an opening (`ChartText.chanceFill`), so every key shows the same swatches; the
/// title says over which stretch of time the chance is.
struct ColourKey: Sendable {
    struct Swatch: Sendable {
        let fill: String
        let label: String
    }

    let id: String
    let title: String
    let swatches: [Swatch]

    init(id: String, title: String, entries: [(fill: String, label: String)]) {
        self.id = id
        self.title = title
        swatches = entries.map { Swatch(fill: $0.fill, label: $0.label) }
    }

    /// The key of chances of an opening `over` a stretch of time ("in each quarter hour"), 0% to 50% or more.
    static func chances(id: String, over stretch: String) -> ColourKey {
        let entries = [0.0, 0.1, 0.2, 0.3, 0.4, 0.5].map { chance in
            (fill: ChartText.chanceFill(chance), label: chance >= 0.5 ? "50% or more" : ChartText.percent(chance))
        }
        return ColourKey(id: id, title: "Colour: the chance of an opening " + stretch, entries: entries)
    }
}
