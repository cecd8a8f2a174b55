import BridgetCharts

/// Vertical bars with a y axis of round ticks and both axes titled; the labels under the bars are thinned so none
/// runs into the next. A bar for a partial period (a month the history starts or ends in) is drawn pale and dashed,
/// and its tip says so, so a short month does not read as a collapse.
struct BarChart: Sendable {
    struct Bar: Sendable {
        let x: String
        let y: String
        let width: String
        let height: String
        let partial: Bool
        let tip: String
        /// The whole column, for a finger to tap.
        let hitY: String
        let hitHeight: String
    }

    let frame: ChartFrame
    let ticks: [AxisTick]
    let bars: [Bar]
    let labels: [PlacedLabel]
    let axisTitles: [PlacedLabel]

    /// Bars of `values` in `unit`; `partial` holds the indices of partial periods (with the words their tips add);
    /// `xTitle` and `yTitle` title the axes; `caption` says what the chart shows and from what.
    init(id: String, title: String, unit: String, values: [(label: String, value: Double)],
         partial: [Int: String] = [:], xTitle: String, yTitle: String, caption: String? = nil) {
        let (width, height, left, bottom, top) = (380.0, 204.0, 44.0, 42.0, 24.0)
        guard values.contains(where: { $0.value > 0 }) else {
            frame = ChartFrame(id: id, width: width, height: height, title: title, emptyMessage: "no openings on record")
            (ticks, bars, labels, axisTitles) = ([], [], [], [])
            return
        }
        let y = LinearScale(covering: values.map(\.value), from: height - bottom, to: top, includingZero: true, tickCount: 4)
        let x = BandScale(count: values.count, from: left, to: width - 4, padding: 0.15)
        ticks = ChartText.yAxis(y, from: left, to: width - 4)
        bars = values.enumerated().map { index, item in
            let barTop = y(item.value)
            return Bar(x: ChartPaths.number(x.position(index)), y: ChartPaths.number(barTop),
                       width: ChartPaths.number(x.bandwidth), height: ChartPaths.number(max(y(0) - barTop, 0)),
                       partial: partial[index] != nil,
                       tip: "\(item.label): \(ChartText.number(item.value)) \(unit)"
                        + (partial[index].map { " (\($0))" } ?? ""),
                       hitY: ChartPaths.number(top), hitHeight: ChartPaths.number(y(0) - top))
        }
        let every = ChartText.labelEvery(characters: values.map(\.label.count).max() ?? 0, spacing: x.step)
        labels = values.enumerated().filter { $0.offset % every == 0 }.map { index, item in
            PlacedLabel(x: ChartPaths.number(x.center(index)), y: ChartPaths.number(height - bottom + 21), text: item.label,
                        anchor: "middle")
        }
        axisTitles = [
            PlacedLabel(x: "4", y: "13", text: yTitle, anchor: "start"),
            PlacedLabel(x: ChartPaths.number((left + width) / 2), y: ChartPaths.number(height - 4), text: xTitle,
                        anchor: "middle"),
        ]
        let most = values.max { $0.value < $1.value }
        frame = ChartFrame(id: id, width: width, height: height, title: title,
                           summary: "\(values.count) bars of \(unit)"
                            + (most.map { "; the most, \(ChartText.number($0.value)), in \($0.label)" } ?? "") + ".",
                           caption: caption)
    }
}
