import BridgetDTOs
import Foundation

/// Pure statistics over a set of events; the definitions are documented on `BridgeStatisticsDTO`.
public enum OpeningStatistics {
    /// Figures for every bridge of `bridges` (those without events included, with zero openings), counting
    /// rows closer than `mergeGap` seconds as one opening.
    public static func compute(
        bridges: [BridgeInfoDTO], events: [BridgeEventDTO], generatedAt: Date, mergeGap: TimeInterval = 0
    ) -> StatisticsDTO {
        compute(bridges: bridges, records: events.compactMap(OpeningRecordDTO.init), generatedAt: generatedAt,
                mergeGap: mergeGap)
    }

    /// The same from lean records.
    public static func compute(
        bridges: [BridgeInfoDTO], records: [OpeningRecordDTO], generatedAt: Date, mergeGap: TimeInterval = 0
    ) -> StatisticsDTO {
        let span = HistorySpan(records: records)
        var rowsByBridge: [String: Int] = [:]
        for record in records { rowsByBridge[record.bridgeID, default: 0] += 1 }
        var openingsByBridge: [String: [MergedOpening]] = [:]
        for opening in MergedOpening.merge(records: records, gap: mergeGap) {
            openingsByBridge[opening.bridgeID, default: []].append(opening)
        }
        let perBridge = bridges.map { bridge in
            statistics(for: bridge, openings: openingsByBridge[bridge.id] ?? [], rows: rowsByBridge[bridge.id] ?? 0,
                       span: span)
        }
        return assemble(perBridge, span: span, generatedAt: generatedAt, totalRows: records.count, mergeGap: mergeGap)
    }

    /// Network-wide figures from per-bridge ones (shared by the serial and the parallel processor).
    public static func assemble(
        _ perBridge: [BridgeStatisticsDTO], span: HistorySpan, generatedAt: Date, totalRows: Int, mergeGap: TimeInterval
    ) -> StatisticsDTO {
        var network = [[Int]](repeating: [Int](repeating: 0, count: 24), count: 7)
        for bridge in perBridge {
            for day in 0..<7 { for hour in 0..<24 { network[day][hour] += bridge.hourOfWeek[day][hour] } }
        }
        return StatisticsDTO(
            generatedAt: generatedAt, firstDay: span.firstDay?.dateString, lastDay: span.lastDay?.dateString,
            days: span.days, totalOpenings: perBridge.reduce(0) { $0 + $1.openings }, totalRows: totalRows,
            mergeGapMinutes: mergeGap / 60, hourOfWeek: network, bridges: perBridge)
    }

    /// One bridge's figures from its merged openings.
    public static func statistics(for bridge: BridgeInfoDTO, openings: [MergedOpening], rows: Int, span: HistorySpan)
        -> BridgeStatisticsDTO
    {
        let durations = openings.compactMap(\.durationMinutes).sorted()
        var hours = [Int](repeating: 0, count: 24)
        var week = [[Int]](repeating: [Int](repeating: 0, count: 24), count: 7)
        var byMonthOfYear = [Int](repeating: 0, count: 13)
        var monthly: [String: Int] = [:]
        var yearly: [String: Int] = [:]
        for opening in openings {
            let local = opening.startLocal
            hours[local.hour] += 1
            week[local.mondayFirstWeekday][local.hour] += 1
            byMonthOfYear[local.month] += 1
            monthly[String(local.dateString.prefix(7)), default: 0] += 1
            yearly[String(local.dateString.prefix(4)), default: 0] += 1
        }
        let busiest = hours.indices.max { (hours[$0], -$0) < (hours[$1], -$1) }
        let hasOpenings = busiest.map { hours[$0] > 0 } ?? false
        let daysPerMonth = span.daysPerMonthOfYear
        return BridgeStatisticsDTO(
            bridgeID: bridge.id, bridgeName: bridge.name, openings: openings.count,
            openingsPerDay: span.days > 0 ? Double(openings.count) / Double(span.days) : 0,
            timedOpenings: durations.count,
            meanMinutes: durations.isEmpty ? nil : durations.reduce(0, +) / Double(durations.count),
            medianMinutes: nearestRank(durations, 0.5), p90Minutes: nearestRank(durations, 0.9),
            maxMinutes: durations.last,
            busiestHour: hasOpenings ? busiest : nil, busiestHourOpenings: hasOpenings ? busiest.map { hours[$0] } ?? 0 : 0,
            firstOpening: openings.map(\.start).min(), lastOpening: openings.map(\.start).max(), rows: rows,
            openingsPerDayByMonth: (1...12).map { month in
                daysPerMonth[month] > 0 ? Double(byMonthOfYear[month]) / Double(daysPerMonth[month]) : nil
            },
            hourOfWeek: week, monthlyTrend: monthly, yearlyTrend: yearly)
    }

    /// The nearest-rank percentile of sorted values: the value at 1-based rank ⌈p·n⌉.
    public static func nearestRank(_ sorted: [Double], _ percentile: Double) -> Double? {
        guard !sorted.isEmpty else { return nil }
        let rank = Int((percentile * Double(sorted.count)).rounded(.up))
        return sorted[min(max(rank, 1), sorted.count) - 1]
    }

    /// Openings by local hour and weekday, the busiest hours, and, when traffic observations exist, the Pearson
    /// correlation between each observed hour's congestion and the openings that started within it.
    public static func trafficPatterns(bridgeID: String, openings: [MergedOpening], flows: [TrafficFlowDTO] = [])
        -> TrafficAnalysisDTO
    {
        var hours = [Int](repeating: 0, count: 24)
        var weekdays = [Int](repeating: 0, count: 7)
        for opening in openings {
            hours[opening.startLocal.hour] += 1
            weekdays[opening.startLocal.mondayFirstWeekday] += 1
        }
        let peaks = hours.indices.filter { hours[$0] > 0 }.sorted { (hours[$0], -$0) > (hours[$1], -$1) }
        return TrafficAnalysisDTO(
            bridgeID: bridgeID, openings: openings.count, openingsByHour: hours, openingsByWeekday: weekdays,
            peakHours: Array(peaks.prefix(3)), congestionCorrelation: congestionCorrelation(openings, flows))
    }

    static func congestionCorrelation(_ openings: [MergedOpening], _ flows: [TrafficFlowDTO]) -> Double? {
        guard flows.count >= 3 else { return nil }
        let starts = openings.map { Int64($0.start.timeIntervalSince1970.rounded(.down)) }.sorted()
        var x: [Double] = []
        var y: [Double] = []
        var cursor = 0
        for flow in flows.sorted(by: { $0.timestamp < $1.timestamp }) {
            let from = Int64(flow.timestamp.timeIntervalSince1970.rounded(.down))
            while cursor < starts.count && starts[cursor] < from { cursor += 1 }
            var count = 0
            var index = cursor
            while index < starts.count && starts[index] < from + 3_600 {
                count += 1
                index += 1
            }
            x.append(Double(count))
            y.append(flow.congestionLevel)
        }
        let n = Double(x.count)
        let meanX = x.reduce(0, +) / n
        let meanY = y.reduce(0, +) / n
        var covariance = 0.0
        var varianceX = 0.0
        var varianceY = 0.0
        for (a, b) in zip(x, y) {
            covariance += (a - meanX) * (b - meanY)
            varianceX += (a - meanX) * (a - meanX)
            varianceY += (b - meanY) * (b - meanY)
        }
        guard varianceX > 0, varianceY > 0 else { return nil }
        return covariance / (varianceX * varianceY).squareRoot()
    }
}

/// The Seattle local days a history covers, from its first to its last stored opening.
public struct HistorySpan: Sendable, Equatable {
    public let firstDay: FloatingTimestamp?
    public let lastDay: FloatingTimestamp?

    /// The span of lean records.
    public init(records: [OpeningRecordDTO]) {
        var first: Int?
        var last: Int?
        for record in records {
            let day = Int(record.openWall.floorDivided(by: 86_400))
            if first.map({ day < $0 }) ?? true { first = day }
            if last.map({ day > $0 }) ?? true { last = day }
        }
        firstDay = first.map { FloatingTimestamp(wallClockSeconds: Int64($0) * 86_400) }
        lastDay = last.map { FloatingTimestamp(wallClockSeconds: Int64($0) * 86_400) }
    }

    /// Calendar days from the first to the last day, inclusive (0 for no history).
    public var days: Int {
        guard let firstDay, let lastDay else { return 0 }
        return lastDay.dayNumber - firstDay.dayNumber + 1
    }

    /// Days of the span falling in each month of the year (index 1…12).
    public var daysPerMonthOfYear: [Int] {
        var counts = [Int](repeating: 0, count: 13)
        guard let firstDay, let lastDay else { return counts }
        for day in firstDay.dayNumber...lastDay.dayNumber { counts[CivilCalendar.civilFromDays(day).month] += 1 }
        return counts
    }

    /// Days of the span falling on each weekday (Monday = 0).
    public var daysPerWeekday: [Int] {
        var counts = [Int](repeating: 0, count: 7)
        guard let firstDay, let lastDay else { return counts }
        for day in firstDay.dayNumber...lastDay.dayNumber { counts[((day + 3) % 7 + 7) % 7] += 1 }
        return counts
    }
}

extension Int64 {
    /// Division rounding toward negative infinity.
    func floorDivided(by divisor: Int64) -> Int64 {
        let quotient = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }
}
