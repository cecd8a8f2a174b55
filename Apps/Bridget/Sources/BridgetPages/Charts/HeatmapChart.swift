import BridgetCharts
import Foundation

/// The 7 × 24 hour-of-week heatmap: a cell per hour (168) coloured by the chance of an opening in that hour of a week
/// (from the weeks of history; the same scale as every chart of the pages), its tip the count and the chance; hours
/// along the top, the days down the side, with its colour key.
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
    let axisTitles: [PlacedLabel]
    let key: ColourKey

    init(id: String, counts: [[Int]], weeks: Double, zone: String) {
        let (left, top, height) = (36.0, 34.0, 17.0)
        let width = 390.0
        let cell = (width - left - 4) / 24
        let total = counts.joined().reduce(0, +)
        let columns = BandScale(count: 24, from: left, to: left + cell * 24)
        hours = stride(from: 0, to: 24, by: 3).map { hour in
            AxisTick(x: ChartPaths.number(columns.center(hour)), y: ChartPaths.number(top - 5),
                     label: String(format: "%02d", hour), grid: nil)
        }
        let chanceOf = { (count: Int) in 1 - exp(-Double(count) / max(weeks, 1)) }
        days = counts.prefix(7).enumerated().map { day, row in
            let y = top + Double(day) * height
            return Day(
                label: String(ChartText.weekdays[day].prefix(3)), labelX: ChartPaths.number(left - 5),
                labelY: ChartPaths.number(y + 12.5),
                cells: row.prefix(24).enumerated().map { hour, count in
                    let chance = chanceOf(count)
                    let tip = "\(ChartText.weekdays[day]) \(String(format: "%02d:00–%02d:00", hour, (hour + 1) % 24)): "
                        + "\(count) opening\(count == 1 ? "" : "s") on record, \(ChartText.percent(chance)) chance of "
                        + "one in that hour of a week"
                    return Cell(x: ChartPaths.number(columns.position(hour)), y: ChartPaths.number(y),
                                width: ChartPaths.number(cell - 1), height: ChartPaths.number(height - 1),
                                fill: ChartText.chanceFill(chance), count: count, tip: tip)
                })
        }
        axisTitles = [PlacedLabel(x: ChartPaths.number(left), y: "12", text: "hour of the day (\(zone) time)",
                                  anchor: "start")]
        let busiest = counts.prefix(7).enumerated().flatMap { day, row in row.enumerated().map { (day, $0, $1) } }
            .max { $0.2 < $1.2 }
        let summary = total == 0 ? "No openings on record."
            : "\(total) openings by hour of the week (\(zone) time); the busiest hour is "
                + (busiest.map { "\(ChartText.weekdays[$0.0]) \(String(format: "%02d:00", $0.1)) with \($0.2)" } ?? "none")
                + "."
        let days = Int((weeks * 7).rounded())
        let span = days < 14 ? (days == 1 ? "1 day" : "\(days) days") : "\(Int(weeks.rounded())) weeks"
        frame = ChartFrame(id: id, width: width, height: top + height * 7 + 4, title: "Openings by hour of the week",
                           summary: summary,
                           caption: "Each cell is an hour of the week, coloured by the chance that the bridge opens in "
                            + "it, from the \(total) opening\(total == 1 ? "" : "s") on record over \(span). Tap or hover a cell for its "
                            + "count and chance.")
        key = ColourKey.chances(id: id + "-key", over: "in that hour of a week")
    }
}
