@testable import BridgetPages
import BridgetDTOs
import Foundation
import Testing

/// What the charts lay out: labels that fit, and a key for every colour scale.
@Suite("chart layout")
struct ChartLayoutTests {
    @Test("a month axis thins its labels so none runs into the next, however many months", arguments: [3, 13, 25, 60])
    func monthLabels(months: Int) throws {
        let values: [(label: String, value: Double)] = (0..<months).map { month in
            let (year, monthOfYear): (Int, Int) = (2021 + month / 12, month % 12 + 1)
            return (label: String(format: "%04d-%02d", year, monthOfYear), value: 10.0)
        }
        let chart = BarChart(id: "months", title: "Openings per month", unit: "openings", values: values,
                             xTitle: "month", yTitle: "openings")
        let positions = chart.labels.compactMap { Double($0.x) }
        #expect(positions.count == chart.labels.count && !positions.isEmpty)
        #expect(chart.labels.first?.text == values.first?.label)
        // Centres at least a label's width apart, with room between.
        let width = 7 * ChartText.characterWidth
        for (left, right) in zip(positions, positions.dropFirst()) {
            #expect(right - left >= width + 4, "labels \(left) and \(right) overlap with \(months) months")
        }
        if months <= 13 { #expect(chart.labels.count >= months / 3, "a year keeps every second or third label") }
    }

    @Test("one colour scale on every page: the heatmap, the strips and the map key the same swatches, 0% included")
    func colourKeys() {
        let heatmap = HeatmapChart(id: "heatmap", counts: Array(repeating: Array(0..<24), count: 7), weeks: 10, zone: "UTC")
        let strips = ColourKey.chances(id: "strip-key", over: "in each quarter hour")
        let map = MapChart(id: "map", title: "map", places: [
            MapChart.Input(name: "A", latitude: 47.6, longitude: -122.3, waterway: "w", chance: 0.2, link: "a",
                           state: nil, stateText: nil),
        ])
        for key in [heatmap.key, strips, map.key] {
            #expect(key.swatches.map(\.label) == ["0%", "10%", "20%", "30%", "40%", "50% or more"])
            #expect(key.swatches.map(\.fill) == strips.swatches.map(\.fill))
            #expect(key.title.hasPrefix("Colour: the chance of an opening "))
        }
        // A cell's colour is its chance on that scale: no openings is the 0% swatch, not a colour the key lacks.
        let empty = HeatmapChart(id: "heatmap", counts: Array(repeating: Array(repeating: 0, count: 24), count: 7),
                                 weeks: 1, zone: "UTC")
        #expect(Set(empty.days.flatMap(\.cells).map(\.fill)) == [strips.swatches[0].fill])
        #expect(heatmap.days[0].cells[23].fill == ChartText.chanceFill(1 - exp(-23.0 / 10)))
    }

    @Test("a chart's key renders inside the page: its title, then swatches with their labels")
    func keyRenders() {
        let html = PageTemplates.render(ColourKey.chances(id: "k", over: "in the next 30 minutes"), as: "key")
        #expect(html.contains(#"<ul class="key" id="k""#) && html.contains("50% or more")
                && html.contains("in the next 30 minutes:")
                && html.components(separatedBy: #"<span class="swatch""#).count == 7)
    }

    @Test("the map puts every label where no other label, dot or ring is, however the bridges stand",
          arguments: [nil, "3", "2"])
    func mapLabels(open: String?) throws {
        // Seattle's seven bridges, one of them ringed as open (its ring is wider than its dot).
        let places = BridgeCatalog.seattle.bridges.map { bridge in
            MapChart.Input(name: bridge.name, latitude: bridge.latitude, longitude: bridge.longitude,
                           waterway: bridge.waterway, chance: 0.1, link: bridge.id,
                           state: bridge.id == open ? "open" : nil, stateText: nil)
        }
        let map = MapChart(id: "map", title: "map", places: places)
        typealias Box = (x: Double, y: Double, width: Double, height: Double)
        func box(_ label: PlacedLabel) -> Box {
            let width = Double(label.text.count) * ChartText.characterWidth
            let x = Double(label.x)!, y = Double(label.y)!
            let left = label.anchor == "start" ? x : label.anchor == "end" ? x - width : x - width / 2
            return (left, y - 11, width, 13)
        }
        func meet(_ a: Box, _ b: Box) -> Bool {
            a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height
        }
        let labels = map.places.map { box($0.label) } + map.waterways.compactMap { $0.label.map(box) }
            + (map.breakLine.map { [box($0.label)] } ?? [])
        let dots: [Box] = map.places.map { place in
            let reach = place.ring == nil ? 8.0 : 14.5
            return (Double(place.cx)! - reach, Double(place.cy)! - reach, 2 * reach, 2 * reach)
        }
        for (index, label) in labels.enumerated() {
            for other in labels[(index + 1)...] { #expect(!meet(label, other), "two labels meet: \(label) \(other)") }
            for dot in dots { #expect(!meet(label, dot), "a label covers a dot or ring: \(label) \(dot)") }
            #expect(label.x >= 0 && label.x + label.width <= Double(map.frame.width)!, "a label is cut: \(label)")
        }
        #expect(map.places.count == 7 && map.waterways.count == 2)
        // The empty stretch between the Ship Canal and the Duwamish is cut out: the bridges fill the frame.
        let break_ = try #require(map.breakLine)
        #expect(break_.label.text.hasPrefix("≈ ") && break_.label.text.hasSuffix(" km of the city not shown"))
        let ys = map.places.compactMap { Double($0.cy) }
        #expect((ys.max() ?? 0) - (ys.min() ?? 0) > 0.6 * (Double(map.frame.height)! - 72))
    }

    @Test("a name too long to fit beside its dot is shortened with an ellipsis, never cut at the map's edge")
    func longNames() {
        // NDW's names carry coordinates: 40 characters, 280 units of a 380-unit map.
        let places = [(52.378, 4.900), (52.708, 4.716), (52.500, 4.800)].enumerated().map { index, position in
            MapChart.Input(name: "NL AMS bridge 0100\(index) (\(position.0)° N, \(position.1)° E)", latitude: position.0,
                           longitude: position.1, waterway: "", chance: 0.1, link: "\(index)", state: nil, stateText: nil)
        }
        let map = MapChart(id: "map", title: "map", places: places)
        let width = Double(map.frame.width)!
        for (place, input) in zip(map.places, places) {
            let label = place.label
            let textWidth = Double(label.text.count) * ChartText.characterWidth
            let x = Double(label.x)!
            let left = label.anchor == "start" ? x : label.anchor == "end" ? x - textWidth : x - textWidth / 2
            #expect(left >= 0 && left + textWidth <= width, "\(label.text) runs out of the map")
            #expect(label.text == input.name
                    || (label.text.hasSuffix("…") && input.name.hasPrefix(String(label.text.dropLast()))), "\(label.text)")
            #expect(place.tip.contains("° E)"), "the tooltip keeps the whole name")
        }
    }

    @Test("a bridge at no finite position is left off the map; the others are placed", arguments: [
        Double.nan, .infinity, -.infinity,
    ])
    func unplaceable(latitude: Double) {
        let places = BridgeCatalog.seattle.bridges.enumerated().map { index, bridge in
            MapChart.Input(name: bridge.name, latitude: index == 0 ? latitude : bridge.latitude,
                           longitude: bridge.longitude, waterway: bridge.waterway, chance: 0.1, link: bridge.id,
                           state: nil, stateText: nil)
        }
        let map = MapChart(id: "map", title: "map", places: places)
        #expect(map.places.count == 6)
        #expect(map.places.allSatisfy { Double($0.cx)!.isFinite && Double($0.cy)!.isFinite })
    }
}
