import BridgetCharts

/// A line of values over labelled positions, the point at `marked` circled (a route's best departure).
struct CurveChart: Sendable {
    struct Point: Sendable {
        let cx: String
        let cy: String
        let tip: String
    }

    let frame: ChartFrame
    let ticks: [AxisTick]
    let path: String
    let points: [Point]
    let labels: [PlacedLabel]
    let best: Point?
    let bestID: String

    init(id: String, title: String, unit: String, points values: [(label: String, value: Double)], marked: Int?) {
        let (width, height, left, bottom, top) = (600.0, 220.0, 46.0, 24.0, 10.0)
        bestID = id + "-best"
        guard !values.isEmpty else {
            frame = ChartFrame(id: id, width: width, height: height, title: title, emptyMessage: "no departures scored")
            (ticks, path, points, labels, best) = ([], "", [], [], nil)
            return
        }
        let y = LinearScale(covering: values.map(\.value), from: height - bottom, to: top, includingZero: true, tickCount: 4)
        let x = LinearScale(domain: 0...Double(max(values.count - 1, 1)), from: left, to: width - 10)
        ticks = ChartText.yAxis(y, from: left, to: width - 10)
        let coordinates = values.enumerated().map { (x: x(Double($0.offset)), y: y($0.element.value)) }
        path = ChartPaths.line(coordinates)
        points = values.enumerated().map { index, point in
            Point(cx: ChartPaths.number(coordinates[index].x), cy: ChartPaths.number(coordinates[index].y),
                  tip: "\(point.label): \(ChartText.number(point.value)) \(unit)")
        }
        let spacing = values.count > 1 ? (width - 10 - left) / Double(values.count - 1) : width
        let every = ChartText.labelEvery(characters: values.map(\.label.count).max() ?? 0, spacing: spacing)
        labels = values.enumerated().filter { $0.offset % every == 0 }.map { index, point in
            PlacedLabel(x: ChartPaths.number(coordinates[index].x), y: ChartPaths.number(height - 6), text: point.label,
                        anchor: "middle")
        }
        var summary = "\(values.count) departures from \(values[0].label) to \(values[values.count - 1].label)"
        if let marked, marked < values.count {
            best = Point(cx: ChartPaths.number(coordinates[marked].x), cy: ChartPaths.number(coordinates[marked].y),
                         tip: "best: \(values[marked].label), \(ChartText.number(values[marked].value)) \(unit)")
            summary += "; the best is \(values[marked].label) with \(ChartText.number(values[marked].value)) \(unit)"
        } else {
            best = nil
        }
        frame = ChartFrame(id: id, width: width, height: height, title: title, summary: summary + ".")
    }
}
