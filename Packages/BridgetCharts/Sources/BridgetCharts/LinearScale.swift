import Foundation

/// Maps numbers from a data range (the domain) onto a drawing range (pixels), and picks round ticks along it.
///
/// A domain of one value (every count the same, or a single point) maps to the middle of the range, so a chart of
/// constant data draws a flat line in the middle instead of dividing by zero. A range may run backwards (SVG's y axis
/// grows downwards: `range: 200...0` is written `LinearScale(domain:, from: 200, to: 0)`).
public struct LinearScale: Sendable, Equatable {
    public let domain: ClosedRange<Double>
    /// Where the domain's lower bound lands.
    public let start: Double
    /// Where the domain's upper bound lands.
    public let end: Double

    public init(domain: ClosedRange<Double>, from start: Double, to end: Double) {
        self.domain = domain
        self.start = start
        self.end = end
    }

    /// The scale whose domain covers `values` (or `0...1` when there are none or any is not finite), from `start` to
    /// `end`, with its domain widened to round ticks (`nice`) and, with `includingZero`, to zero.
    public init(covering values: some Sequence<Double>, from start: Double, to end: Double, includingZero: Bool = false,
                tickCount: Int = 5)
    {
        let finite = values.filter(\.isFinite)
        var low = finite.min() ?? 0
        var high = finite.max() ?? 1
        if includingZero {
            low = min(low, 0)
            high = max(high, 0)
        }
        self = LinearScale(domain: low...high, from: start, to: end).nice(tickCount: tickCount)
    }

    /// The position of `value`; values outside the domain extend the line (clamp them first if the chart must not).
    public func callAsFunction(_ value: Double) -> Double {
        let span = domain.upperBound - domain.lowerBound
        guard span > 0, span.isFinite else { return (start + end) / 2 }
        return start + (value - domain.lowerBound) / span * (end - start)
    }

    /// About `count` round ticks (1, 2 or 5 times a power of ten apart) within the domain, lowest first.
    public func ticks(count: Int = 5) -> [Double] {
        let step = Self.tickStep(span: domain.upperBound - domain.lowerBound, count: count)
        guard step > 0 else { return domain.lowerBound.isFinite ? [domain.lowerBound] : [] }
        let first = (domain.lowerBound / step).rounded(.up)
        let last = (domain.upperBound / step).rounded(.down)
        guard first <= last, last - first < 1_000 else { return [] }
        // Multiples computed from integers, so 0.1 steps give 0.3, not 0.30000000000000004.
        return stride(from: first, through: last, by: 1).map { Self.clean($0 * step) }
    }

    /// The same scale with its domain widened outwards to the nearest ticks, so the axis starts and ends on a label.
    /// A one-value domain becomes the unit around it (0...1 for 0).
    public func nice(tickCount: Int = 5) -> LinearScale {
        var low = domain.lowerBound
        var high = domain.upperBound
        guard low.isFinite, high.isFinite else { return LinearScale(domain: 0...1, from: start, to: end) }
        if low == high {
            if low == 0 { high = 1 } else {
                let magnitude = pow(10, (log10(abs(low))).rounded(.down))
                low -= magnitude
                high += magnitude
            }
        }
        let step = Self.tickStep(span: high - low, count: tickCount)
        guard step > 0 else { return self }
        low = Self.clean((low / step).rounded(.down) * step)
        high = Self.clean((high / step).rounded(.up) * step)
        return LinearScale(domain: low...high, from: start, to: end)
    }

    /// The round step (1, 2 or 5 times a power of ten) giving about `count` intervals over `span`; 0 for an empty
    /// span.
    public static func tickStep(span: Double, count: Int) -> Double {
        guard span > 0, span.isFinite, count > 0 else { return 0 }
        let rough = span / Double(count)
        let power = pow(10, log10(rough).rounded(.down))
        let fraction = rough / power
        let nice: Double = fraction < 1.5 ? 1 : fraction < 3.5 ? 2 : fraction < 7.5 ? 5 : 10
        return nice * power
    }

    /// A computed multiple rounded to 12 significant digits: the decimal the step meant.
    static func clean(_ value: Double) -> Double {
        guard value != 0, value.isFinite else { return value == 0 ? 0 : value }
        let digits = 12 - Int(log10(abs(value)).rounded(.up))
        let factor = pow(10, Double(max(min(digits, 15), -15)))
        return (value * factor).rounded() / factor
    }
}

/// Equal bands for categories (hours, days, departures): band `i`'s start and the width of each, with a gap.
public struct BandScale: Sendable, Equatable {
    public let count: Int
    public let start: Double
    public let end: Double
    /// The share of each step left empty between bands (0 for touching cells, as a heatmap's).
    public let padding: Double

    public init(count: Int, from start: Double, to end: Double, padding: Double = 0) {
        self.count = max(count, 0)
        self.start = start
        self.end = end
        self.padding = min(max(padding, 0), 0.9)
    }

    /// The distance from one band's start to the next's.
    public var step: Double { count > 0 ? (end - start) / Double(count) : 0 }

    /// The width of a band.
    public var bandwidth: Double { step * (1 - padding) }

    /// Where band `index` starts.
    public func position(_ index: Int) -> Double { start + Double(index) * step + step * padding / 2 }

    /// Where band `index`'s middle is (for its label).
    public func center(_ index: Int) -> Double { position(index) + bandwidth / 2 }
}
