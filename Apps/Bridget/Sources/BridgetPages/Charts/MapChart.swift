import BridgetCharts
import Foundation

/// The bridges at their stored positions, each a dot coloured by its chance of an opening and linking to its page,
/// its name placed where no earlier label or dot is.
struct MapChart: Sendable {
    struct Place: Sendable {
        let href: String
        let cx: String
        let cy: String
        let fill: String
        let tip: String
        let label: PlacedLabel
    }

    let frame: ChartFrame
    let places: [Place]

    init(id: String, title: String,
         places values: [(name: String, latitude: Double, longitude: Double, chance: Double, link: String)]) {
        let (width, height, margin) = (360.0, 300.0, 30.0)
        guard !values.isEmpty else {
            frame = ChartFrame(id: id, width: width, height: height, title: title, emptyMessage: "no bridges")
            places = []
            return
        }
        // Equirectangular, shrunk east-west by the cosine of the middle latitude: true shapes at a city's scale.
        let latitudes = values.map(\.latitude)
        let middle = ((latitudes.min() ?? 0) + (latitudes.max() ?? 0)) / 2
        let squeeze = cos(middle * .pi / 180)
        let xs = values.map { $0.longitude * squeeze }
        let (minX, minY) = (xs.min() ?? 0, latitudes.min() ?? 0)
        let spanX = max((xs.max() ?? 0) - minX, 1e-6)
        let spanY = max((latitudes.max() ?? 0) - minY, 1e-6)
        let scale = min((width - 2 * margin) / spanX, (height - 2 * margin) / spanY)
        let dots = values.indices.map { index in
            (x: margin + (xs[index] - minX) * scale + ((width - 2 * margin) - spanX * scale) / 2,
             y: height - margin - (latitudes[index] - minY) * scale - ((height - 2 * margin) - spanY * scale) / 2)
        }
        // Each label goes right of its dot, else left, below or above: the first place no earlier label or dot takes
        // (bridges a few hundred metres apart, such as Fremont and University, would otherwise print over each other).
        var taken: [(x: Double, y: Double, width: Double, height: Double)] = dots.map { ($0.x - 8, $0.y - 8, 16, 16) }
        func overlaps(_ box: (x: Double, y: Double, width: Double, height: Double)) -> Bool {
            taken.contains { box.x < $0.x + $0.width && $0.x < box.x + box.width && box.y < $0.y + $0.height
                && $0.y < box.y + box.height }
        }
        var placed: [Place] = []
        for (index, place) in values.enumerated() {
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
            placed.append(Place(
                href: place.link, cx: ChartPaths.number(x), cy: ChartPaths.number(y),
                fill: ChartText.shade(min(place.chance * 2, 1)),
                tip: "\(place.name): \(ChartText.percent(place.chance)) chance of an opening in the next 30 minutes",
                label: PlacedLabel(x: ChartPaths.number(label.x), y: ChartPaths.number(label.y), text: place.name,
                                   anchor: label.anchor)))
        }
        places = placed
        frame = ChartFrame(id: id, width: width, height: height, title: title,
                           summary: "\(values.count) bridges at their positions, coloured by the chance of an opening "
                            + "in the next 30 minutes.")
    }
}
