import BridgetCharts
import Foundation

/// Text escaped for HTML and SVG (element content and quoted attributes).
func escapedHTML(_ text: some StringProtocol) -> String {
    var result = ""
    result.reserveCapacity(text.utf8.count)
    for character in text {
        switch character {
        case "&": result += "&amp;"
        case "<": result += "&lt;"
        case ">": result += "&gt;"
        case "\"": result += "&quot;"
        case "'": result += "&#39;"
        default: result.append(character)
        }
    }
    return result
}

/// The charts of Bridget's pages as inline SVG: no script, no external file, each with a `<title>` and a `<desc>`
/// summing it up in words (`role="img"`, `aria-labelledby`), every mark with its own `<title>` (a tooltip, and a
/// number a screen reader reaches). Geometry comes from BridgetCharts.
enum SVGCharts {
    static let weekdays = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]

    /// An `<svg>` with its accessible title and summary.
    static func frame(id: String, width: Double, height: Double, title: String, summary: String, body: String) -> String {
        """
        <svg class="chart" id="\(escapedHTML(id))" role="img" aria-labelledby="\(escapedHTML(id))-title \(escapedHTML(id))-desc" \
        viewBox="0 0 \(ChartPaths.number(width)) \(ChartPaths.number(height))" width="\(ChartPaths.number(width))" \
        height="\(ChartPaths.number(height))" xmlns="http://www.w3.org/2000/svg">\
        <title id="\(escapedHTML(id))-title">\(escapedHTML(title))</title><desc id="\(escapedHTML(id))-desc">\(escapedHTML(summary))</desc>\
        \(body)</svg>
        """
    }

    /// A message in place of a chart with nothing to draw.
    static func empty(id: String, width: Double, height: Double, title: String, message: String) -> String {
        frame(id: id, width: width, height: height, title: title, summary: message,
              body: "<text class=\"empty\" x=\"\(ChartPaths.number(width / 2))\" y=\"\(ChartPaths.number(height / 2))\" "
                + "text-anchor=\"middle\">\(escapedHTML(message))</text>")
    }

    /// The 7 × 24 hour-of-week heatmap: a cell per hour (168), its colour the openings counted there, its tooltip
    /// the count and the chance of an opening in that hour of a week (from the weeks of history).
    static func heatmap(id: String, counts: [[Int]], weeks: Double, zone: String) -> String {
        let (left, top, cell, height) = (92.0, 22.0, 24.0, 20.0)
        let width = left + cell * 24 + 8
        let total = counts.joined().reduce(0, +)
        let most = max(counts.joined().max() ?? 0, 1)
        var body = ""
        let hours = BandScale(count: 24, from: left, to: left + cell * 24)
        for hour in stride(from: 0, to: 24, by: 3) {
            body += "<text class=\"tick\" x=\"\(ChartPaths.number(hours.center(hour)))\" y=\"14\" text-anchor=\"middle\">"
                + String(format: "%02d", hour) + "</text>"
        }
        for (day, row) in counts.prefix(7).enumerated() {
            let y = top + Double(day) * height
            body += "<text class=\"tick\" x=\"\(ChartPaths.number(left - 6))\" y=\"\(ChartPaths.number(y + 14))\" "
                + "text-anchor=\"end\">\(weekdays[day])</text>"
            for (hour, count) in row.prefix(24).enumerated() {
                let chance = 1 - exp(-Double(count) / max(weeks, 1))
                let tip = "\(weekdays[day]) \(String(format: "%02d:00–%02d:00", hour, (hour + 1) % 24)): \(count) "
                    + "opening\(count == 1 ? "" : "s"), \(Self.percent(chance)) chance of one in that hour of a week"
                body += "<rect class=\"cell\" data-count=\"\(count)\" x=\"\(ChartPaths.number(hours.position(hour)))\" "
                    + "y=\"\(ChartPaths.number(y))\" width=\"\(ChartPaths.number(cell - 1))\" height=\"\(ChartPaths.number(height - 1))\" "
                    + "fill=\"\(count == 0 ? ChartPalette.empty : Self.shade(Double(count) / Double(most)))\">"
                    + "<title>\(escapedHTML(tip))</title></rect>"
            }
        }
        let busiest = counts.prefix(7).enumerated().flatMap { day, row in row.enumerated().map { (day, $0, $1) } }
            .max { $0.2 < $1.2 }
        let summary = total == 0 ? "No openings stored."
            : "\(total) openings by hour of the week (\(zone) time); the busiest hour is "
                + (busiest.map { "\(weekdays[$0.0]) \(String(format: "%02d:00", $0.1)) with \($0.2)" } ?? "none") + "."
        return frame(id: id, width: width, height: top + height * 7 + 6, title: "Openings by hour of the week",
                     summary: summary, body: body)
    }

    /// A strip of slots (a cell each, coloured by the chance of an opening), "now" marked at `nowIndex`.
    static func strip(id: String, title: String, slots: [(label: String, chance: Double)], nowIndex: Int?) -> String {
        let (width, height, left) = (480.0, 26.0, 0.0)
        guard !slots.isEmpty else { return empty(id: id, width: width, height: height, title: title, message: "no forecast") }
        let band = BandScale(count: slots.count, from: left, to: width)
        var body = ""
        for (index, slot) in slots.enumerated() {
            body += "<rect class=\"slot\" x=\"\(ChartPaths.number(band.position(index)))\" y=\"0\" "
                + "width=\"\(ChartPaths.number(max(band.bandwidth - 0.5, 0.5)))\" height=\"\(ChartPaths.number(height - 6))\" "
                + "fill=\"\(Self.shade(min(slot.chance * 2, 1)))\"><title>\(escapedHTML(slot.label)): "
                + "\(Self.percent(slot.chance)) chance of an opening</title></rect>"
        }
        if let nowIndex, nowIndex < slots.count {
            let x = ChartPaths.number(band.position(nowIndex) + 1)
            body += "<path class=\"now\" d=\"M\(x) 0V\(ChartPaths.number(height))\" stroke=\"#c0392b\" stroke-width=\"2\">"
                + "<title>now</title></path>"
        }
        let peak = slots.enumerated().max { $0.element.chance < $1.element.chance }
        let summary = "Chance of an opening in each of \(slots.count) 15-minute slots"
            + (peak.map { "; highest \(Self.percent($0.element.chance)) at \($0.element.label)" } ?? "") + "."
        return frame(id: id, width: width, height: height, title: title, summary: summary, body: body)
    }

    /// Vertical bars with a y axis of round ticks (`values` in order, labelled every `labelEvery`).
    static func bars(id: String, title: String, unit: String, values: [(label: String, value: Double)],
                     labelEvery: Int = 1) -> String {
        let (width, height, left, bottom, top) = (600.0, 200.0, 46.0, 24.0, 8.0)
        guard values.contains(where: { $0.value > 0 }) else {
            return empty(id: id, width: width, height: height, title: title, message: "no openings stored")
        }
        let y = LinearScale(covering: values.map(\.value), from: height - bottom, to: top, includingZero: true, tickCount: 4)
        let x = BandScale(count: values.count, from: left, to: width - 4, padding: 0.15)
        var body = ""
        body += yAxis(y, from: left, to: width - 4)
        for (index, item) in values.enumerated() {
            let top = y(item.value)
            body += "<rect class=\"bar\" x=\"\(ChartPaths.number(x.position(index)))\" y=\"\(ChartPaths.number(top))\" "
                + "width=\"\(ChartPaths.number(x.bandwidth))\" height=\"\(ChartPaths.number(max(y(0) - top, 0)))\">"
                + "<title>\(escapedHTML(item.label)): \(escapedHTML(Self.number(item.value))) \(escapedHTML(unit))</title></rect>"
            if index % max(labelEvery, 1) == 0 {
                body += "<text class=\"tick\" x=\"\(ChartPaths.number(x.center(index)))\" y=\"\(ChartPaths.number(height - 6))\" "
                    + "text-anchor=\"middle\">\(escapedHTML(item.label))</text>"
            }
        }
        let most = values.max { $0.value < $1.value }
        return frame(id: id, width: width, height: height, title: title,
                     summary: "\(values.count) bars of \(unit)" + (most.map { "; the most, \(Self.number($0.value)), in \($0.label)" } ?? "") + ".",
                     body: body)
    }

    /// A line of values over labelled positions with the point at `marked` circled (the best departure).
    static func curve(id: String, title: String, unit: String, points: [(label: String, value: Double)], marked: Int?) -> String {
        let (width, height, left, bottom, top) = (600.0, 220.0, 46.0, 24.0, 10.0)
        guard !points.isEmpty else { return empty(id: id, width: width, height: height, title: title, message: "no departures scored") }
        let y = LinearScale(covering: points.map(\.value), from: height - bottom, to: top, includingZero: true, tickCount: 4)
        let x = LinearScale(domain: 0...Double(max(points.count - 1, 1)), from: left, to: width - 10)
        var body = ""
        body += yAxis(y, from: left, to: width - 10)
        let coordinates = points.enumerated().map { (x: x(Double($0.offset)), y: y($0.element.value)) }
        body += "<path class=\"line\" fill=\"none\" d=\"\(ChartPaths.line(coordinates))\"/>"
        let every = max(points.count / 8, 1)
        for (index, point) in points.enumerated() {
            body += "<circle class=\"point\" cx=\"\(ChartPaths.number(coordinates[index].x))\" cy=\"\(ChartPaths.number(coordinates[index].y))\" r=\"3\">"
                + "<title>\(escapedHTML(point.label)): \(escapedHTML(Self.number(point.value))) \(escapedHTML(unit))</title></circle>"
            if index % every == 0 {
                body += "<text class=\"tick\" x=\"\(ChartPaths.number(coordinates[index].x))\" y=\"\(ChartPaths.number(height - 6))\" "
                    + "text-anchor=\"middle\">\(escapedHTML(point.label))</text>"
            }
        }
        var summary = "\(points.count) departures from \(points[0].label) to \(points[points.count - 1].label)"
        if let marked, marked < points.count {
            body += "<circle class=\"best\" id=\"\(escapedHTML(id))-best\" cx=\"\(ChartPaths.number(coordinates[marked].x))\" "
                + "cy=\"\(ChartPaths.number(coordinates[marked].y))\" r=\"7\"><title>best: \(escapedHTML(points[marked].label)), "
                + "\(escapedHTML(Self.number(points[marked].value))) \(escapedHTML(unit))</title></circle>"
            summary += "; the best is \(points[marked].label) with \(Self.number(points[marked].value)) \(unit)"
        }
        return frame(id: id, width: width, height: height, title: title, summary: summary + ".", body: body)
    }

    /// The bridges at their stored positions (no tiles), each a dot coloured by `chance` and linking to `link`.
    static func map(id: String, title: String, places: [(name: String, latitude: Double, longitude: Double, chance: Double, link: String)]) -> String {
        let (width, height, margin) = (360.0, 300.0, 30.0)
        guard !places.isEmpty else { return empty(id: id, width: width, height: height, title: title, message: "no bridges") }
        // Equirectangular, shrunk east-west by the cosine of the middle latitude: true shapes at a city's scale.
        let middle = (places.map(\.latitude).min()! + places.map(\.latitude).max()!) / 2
        let squeeze = cos(middle * .pi / 180)
        let xs = places.map { $0.longitude * squeeze }
        let ys = places.map(\.latitude)
        let spanX = max((xs.max()! - xs.min()!), 1e-6)
        let spanY = max((ys.max()! - ys.min()!), 1e-6)
        let scale = min((width - 2 * margin) / spanX, (height - 2 * margin) / spanY)
        var body = "<rect class=\"water\" x=\"0\" y=\"0\" width=\"\(ChartPaths.number(width))\" height=\"\(ChartPaths.number(height))\"/>"
        // Each label goes right of its dot, else left, below or above: the first place no earlier label or dot takes
        // (bridges a few hundred metres apart, such as Fremont and University, would otherwise print over each other).
        var taken: [(x: Double, y: Double, width: Double, height: Double)] = []
        let dots = places.indices.map { index in
            (x: margin + (xs[index] - xs.min()!) * scale + ((width - 2 * margin) - spanX * scale) / 2,
             y: height - margin - (ys[index] - ys.min()!) * scale - ((height - 2 * margin) - spanY * scale) / 2)
        }
        for dot in dots { taken.append((dot.x - 8, dot.y - 8, 16, 16)) }
        func overlaps(_ box: (x: Double, y: Double, width: Double, height: Double)) -> Bool {
            taken.contains { box.x < $0.x + $0.width && $0.x < box.x + box.width && box.y < $0.y + $0.height && $0.y < box.y + box.height }
        }
        for (index, place) in places.enumerated() {
            let (x, y) = dots[index]
            let labelWidth = Double(place.name.count) * 6.2
            let choices: [(x: Double, y: Double, anchor: String, box: (x: Double, y: Double, width: Double, height: Double))] = [
                (x + 11, y + 4, "start", (x + 11, y - 7, labelWidth, 13)),
                (x - 11, y + 4, "end", (x - 11 - labelWidth, y - 7, labelWidth, 13)),
                (x, y + 21, "middle", (x - labelWidth / 2, y + 10, labelWidth, 13)),
                (x, y - 13, "middle", (x - labelWidth / 2, y - 24, labelWidth, 13)),
            ]
            let label = choices.first { !overlaps($0.box) } ?? choices[0]
            taken.append(label.box)
            body += "<a href=\"\(escapedHTML(place.link))\"><circle class=\"bridge\" cx=\"\(ChartPaths.number(x))\" cy=\"\(ChartPaths.number(y))\" r=\"8\" "
                + "fill=\"\(Self.shade(min(place.chance * 2, 1)))\"><title>\(escapedHTML(place.name)): "
                + "\(Self.percent(place.chance)) chance of an opening in the next 30 minutes</title></circle>"
                + "<text class=\"label\" x=\"\(ChartPaths.number(label.x))\" y=\"\(ChartPaths.number(label.y))\" "
                + "text-anchor=\"\(label.anchor)\">\(escapedHTML(place.name))</text></a>"
        }
        return frame(id: id, width: width, height: height, title: title,
                     summary: "\(places.count) bridges at their positions, coloured by the chance of an opening in the next 30 minutes.",
                     body: body)
    }

    /// The reliability diagram: each bin's mean predicted chance against the share observed, the diagonal where they
    /// agree, a dot's size its number of forecasts.
    static func reliability(id: String, title: String, bins: [(predicted: Double, observed: Double, count: Int)]) -> String {
        let (size, margin) = (320.0, 40.0)
        guard !bins.isEmpty else { return empty(id: id, width: size, height: size, title: title, message: "nothing to test") }
        let most = bins.map { max($0.predicted, $0.observed) }.max() ?? 1
        let scale = LinearScale(covering: [0, most], from: margin, to: size - 10, includingZero: true, tickCount: 4)
        let y = LinearScale(domain: scale.domain, from: size - margin, to: 10)
        var body = ""
        let step = LinearScale.tickStep(span: scale.domain.upperBound - scale.domain.lowerBound, count: 4)
        body += yAxis(y, from: margin, to: size - 10)
        for tick in scale.ticks(count: 4) {
            body += "<path class=\"grid\" d=\"M\(ChartPaths.number(scale(tick))) 10V\(ChartPaths.number(size - margin))\"/>"
                + "<text class=\"tick\" x=\"\(ChartPaths.number(scale(tick)))\" y=\"\(ChartPaths.number(size - margin + 14))\" "
                + "text-anchor=\"middle\">\(ChartPaths.label(tick, step: step))</text>"
        }
        let (low, high) = (scale.domain.lowerBound, scale.domain.upperBound)
        body += "<path class=\"diagonal\" stroke=\"#c0392b\" stroke-dasharray=\"4 3\" d=\"M\(ChartPaths.number(scale(low))) "
            + "\(ChartPaths.number(y(low)))L\(ChartPaths.number(scale(high))) \(ChartPaths.number(y(high)))\"><title>perfect "
            + "reliability: observed equals predicted</title></path>"
        let largest = Double(bins.map(\.count).max() ?? 1)
        for bin in bins {
            let radius = 3 + 7 * (Double(bin.count) / max(largest, 1)).squareRoot()
            body += "<circle class=\"bin\" cx=\"\(ChartPaths.number(scale(bin.predicted)))\" cy=\"\(ChartPaths.number(y(bin.observed)))\" "
                + "r=\"\(ChartPaths.number(radius))\"><title>predicted \(Self.percent(bin.predicted)), observed "
                + "\(Self.percent(bin.observed)), \(bin.count) forecasts</title></circle>"
        }
        body += "<text class=\"tick\" x=\"\(ChartPaths.number(size / 2 + 10))\" y=\"\(ChartPaths.number(size - 6))\" "
            + "text-anchor=\"middle\">predicted chance</text>"
        return frame(id: id, width: size, height: size, title: title,
                     summary: "\(bins.count) groups of forecasts by predicted chance, each against the share of them that "
                        + "saw an opening; on the dashed diagonal the forecasts are reliable.", body: body)
    }

    /// A y axis: a grid line and a label at each of about four round ticks of `y`, from `left` to `right`.
    static func yAxis(_ y: LinearScale, from left: Double, to right: Double) -> String {
        let step = LinearScale.tickStep(span: y.domain.upperBound - y.domain.lowerBound, count: 4)
        return y.ticks(count: 4).map { tick in
            let position = ChartPaths.number(y(tick))
            return "<path class=\"grid\" d=\"M\(ChartPaths.number(left)) \(position)H\(ChartPaths.number(right))\"/>"
                + "<text class=\"tick\" x=\"\(ChartPaths.number(left - 4))\" y=\"\(position)\" text-anchor=\"end\" "
                + "dominant-baseline=\"middle\">\(ChartPaths.label(tick, step: step))</text>"
        }.joined()
    }

    /// The fill for `fraction` of the most: light for few, dark for many (cividis read backwards), so an empty cell's
    /// light grey sits beside the lightest colour.
    static func shade(_ fraction: Double) -> String { ChartPalette.sequential(1 - fraction) }

    static func percent(_ chance: Double) -> String {
        guard chance.isFinite else { return "–" }
        let value = chance * 100
        return value > 0 && value < 1 ? "under 1%" : String(format: "%.0f%%", value)
    }

    static func number(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(format: "%.2f", value)
    }
}
