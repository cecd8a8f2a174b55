import BridgetCharts

/// The reliability diagram: each bin's mean predicted chance against the share observed, the diagonal where they
/// agree, a dot's size its number of forecasts.
struct ReliabilityChart: Sendable {
    struct Bin: Sendable {
        let cx: String
        let cy: String
        let r: String
        let tip: String
    }

    let frame: ChartFrame
    let yTicks: [AxisTick]
    let xTicks: [AxisTick]
    let diagonal: String
    let bins: [Bin]
    let axisLabel: PlacedLabel?
    /// Whether there is anything to test (the diagonal is drawn only then).
    let hasBins: Bool

    init(id: String, title: String, bins values: [(predicted: Double, observed: Double, count: Int)]) {
        let (size, margin) = (320.0, 40.0)
        guard !values.isEmpty else {
            frame = ChartFrame(id: id, width: size, height: size, title: title, emptyMessage: "nothing to test")
            (yTicks, xTicks, diagonal, bins, axisLabel, hasBins) = ([], [], "", [], nil, false)
            return
        }
        let most = values.map { max($0.predicted, $0.observed) }.max() ?? 1
        let scale = LinearScale(covering: [0, most], from: margin, to: size - 10, includingZero: true, tickCount: 4)
        let y = LinearScale(domain: scale.domain, from: size - margin, to: 10)
        let step = LinearScale.tickStep(span: scale.domain.upperBound - scale.domain.lowerBound, count: 4)
        yTicks = ChartText.yAxis(y, from: margin, to: size - 10)
        xTicks = scale.ticks(count: 4).map { tick in
            AxisTick(x: ChartPaths.number(scale(tick)), y: ChartPaths.number(size - margin + 14),
                     label: ChartPaths.label(tick, step: step),
                     grid: "M\(ChartPaths.number(scale(tick))) 10V\(ChartPaths.number(size - margin))")
        }
        let (low, high) = (scale.domain.lowerBound, scale.domain.upperBound)
        diagonal = "M\(ChartPaths.number(scale(low))) \(ChartPaths.number(y(low)))"
            + "L\(ChartPaths.number(scale(high))) \(ChartPaths.number(y(high)))"
        let largest = Double(values.map(\.count).max() ?? 1)
        bins = values.map { bin in
            let radius = 3 + 7 * (Double(bin.count) / max(largest, 1)).squareRoot()
            return Bin(cx: ChartPaths.number(scale(bin.predicted)), cy: ChartPaths.number(y(bin.observed)),
                       r: ChartPaths.number(radius),
                       tip: "predicted \(ChartText.percent(bin.predicted)), observed \(ChartText.percent(bin.observed)), "
                        + "\(bin.count) forecasts")
        }
        hasBins = true
        axisLabel = PlacedLabel(x: ChartPaths.number(size / 2 + 10), y: ChartPaths.number(size - 6),
                                text: "predicted chance", anchor: "middle")
        frame = ChartFrame(id: id, width: size, height: size, title: title,
                           summary: "\(values.count) groups of forecasts by predicted chance, each against the share of "
                            + "them that saw an opening; on the dashed diagonal the forecasts are reliable.")
    }
}
