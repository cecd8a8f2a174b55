import BridgetCharts
import Foundation

/// The 7 × 24 hour-of-week heatmap: a cell per hour (168), its colour the openings counted there, its tooltip the
/// count and the chance of an opening in that hour of a week (from the weeks of history); with its colour key.
struct HeatmapChart: Sendable {
    struct Day: Sendable {
        let label: String
        let labelX: String
        let labelY: String
        let cells: [Cell]
    }

    struct Cell: Sendable {
        let x: String
        let y: String
        let width: String
        let height: String
        let fill: String
        let count: Int
        let tip: String
    }

    let frame: ChartFrame
    let hours: [AxisTick]
    let days: [Day]
    let key: ColourKey

    init(id: String, counts: [[Int]], weeks: Double, zone: String) {
        let (left, top, cell, height) = (92.0, 22.0, 24.0, 20.0)
        let width = left + cell * 24 + 8
        let total = counts.joined().reduce(0, +)
        let most = max(counts.joined().max() ?? 0, 1)
        let columns = BandScale(count: 24, from: left, to: left + cell * 24)
        hours = stride(from: 0, to: 24, by: 3).map { hour in
            AxisTick(x: ChartPaths.number(columns.center(hour)), y: "14", label: String(format: "%02d", hour), grid: nil)
        }
        days = counts.prefix(7).enumerated().map { day, row in
            let y = top + Double(day) * height
            return Day(
                label: ChartText.weekdays[day], labelX: ChartPaths.number(left - 6), labelY: ChartPaths.number(y + 14),
                cells: row.prefix(24).enumerated().map { hour, count in
                    let chance = 1 - exp(-Double(count) / max(weeks, 1))
                    let tip = "\(ChartText.weekdays[day]) \(String(format: "%02d:00–%02d:00", hour, (hour + 1) % 24)): "
                        + "\(count) opening\(count == 1 ? "" : "s"), \(ChartText.percent(chance)) chance of one in that "
                        + "hour of a week"
                    return Cell(x: ChartPaths.number(columns.position(hour)), y: ChartPaths.number(y),
                                width: ChartPaths.number(cell - 1), height: ChartPaths.number(height - 1),
                                fill: count == 0 ? ChartPalette.empty : ChartText.shade(Double(count) / Double(most)),
                                count: count, tip: tip)
                })
        }
        let busiest = counts.prefix(7).enumerated().flatMap { day, row in row.enumerated().map { (day, $0, $1) } }
            .max { $0.2 < $1.2 }
        let summary = total == 0 ? "No openings stored."
            : "\(total) openings by hour of the week (\(zone) time); the busiest hour is "
                + (busiest.map { "\(ChartText.weekdays[$0.0]) \(String(format: "%02d:00", $0.1)) with \($0.2)" } ?? "none")
                + "."
        frame = ChartFrame(id: id, width: width, height: top + height * 7 + 6, title: "Openings by hour of the week",
                           summary: summary)
        key = ColourKey.counts(id: id + "-key", most: total == 0 ? 0 : most)
    }
}
