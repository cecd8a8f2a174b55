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
        compute(bridges: bridges, tallies: Tallies(records: records, mergeGap: mergeGap, occupancy: false),
                generatedAt: generatedAt, mergeGap: mergeGap)
    }

    /// The same from tallies.
    public static func compute(bridges: [BridgeInfoDTO], tallies: Tallies, generatedAt: Date, mergeGap: TimeInterval)
        -> StatisticsDTO
    {
        let perBridge = bridges.map { statistics(for: $0, tally: tallies[$0.id], span: tallies.span) }
        return assemble(perBridge, span: tallies.span, generatedAt: generatedAt, totalRows: tallies.rows, mergeGap: mergeGap)
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
        statistics(for: bridge, tally: OpeningTally(bridgeID: bridge.id, openings: openings, rows: rows, occupancy: false),
                   span: span)
    }

    /// One bridge's figures from its tally.
    public static func statistics(for bridge: BridgeInfoDTO, tally: OpeningTally, span: HistorySpan)
        -> BridgeStatisticsDTO
    {
        let week = tally.hourOfWeek
        let hours = (0..<24).map { hour in week.reduce(0) { $0 + $1[hour] } }
        let busiest = hours.indices.max { (hours[$0], -$0) < (hours[$1], -$1) }
        let hasOpenings = busiest.map { hours[$0] > 0 } ?? false
        let daysPerMonth = span.daysPerMonthOfYear
        let openings = tally.openings
        return BridgeStatisticsDTO(
            bridgeID: bridge.id, bridgeName: bridge.name, openings: openings,
            openingsPerDay: span.days > 0 ? Double(openings) / Double(span.days) : 0,
            timedOpenings: tally.durations.total, meanMinutes: tally.durations.meanMinutes,
            medianMinutes: tally.durations.percentileMinutes(0.5), p90Minutes: tally.durations.percentileMinutes(0.9),
            maxMinutes: tally.durations.maxMinutes,
            busiestHour: hasOpenings ? busiest : nil, busiestHourOpenings: hasOpenings ? busiest.map { hours[$0] } ?? 0 : 0,
            firstOpening: tally.firstStart.map { Date(timeIntervalSince1970: Double($0)) },
            lastOpening: tally.lastStart.map { Date(timeIntervalSince1970: Double($0)) }, rows: tally.rows,
            openingsPerDayByMonth: (1...12).map { month in
                daysPerMonth[month] > 0 ? Double(tally.startsByMonthOfYear[month]) / Double(daysPerMonth[month]) : nil
            },
            hourOfWeek: week, monthlyTrend: tally.monthlyTrend, yearlyTrend: tally.yearlyTrend)
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
        trafficPatterns(bridgeID: bridgeID, tally: OpeningTally(bridgeID: bridgeID, openings: openings, rows: 0, occupancy: false),
                        starts: openings.map { Int64($0.start.timeIntervalSince1970.rounded(.down)) }, flows: flows)
    }

    /// The same from a bridge's tally and its openings' start instants (seconds since 1970; any order; needed only
    /// when there are traffic observations).
    public static func trafficPatterns(bridgeID: String, tally: OpeningTally, starts: [Int64], flows: [TrafficFlowDTO])
        -> TrafficAnalysisDTO
    {
        let week = tally.hourOfWeek
        let hours = (0..<24).map { hour in week.reduce(0) { $0 + $1[hour] } }
        let weekdays = week.map { $0.reduce(0, +) }
        let peaks = hours.indices.filter { hours[$0] > 0 }.sorted { (hours[$0], -$0) > (hours[$1], -$1) }
        return TrafficAnalysisDTO(
            bridgeID: bridgeID, openings: tally.openings, openingsByHour: hours, openingsByWeekday: weekdays,
            peakHours: Array(peaks.prefix(3)), congestionCorrelation: congestionCorrelation(starts, flows))
    }

    static func congestionCorrelation(_ starts: [Int64], _ flows: [TrafficFlowDTO]) -> Double? {
        guard flows.count >= 3 else { return nil }
        let starts = starts.sorted()
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

/// The local days (the source's clock) a history covers, from its first to its last stored opening.
public struct HistorySpan: Sendable, Equatable, Codable {
    public let firstDay: FloatingTimestamp?
    public let lastDay: FloatingTimestamp?

    /// The span from the first to the last local day (day numbers since 1970-01-01; `nil`: no history).
    public init(firstDayNumber: Int?, lastDayNumber: Int?) {
        firstDay = firstDayNumber.map { FloatingTimestamp(wallClockSeconds: Int64($0) * 86_400) }
        lastDay = lastDayNumber.map { FloatingTimestamp(wallClockSeconds: Int64($0) * 86_400) }
    }

    private enum CodingKeys: String, CodingKey { case firstDay, lastDay }

    /// Decodes a span kept as its first and last day numbers.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(firstDayNumber: try container.decodeIfPresent(Int.self, forKey: .firstDay),
                  lastDayNumber: try container.decodeIfPresent(Int.self, forKey: .lastDay))
    }

    /// Encodes the span as its first and last day numbers.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(firstDay?.dayNumber, forKey: .firstDay)
        try container.encodeIfPresent(lastDay?.dayNumber, forKey: .lastDay)
    }

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
