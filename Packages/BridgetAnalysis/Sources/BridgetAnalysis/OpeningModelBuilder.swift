import BridgetDTOs
import Foundation

/// Builds and queries `OpeningModelDTO`s.
///
/// Per slot s of the week with n occurrences in the history: the start rate is (starts + k·base) / (n + k) and the
/// chance of a start is 1 − e^(−rate) (openings as a Poisson process within the slot); the open chance is
/// (open minutes + k·15·baseOpen) / (15·n + 15·k); the mean remaining closure is (Σ remaining + k·baseRemaining) /
/// (open minutes + k). k = `smoothing` pseudo-occurrences pull thin slots toward the bridge's overall figures.
public struct OpeningModelBuilder: Sendable {
    /// Pseudo-occurrences of the overall rate added to every slot.
    public let smoothing: Double

    /// Creates a builder.
    public init(smoothing: Double = 4) {
        self.smoothing = max(smoothing, 0)
    }

    /// The model of one bridge from its merged openings, over the days of `span`.
    public func build(
        bridgeID: String, openings: [MergedOpening], span: HistorySpan, builtAt: Date, sourceEvents: Int,
        sourceLatestOpening: Date?
    ) -> OpeningModelDTO {
        let slotCount = OpeningModelDTO.slotsPerWeek
        var starts = [Int](repeating: 0, count: slotCount)
        var openMinutes = [Double](repeating: 0, count: slotCount)
        var remaining = [Double](repeating: 0, count: slotCount)
        for opening in openings {
            starts[OpeningModelDTO.slot(of: opening.startLocal)] += 1
            guard let duration = opening.durationMinutes, duration > 0 else { continue }
            let wall = opening.startLocal.wallClockSeconds
            // Each whole minute the bridge was open, capped at a day so a bad row cannot run away.
            for minute in 0..<min(Int(duration.rounded(.up)), 1_440) {
                let reading = FloatingTimestamp(wallClockSeconds: wall + Int64(minute * 60))
                let slot = OpeningModelDTO.slot(of: reading)
                openMinutes[slot] += 1
                remaining[slot] += duration - Double(minute)
            }
        }
        let perWeekday = span.daysPerWeekday
        let occurrences = (0..<slotCount).map { perWeekday[$0 / 96] }
        let totalOccurrences = Double(occurrences.reduce(0, +))
        let totalOpenMinutes = openMinutes.reduce(0, +)
        let baseRate = totalOccurrences > 0 ? Double(openings.count) / totalOccurrences : 0
        let baseOpen = totalOccurrences > 0 ? totalOpenMinutes / (totalOccurrences * 15) : 0
        let baseRemaining = totalOpenMinutes > 0 ? remaining.reduce(0, +) / totalOpenMinutes : 0
        let k = smoothing
        let slots = (0..<slotCount).map { slot in
            let n = Double(occurrences[slot])
            let rate = n + k > 0 ? (Double(starts[slot]) + k * baseRate) / (n + k) : 0
            let open = n + k > 0 ? (openMinutes[slot] + k * 15 * baseOpen) / (15 * (n + k)) : 0
            let meanRemaining = openMinutes[slot] + k > 0 ? (remaining[slot] + k * baseRemaining) / (openMinutes[slot] + k) : 0
            return OpeningSlotDTO(
                starts: starts[slot], occurrences: occurrences[slot], startProbability: 1 - exp(-rate),
                openProbability: min(open, 1), meanRemainingMinutes: meanRemaining)
        }
        return OpeningModelDTO(
            bridgeID: bridgeID, builtAt: builtAt, firstDay: span.firstDay?.dateString, lastDay: span.lastDay?.dateString,
            openings: openings.count, sourceEvents: sourceEvents, sourceLatestOpening: sourceLatestOpening,
            baseStartProbability: 1 - exp(-baseRate), baseOpenProbability: min(baseOpen, 1), slots: slots)
    }

    /// Models for every bridge, from all stored events.
    public func buildAll(bridges: [BridgeInfoDTO], events: [BridgeEventDTO], mergeGap: TimeInterval, builtAt: Date)
        -> [OpeningModelDTO]
    {
        let span = HistorySpan(events: events)
        var byBridge: [String: [MergedOpening]] = [:]
        for opening in MergedOpening.merge(events, gap: mergeGap) { byBridge[opening.bridgeID, default: []].append(opening) }
        let latest = events.map(\.openedAt).max()
        return bridges.map { bridge in
            build(bridgeID: bridge.id, openings: byBridge[bridge.id] ?? [], span: span, builtAt: builtAt,
                  sourceEvents: events.count, sourceLatestOpening: latest)
        }
    }

    /// The forecast for arriving at `reading` and for openings starting within `windowMinutes` after it.
    public static func forecast(_ model: OpeningModelDTO, bridge: BridgeInfoDTO, at reading: FloatingTimestamp,
                                windowMinutes: Int) -> ForecastDTO {
        let window = max(windowMinutes, 1)
        var noOpening = 1.0
        var starts = 0
        var occurrences = 0
        var covered = Set<Int>()
        // Walk the window minute by minute: each minute takes 1/15 of its slot's chance.
        for minute in 0..<window {
            let slot = OpeningModelDTO.slot(of: FloatingTimestamp(wallClockSeconds: reading.wallClockSeconds + Int64(minute * 60)))
            noOpening *= pow(1 - model.slots[slot].startProbability, 1.0 / Double(OpeningModelDTO.slotMinutes))
            if covered.insert(slot).inserted {
                starts += model.slots[slot].starts
                occurrences += model.slots[slot].occurrences
            }
        }
        let arrival = model.slots[OpeningModelDTO.slot(of: reading)]
        let base = 1 - pow(1 - model.baseStartProbability, Double(window) / Double(OpeningModelDTO.slotMinutes))
        return ForecastDTO(
            bridgeID: bridge.id, bridgeName: bridge.name, at: String(reading.description.prefix(16)), windowMinutes: window,
            chanceOfOpening: 1 - noOpening, chanceOpenOnArrival: arrival.openProbability,
            expectedDelayMinutes: arrival.openProbability * arrival.meanRemainingMinutes, baseChanceOfOpening: base,
            sampleStarts: starts, sampleOccurrences: occurrences)
    }
}
