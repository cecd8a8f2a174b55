import BridgetDTOs
import Foundation

/// Pure statistics over a set of events; the definitions are documented on `BridgeStatisticsDTO`.
public enum OpeningStatistics {
    /// Figures for every bridge of `bridges` (those without events included, with zero openings).
    public static func compute(bridges: [BridgeInfoDTO], events: [BridgeEventDTO], generatedAt: Date) -> StatisticsDTO {
        var byBridge: [String: [BridgeEventDTO]] = [:]
        var firstDay: FloatingTimestamp?
        var lastDay: FloatingTimestamp?
        for event in events {
            byBridge[event.bridgeID, default: []].append(event)
            guard let reading = FloatingTimestamp(event.openLocal),
                  let day = FloatingTimestamp(year: reading.year, month: reading.month, day: reading.day, hour: 0, minute: 0)
            else { continue }
            if firstDay.map({ day < $0 }) ?? true { firstDay = day }
            if lastDay.map({ day > $0 }) ?? true { lastDay = day }
        }
        var days = 0
        if let firstDay, let lastDay {
            days = Int((lastDay.wallClockSeconds - firstDay.wallClockSeconds) / 86_400) + 1
        }
        let perBridge = bridges.map { bridge in
            statistics(for: bridge, events: byBridge[bridge.id] ?? [], days: days)
        }
        return StatisticsDTO(
            generatedAt: generatedAt, firstDay: firstDay?.dateString, lastDay: lastDay?.dateString, days: days,
            totalOpenings: events.count, bridges: perBridge)
    }

    static func statistics(for bridge: BridgeInfoDTO, events: [BridgeEventDTO], days: Int) -> BridgeStatisticsDTO {
        let durations = events.compactMap(\.durationMinutes).sorted()
        var hours = [Int](repeating: 0, count: 24)
        for event in events {
            if let reading = FloatingTimestamp(event.openLocal) { hours[reading.hour] += 1 }
        }
        let busiest = hours.indices.max { (hours[$0], -$0) < (hours[$1], -$1) }
        let hasOpenings = busiest.map { hours[$0] > 0 } ?? false
        return BridgeStatisticsDTO(
            bridgeID: bridge.id, bridgeName: bridge.name, openings: events.count,
            openingsPerDay: days > 0 ? Double(events.count) / Double(days) : 0,
            timedOpenings: durations.count,
            meanMinutes: durations.isEmpty ? nil : durations.reduce(0, +) / Double(durations.count),
            medianMinutes: nearestRank(durations, 0.5), p90Minutes: nearestRank(durations, 0.9),
            maxMinutes: durations.last,
            busiestHour: hasOpenings ? busiest : nil, busiestHourOpenings: hasOpenings ? busiest.map { hours[$0] } ?? 0 : 0,
            firstOpening: events.map(\.openedAt).min(), lastOpening: events.map(\.openedAt).max())
    }

    /// The nearest-rank percentile of sorted values: the value at 1-based rank ⌈p·n⌉.
    public static func nearestRank(_ sorted: [Double], _ percentile: Double) -> Double? {
        guard !sorted.isEmpty else { return nil }
        let rank = Int((percentile * Double(sorted.count)).rounded(.up))
        return sorted[min(max(rank, 1), sorted.count) - 1]
    }

    /// Openings by local hour and weekday, and the busiest hours.
    public static func trafficPatterns(bridgeID: String, events: [BridgeEventDTO]) -> TrafficAnalysisDTO {
        var hours = [Int](repeating: 0, count: 24)
        var weekdays = [Int](repeating: 0, count: 7)
        for event in events {
            guard let reading = FloatingTimestamp(event.openLocal) else { continue }
            hours[reading.hour] += 1
            weekdays[reading.weekday - 1] += 1
        }
        let peaks = hours.indices.filter { hours[$0] > 0 }.sorted { (hours[$0], -$0) > (hours[$1], -$1) }
        return TrafficAnalysisDTO(
            bridgeID: bridgeID, openings: events.count, openingsByHour: hours, openingsByWeekday: weekdays,
            peakHours: Array(peaks.prefix(3)), congestionCorrelation: nil)
    }
}
