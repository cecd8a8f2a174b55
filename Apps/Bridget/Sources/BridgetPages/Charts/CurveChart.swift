import BridgetCharts

/// A line of values over labelled positions with both axes titled, the point at `marked` circled (a route's best
/// departure) and the run of positions that tie with it shaded.
struct CurveChart: Sendable {
    struct Point: Sendable {
        let cx: String
        let cy: String
        let tip: String
        /// The point's column, for a finger to tap.
        let hitX: String
        let hitY: String
        let hitWidth: String
        let hitHeight: String
    }

    struct Band: Sendable {
        let x: String
        let y: String
        let width: String
        let height: String
        let tip: String
    }

    let frame: ChartFrame
    let ticks: [AxisTick]
    let path: String
    let points: [Point]
    let labels: [PlacedLabel]
    let best: Point?
    let bestID: String
    let tied: [Band]
    let axisTitles: [PlacedLabel]

    /// `values` in `unit`; `marked` is circled; `tied` holds the index ranges that tie with it (each shaded);
    /// `xTitle` and `yTitle` title the axes.
    init(id: String, title: String, unit: String, points values: [(label: String, value: Double)], marked: Int?,
         tied: [ClosedRange<Int>] = [], xTitle: String, yTitle: String, caption: String? = nil) {
        let (width, height, left, bottom, top) = (380.0, 214.0, 44.0, 42.0, 24.0)
        bestID = id + "-best"
        guard !values.isEmpty else {
            frame = ChartFrame(id: id, width: width, height: height, title: title, emptyMessage: "no departures scored")
            (ticks, path, points, labels, best, self.tied, axisTitles) = ([], "", [], [], nil, [], [])
            return
        }
        let y = LinearScale(covering: values.map(\.value), from: height - bottom, to: top, includingZero: true, tickCount: 4)
        let x = LinearScale(domain: 0...Double(max(values.count - 1, 1)), from: left + 10, to: width - 22)
        ticks = ChartText.yAxis(y, from: left, to: width - 10)
        let coordinates = values.enumerated().map { (x: x(Double($0.offset)), y: y($0.element.value)) }
        path = ChartPaths.line(coordinates)
        let spacing = values.count > 1 ? (width - 22 - left - 10) / Double(values.count - 1) : width
        let plot = (top: y(y.domain.upperBound), bottom: y(y.domain.lowerBound))
        func point(_ index: Int, tip: String) -> Point {
            Point(cx: ChartPaths.number(coordinates[index].x), cy: ChartPaths.number(coordinates[index].y), tip: tip,
                  hitX: ChartPaths.number(coordinates[index].x - min(spacing, width) / 2), hitY: ChartPaths.number(plot.top),
                  hitWidth: ChartPaths.number(min(spacing, width)), hitHeight: ChartPaths.number(plot.bottom - plot.top))
        }
        points = values.enumerated().map { index, value in
            point(index, tip: "\(value.label): \(ChartText.number(value.value)) \(unit)")
        }
        self.tied = tied.filter { $0.upperBound < values.count }.map { run in
            let from = max(coordinates[run.lowerBound].x - spacing / 2, left)
            let to = min(coordinates[run.upperBound].x + spacing / 2, width - 10)
            let words = run.count == 1 ? values[run.lowerBound].label
                : "\(values[run.lowerBound].label)–\(values[run.upperBound].label)"
            return Band(x: ChartPaths.number(from), y: ChartPaths.number(plot.top), width: ChartPaths.number(to - from),
                        height: ChartPaths.number(plot.bottom - plot.top), tip: "tied for the least delay: \(words)")
        }
        let every = ChartText.labelEvery(characters: values.map(\.label.count).max() ?? 0, spacing: spacing)
        labels = values.enumerated().filter { $0.offset % every == 0 }.map { index, point in
            PlacedLabel(x: ChartPaths.number(coordinates[index].x), y: ChartPaths.number(height - bottom + 21),
                        text: point.label, anchor: "middle")
        }
        axisTitles = [
            PlacedLabel(x: "4", y: "13", text: yTitle, anchor: "start"),
            PlacedLabel(x: ChartPaths.number((left + width) / 2), y: ChartPaths.number(height - 4), text: xTitle,
                        anchor: "middle"),
        ]
        var summary = "\(values.count) departures from \(values[0].label) to \(values[values.count - 1].label)"
        if let marked, marked < values.count {
            best = point(marked, tip: "best: \(values[marked].label), \(ChartText.number(values[marked].value)) \(unit)")
            summary += "; the best is \(values[marked].label) with \(ChartText.number(values[marked].value)) \(unit)"
        } else {
            best = nil
        }
        frame = ChartFrame(id: id, width: width, height: height, title: title, summary: summary + ".", caption: caption)
    }
}
