import BridgetCharts

/// Vertical bars with a y axis of round ticks; the labels under the bars are thinned so none runs into the next.
struct BarChart: Sendable {
    struct Bar: Sendable {
        let x: String
        let y: String
        let width: String
        let height: String
        let tip: String
    }

    let frame: ChartFrame
    let ticks: [AxisTick]
    let bars: [Bar]
    let labels: [PlacedLabel]

    init(id: String, title: String, unit: String, values: [(label: String, value: Double)]) {
        let (width, height, left, bottom, top) = (600.0, 200.0, 46.0, 24.0, 8.0)
        guard values.contains(where: { $0.value > 0 }) else {
            frame = ChartFrame(id: id, width: width, height: height, title: title, emptyMessage: "no openings stored")
            ticks = []
            bars = []
            labels = []
            return
        }
        let y = LinearScale(covering: values.map(\.value), from: height - bottom, to: top, includingZero: true, tickCount: 4)
        let x = BandScale(count: values.count, from: left, to: width - 4, padding: 0.15)
        ticks = ChartText.yAxis(y, from: left, to: width - 4)
        bars = values.enumerated().map { index, item in
            let top = y(item.value)
            return Bar(x: ChartPaths.number(x.position(index)), y: ChartPaths.number(top),
                       width: ChartPaths.number(x.bandwidth), height: ChartPaths.number(max(y(0) - top, 0)),
                       tip: "\(item.label): \(ChartText.number(item.value)) \(unit)")
        }
        let every = ChartText.labelEvery(characters: values.map(\.label.count).max() ?? 0, spacing: x.step)
        labels = values.enumerated().filter { $0.offset % every == 0 }.map { index, item in
            PlacedLabel(x: ChartPaths.number(x.center(index)), y: ChartPaths.number(height - 6), text: item.label,
                        anchor: "middle")
        }
        let most = values.max { $0.value < $1.value }
        frame = ChartFrame(id: id, width: width, height: height, title: title,
                           summary: "\(values.count) bars of \(unit)"
                            + (most.map { "; the most, \(ChartText.number($0.value)), in \($0.label)" } ?? "") + ".")
    }
}
