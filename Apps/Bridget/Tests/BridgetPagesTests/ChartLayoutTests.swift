@testable import BridgetPages
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
        let chart = BarChart(id: "months", title: "Openings per month", unit: "openings", values: values)
        let positions = chart.labels.compactMap { Double($0.x) }
        #expect(positions.count == chart.labels.count && !positions.isEmpty)
        #expect(chart.labels.first?.text == values.first?.label)
        // 11 px text: about 6.2 px a character; centres at least a label's width apart, with room between.
        let width = 7 * 6.2
        for (left, right) in zip(positions, positions.dropFirst()) {
            #expect(right - left >= width + 4, "labels \(left) and \(right) overlap with \(months) months")
        }
        if months <= 13 { #expect(chart.labels.count >= months / 2, "a year keeps most of its labels") }
    }

    @Test("the heatmap and the chance strips have a colour key saying what each colour means")
    func colourKeys() {
        let heatmap = HeatmapChart(id: "heatmap", counts: Array(repeating: Array(0..<24), count: 7), weeks: 10, zone: "UTC")
        #expect(heatmap.key.swatches.map(\.label) == ["none", "6", "12", "17", "23, the most"])
        let chances = ColourKey.chances(id: "strip-key")
        #expect(chances.swatches.first?.label == "0%" && chances.swatches.last?.label == "50% or more")
        let empty = HeatmapChart(id: "heatmap", counts: Array(repeating: Array(repeating: 0, count: 24), count: 7),
                                 weeks: 1, zone: "UTC")
        #expect(empty.key.swatches.map(\.label) == ["none"])
    }

    @Test("a chart's key renders inside the page: swatches with their labels")
    func keyRenders() {
        let html = PageTemplates.render(ColourKey.chances(id: "k"), as: "key")
        #expect(html.contains(#"<svg class="key" id="k""#) && html.contains("50% or more")
                && html.components(separatedBy: "<rect").count == 7)
    }
}
