import BridgetCharts

/// A strip of 15-minute slots, each a cell coloured by the chance of an opening in it, "now" marked, with a time axis
/// under it (a tick every 3 hours).
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

    struct Tick: Sendable {
        let x: String
        let y: String
        let text: String
        let anchor: String
        let grid: String
    }

    let frame: ChartFrame
    let slots: [Slot]
    let ticks: [Tick]
    let now: Now?

    static let size = (width: 380.0, height: 44.0)
    static let band = 24.0

    init(id: String, title: String, slots: [(label: String, chance: Double)], nowIndex: Int?) {
        let (width, height) = Self.size
        guard !slots.isEmpty else {
            frame = ChartFrame(id: id, width: width, height: height, title: title, emptyMessage: "no forecast")
            (self.slots, ticks, now) = ([], [], nil)
            return
        }
        let band = BandScale(count: slots.count, from: 1, to: width - 1)
        self.slots = slots.enumerated().map { index, slot in
            Slot(x: ChartPaths.number(band.position(index)), width: ChartPaths.number(max(band.bandwidth - 0.5, 0.5)),
                 height: ChartPaths.number(Self.band), fill: ChartText.chanceFill(slot.chance),
                 tip: "\(slot.label): \(ChartText.percent(slot.chance)) chance of an opening")
        }
        // A tick at the start of every 3 hours; the first at the left edge, the others centred on their line.
        ticks = stride(from: 0, to: slots.count, by: 12).map { index in
            let x = band.position(index)
            return Tick(x: ChartPaths.number(x), y: ChartPaths.number(height - 4),
                        text: slots[index].label, anchor: index == 0 ? "start" : "middle",
                        grid: "M\(ChartPaths.number(x)) \(ChartPaths.number(Self.band))V\(ChartPaths.number(Self.band + 5))")
        }
        now = nowIndex.flatMap { index in
            index < slots.count
                ? Now(path: "M\(ChartPaths.number(band.position(index) + 1)) 0V\(ChartPaths.number(Self.band + 5))")
                : nil
        }
        let peak = slots.enumerated().max { $0.element.chance < $1.element.chance }
        let summary = "Chance of an opening in each of \(slots.count) 15-minute slots"
            + (peak.map { "; highest \(ChartText.percent($0.element.chance)) at \($0.element.label)" } ?? "") + "."
        frame = ChartFrame(id: id, width: width, height: height, title: title, summary: summary)
    }

    /// A strip with `message` in place of the slots.
    init(empty id: String, title: String, message: String) {
        frame = ChartFrame(id: id, width: Self.size.width, height: Self.size.height, title: title, emptyMessage: message)
        (slots, ticks, now) = ([], [], nil)
    }
}
