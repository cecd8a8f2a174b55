import BridgetCharts

/// A strip of 15-minute slots, each a cell coloured by the chance of an opening in it, "now" marked.
struct StripChart: Sendable {
    struct Slot: Sendable {
        let x: String
        let width: String
        let height: String
        let fill: String
        let tip: String
    }

    struct Now: Sendable {
        let path: String
    }

    let frame: ChartFrame
    let slots: [Slot]
    let now: Now?

    static let size = (width: 480.0, height: 26.0)

    init(id: String, title: String, slots: [(label: String, chance: Double)], nowIndex: Int?) {
        let (width, height) = Self.size
        guard !slots.isEmpty else {
            frame = ChartFrame(id: id, width: width, height: height, title: title, emptyMessage: "no forecast")
            self.slots = []
            now = nil
            return
        }
        let band = BandScale(count: slots.count, from: 0, to: width)
        self.slots = slots.enumerated().map { index, slot in
            Slot(x: ChartPaths.number(band.position(index)), width: ChartPaths.number(max(band.bandwidth - 0.5, 0.5)),
                 height: ChartPaths.number(height - 6), fill: ChartText.shade(min(slot.chance * 2, 1)),
                 tip: "\(slot.label): \(ChartText.percent(slot.chance)) chance of an opening")
        }
        now = nowIndex.flatMap { index in
            index < slots.count
                ? Now(path: "M\(ChartPaths.number(band.position(index) + 1)) 0V\(ChartPaths.number(height))") : nil
        }
        let peak = slots.enumerated().max { $0.element.chance < $1.element.chance }
        let summary = "Chance of an opening in each of \(slots.count) 15-minute slots"
            + (peak.map { "; highest \(ChartText.percent($0.element.chance)) at \($0.element.label)" } ?? "") + "."
        frame = ChartFrame(id: id, width: width, height: height, title: title, summary: summary)
    }

    /// A strip with `message` in place of the slots.
    init(empty id: String, title: String, message: String) {
        frame = ChartFrame(id: id, width: Self.size.width, height: Self.size.height, title: title, emptyMessage: message)
        slots = []
        now = nil
    }
}
