import Foundation

/// SVG path data and number text for charts: short, stable, and the same on every platform.
public enum ChartPaths {
    /// `M x y L x y …` through `points` (nothing for none; a lone point draws a dot-sized line so it is seen).
    public static func line(_ points: [(x: Double, y: Double)]) -> String {
        guard let first = points.first else { return "" }
        if points.count == 1 { return "M\(number(first.x)) \(number(first.y))h0.01" }
        return "M\(number(first.x)) \(number(first.y))"
            + points.dropFirst().map { "L\(number($0.x)) \(number($0.y))" }.joined()
    }

    /// The area between the line through `points` and the horizontal line at `baseline` (nothing for none).
    public static func area(_ points: [(x: Double, y: Double)], baseline: Double) -> String {
        guard let first = points.first, let last = points.last else { return "" }
        return line(points) + "L\(number(last.x)) \(number(baseline))L\(number(first.x)) \(number(baseline))Z"
    }

    /// A coordinate as SVG text: at most two decimals, no trailing zeros, no `-0`.
    public static func number(_ value: Double) -> String {
        guard value.isFinite else { return "0" }
        let rounded = (value * 100).rounded() / 100
        if rounded == 0 { return "0" }
        if rounded == rounded.rounded() { return String(Int(rounded)) }
        var text = String(format: "%.2f", rounded)
        while text.hasSuffix("0") { text.removeLast() }
        return text
    }

    /// A tick's label: the number with no more decimals than the step needs (`0.05`, `12`, `1,500`).
    public static func label(_ value: Double, step: Double) -> String {
        let decimals = step > 0 && step < 1 ? Int((-log10(step)).rounded(.up)) : 0
        let formatter = NumberFormatter()
        formatter.numberStyle = .decimal
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.usesGroupingSeparator = true
        formatter.groupingSeparator = ","
        formatter.groupingSize = 3
        formatter.minimumFractionDigits = decimals
        formatter.maximumFractionDigits = decimals
        return formatter.string(from: NSNumber(value: value == 0 ? 0 : value)) ?? String(value)
    }
}

/// A sequential palette colour-blind readers can tell apart and that prints legibly in grey: cividis (Nuñez,
/// Anderton and Renslow, 2018), from dark blue (none) to yellow (most), nine stops interpolated in between.
public enum ChartPalette {
    static let stops: [(Double, Double, Double)] = [
        (0, 34, 78), (18, 53, 112), (59, 73, 108), (87, 93, 109), (112, 113, 115),
        (138, 134, 120), (165, 156, 116), (195, 179, 105), (254, 232, 56),
    ]

    /// The colour of `fraction` (0 to 1; clamped) as `#rrggbb`.
    public static func sequential(_ fraction: Double) -> String { interpolated(stops, fraction) }

    /// One hue from the lightest blue (`fraction` 0) to the darkest (1): light for little, dark for much, on a white
    /// page (the 0 end is still told from white), alike to colour-blind eyes and in grey (ColorBrewer's Blues).
    public static func lightToDark(_ fraction: Double) -> String { interpolated(blues, fraction) }

    static let blues: [(Double, Double, Double)] = [
        (227, 238, 249), (198, 219, 239), (158, 202, 225), (107, 174, 214), (66, 146, 198), (33, 113, 181),
        (8, 81, 156), (8, 48, 107),
    ]

    /// The colour `fraction` of the way along `stops` (clamped; not a number is 0), as `#rrggbb`.
    static func interpolated(_ stops: [(Double, Double, Double)], _ fraction: Double) -> String {
        let clamped = fraction.isFinite ? min(max(fraction, 0), 1) : 0
        let position = clamped * Double(stops.count - 1)
        let index = min(Int(position), stops.count - 2)
        let t = position - Double(index)
        let (a, b) = (stops[index], stops[index + 1])
        func channel(_ x: Double, _ y: Double) -> Int { Int((x + (y - x) * t).rounded()) }
        return String(format: "#%02x%02x%02x", channel(a.0, b.0), channel(a.1, b.1), channel(a.2, b.2))
    }

    /// The colour for no data at all (distinct from the palette's lowest value).
    public static let empty = "#eeeeee"
}
