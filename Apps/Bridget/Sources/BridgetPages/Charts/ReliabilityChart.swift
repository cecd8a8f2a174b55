import BridgetCharts

/// The reliability diagram: each group of forecasts' mean predicted chance against the share of them that saw an
/// opening, the diagonal where the two agree, a dot's area its number of forecasts; both axes titled.
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
    let axisTitles: [PlacedLabel]
    /// Whether there is anything to test (the diagonal is drawn only then).
    let hasBins: Bool

    init(id: String, title: String, bins values: [(predicted: Double, observed: Double, count: Int)]) {
        let (size, left, bottom, top) = (330.0, 44.0, 40.0, 24.0)
        guard !values.isEmpty else {
            frame = ChartFrame(id: id, width: size, height: size, title: title, emptyMessage: "nothing to test")
            (yTicks, xTicks, diagonal, bins, axisTitles, hasBins) = ([], [], "", [], [], false)
            return
        }
        let most = values.map { max($0.predicted, $0.observed) }.max() ?? 1
        // The right end leaves room for its tick's label ("100%") inside the frame.
        let scale = LinearScale(covering: [0, most], from: left, to: size - 22, includingZero: true, tickCount: 4)
        let y = LinearScale(domain: scale.domain, from: size - bottom, to: top)
        let step = LinearScale.tickStep(span: scale.domain.upperBound - scale.domain.lowerBound, count: 4)
        let percent = { (value: Double) in ChartPaths.label(value * 100, step: step * 100) + "%" }
        yTicks = y.ticks(count: 4).map { tick in
            let position = ChartPaths.number(y(tick))
            return AxisTick(x: ChartPaths.number(left - 4), y: position, label: percent(tick),
                            grid: "M\(ChartPaths.number(left)) \(position)H\(ChartPaths.number(size - 22))")
        }
        // The corner's 0% is the y axis's: the x axis labels its ticks after it, so the two do not meet.
        xTicks = scale.ticks(count: 4).map { tick in
            AxisTick(x: ChartPaths.number(scale(tick)), y: ChartPaths.number(size - bottom + 16),
                     label: tick == scale.domain.lowerBound ? "" : percent(tick),
                     grid: "M\(ChartPaths.number(scale(tick))) \(ChartPaths.number(top))V\(ChartPaths.number(size - bottom))")
        }
        let (low, high) = (scale.domain.lowerBound, scale.domain.upperBound)
        diagonal = "M\(ChartPaths.number(scale(low))) \(ChartPaths.number(y(low)))"
            + "L\(ChartPaths.number(scale(high))) \(ChartPaths.number(y(high)))"
        let largest = Double(values.map(\.count).max() ?? 1)
        bins = values.map { bin in
            let radius = 3 + 7 * (Double(bin.count) / max(largest, 1)).squareRoot()
            return Bin(cx: ChartPaths.number(scale(bin.predicted)), cy: ChartPaths.number(y(bin.observed)),
                       r: ChartPaths.number(radius),
                       tip: "\(bin.count) forecasts of about \(ChartText.percent(bin.predicted)): "
                        + "\(ChartText.percent(bin.observed)) of them saw an opening")
        }
        hasBins = true
        axisTitles = [
            PlacedLabel(x: "4", y: "13", text: "share that saw an opening", anchor: "start"),
            PlacedLabel(x: ChartPaths.number((left + size) / 2), y: ChartPaths.number(size - 4),
                        text: "forecast chance of an opening", anchor: "middle"),
        ]
        frame = ChartFrame(id: id, width: size, height: size, title: title,
                           summary: "\(values.count) groups of forecasts by predicted chance, each against the share of "
                            + "them that saw an opening; on the dashed diagonal the forecasts are reliable.",
                           caption: "Each dot is a group of forecasts with about the same chance; the bigger the dot, "
                            + "the more forecasts it holds. On the dashed diagonal what was forecast happened exactly "
                            + "as often as forecast; a dot below it forecast too high, above it too low.")
    }
}
