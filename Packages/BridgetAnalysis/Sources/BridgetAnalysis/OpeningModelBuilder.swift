import BridgetDTOs
import BridgetRiver
import Foundation

/// Builds and queries `OpeningModelDTO`s.
///
/// Smoothing has two levels, so that thin slots are never 0 or 1 and noise does not pass for pattern. A slot's
/// figures are pulled toward its *pool* (the same quarter-hour on all weekdays, or on both weekend days: five or two
/// times the data), and the pool's toward the bridge's overall figures:
/// pool rate = (pool starts + k₁·overall) / (pool occurrences + k₁); slot rate = (starts + k₂·pool rate) / (n + k₂).
/// The strengths k₁, k₂ are estimated per bridge from the data (empirical Bayes, method of moments: the prior mean
/// over the spread of true rates that the counts show beyond Poisson noise), never below `smoothing` and 2·`smoothing`:
/// a bridge whose slots really differ (the rush-hour curfew) keeps them apart; one whose differences are noise is
/// pooled. The chance of a start is 1 − e^(−rate) (openings as a Poisson process within the slot). Open chance and
/// mean remaining closure use the same strengths.
///
/// Beyond the slots (`OpeningDynamicsDTO`): with `rules`, a federal holiday that lifts a bridge's curfew counts as a
/// Sunday (in the tallies and in the slots' occurrences), so a holiday's rush hour is learnt and forecast as a
/// weekend's; the river model's links into each bridge and its background (`RiverLearner`) and its durations, for the
/// forecasts (`Nowcaster`).
public struct OpeningModelBuilder: Sendable {
    /// Pseudo-occurrences of the overall rate added to every slot.
    public let smoothing: Double
    /// Learns which bridges' openings bring openings of which.
    public let riverLearner: RiverLearner

    /// Creates a builder.
    public init(smoothing: Double = 4, riverLearner: RiverLearner = RiverLearner()) {
        self.smoothing = max(smoothing, 0)
        self.riverLearner = riverLearner
    }

    /// The model of one bridge from its merged openings, over the days of `span`.
    public func build(
        bridgeID: String, openings: [MergedOpening], span: HistorySpan, builtAt: Date, sourceEvents: Int,
        sourceLatestOpening: Date?
    ) -> OpeningModelDTO {
        build(tally: OpeningTally(bridgeID: bridgeID, openings: openings, rows: 0), span: span, builtAt: builtAt,
              sourceEvents: sourceEvents, sourceLatestOpening: sourceLatestOpening)
    }

    /// The model of one bridge from its tally (with occupancy), over the days of `span`.
    public func build(
        tally: OpeningTally, span: HistorySpan, builtAt: Date, sourceEvents: Int, sourceLatestOpening: Date?
    ) -> OpeningModelDTO {
        let slotCount = OpeningModelDTO.slotsPerWeek
        let bridgeID = tally.bridgeID
        let starts = tally.startsBySlot
        assert(!tally.openMinutes.isEmpty || tally.openings == 0, "a model needs a tally with occupancy")
        let noOccupancy = [Double](repeating: 0, count: slotCount)
        let openMinutes = tally.openMinutes.isEmpty ? noOccupancy : tally.openMinutes
        let remaining = tally.remainingMinutes.isEmpty ? noOccupancy : tally.remainingMinutes
        let openingCount = tally.openings
        let perWeekday = Self.daysPerWeekday(of: span, tally: tally)
        let occurrences = (0..<slotCount).map { perWeekday[$0 / 96] }
        let totalOccurrences = Double(occurrences.reduce(0, +))
        let totalOpenMinutes = openMinutes.reduce(0, +)
        let baseRate = totalOccurrences > 0 ? Double(openingCount) / totalOccurrences : 0
        let baseOpen = totalOccurrences > 0 ? totalOpenMinutes / (totalOccurrences * 15) : 0
        let baseRemaining = totalOpenMinutes > 0 ? remaining.reduce(0, +) / totalOpenMinutes : 0
        // Pools: the same quarter-hour on weekdays (Monday–Friday) or on weekends.
        let pool = { (slot: Int) in (slot / 96 >= 5 ? 96 : 0) + slot % 96 }
        var poolStarts = [Double](repeating: 0, count: 192)
        var poolOccurrences = [Double](repeating: 0, count: 192)
        var poolOpen = [Double](repeating: 0, count: 192)
        var poolRemaining = [Double](repeating: 0, count: 192)
        for slot in 0..<slotCount {
            poolStarts[pool(slot)] += Double(starts[slot])
            poolOccurrences[pool(slot)] += Double(occurrences[slot])
            poolOpen[pool(slot)] += openMinutes[slot]
            poolRemaining[pool(slot)] += remaining[slot]
        }
        let k = smoothing > 0
            ? max(smoothing, Self.strength(poolStarts, poolOccurrences, prior: { _ in baseRate })) : 0
        let poolRates = (0..<192).map { g in
            poolOccurrences[g] + k > 0 ? (poolStarts[g] + k * baseRate) / (poolOccurrences[g] + k) : 0
        }
        let k1 = smoothing > 0
            ? max(2 * smoothing, Self.strength(starts.map(Double.init), occurrences.map(Double.init),
                                              prior: { poolRates[pool($0)] })) : 0
        func shrink(_ value: Double, _ weight: Double, toward prior: Double, _ strength: Double) -> Double {
            weight + strength > 0 ? (value + strength * prior) / (weight + strength) : 0
        }
        let slots = (0..<slotCount).map { slot in
            let g = pool(slot)
            let n = Double(occurrences[slot])
            let poolRate = poolRates[g]
            let rate = shrink(Double(starts[slot]), n, toward: poolRate, k1)
            let poolOpenShare = shrink(poolOpen[g], 15 * poolOccurrences[g], toward: baseOpen, 15 * k)
            let open = shrink(openMinutes[slot], 15 * n, toward: poolOpenShare, 15 * k1)
            let poolMeanRemaining = shrink(poolRemaining[g], poolOpen[g], toward: baseRemaining, k)
            let meanRemaining = shrink(remaining[slot], openMinutes[slot], toward: poolMeanRemaining, k1)
            return OpeningSlotDTO(
                starts: starts[slot], occurrences: occurrences[slot], startProbability: 1 - exp(-rate),
                openProbability: min(open, 1), meanRemainingMinutes: meanRemaining)
        }
        // Month-of-year factors, each worth a week of pseudo-days at the overall rate.
        let perMonth = tally.startsByMonthOfYear.map(Double.init)
        let daysPerMonth = span.daysPerMonthOfYear
        let overallPerDay = span.days > 0 ? Double(openingCount) / Double(span.days) : 0
        let monthFactors = (1...12).map { month -> Double in
            guard overallPerDay > 0 else { return 1 }
            let days = Double(daysPerMonth[month])
            return (perMonth[month] + 7 * overallPerDay) / ((days + 7) * overallPerDay)
        }
        return OpeningModelDTO(
            bridgeID: bridgeID, builtAt: builtAt, firstDay: span.firstDay?.dateString, lastDay: span.lastDay?.dateString,
            openings: openingCount, sourceEvents: sourceEvents, sourceLatestOpening: sourceLatestOpening,
            baseStartProbability: 1 - exp(-baseRate), baseOpenProbability: min(baseOpen, 1), slots: slots,
            monthFactors: monthFactors)
    }

    /// The days of each weekday (Monday first) in `span`; where `tally` counted holidays as Sundays, each holiday in
    /// the span that lifts its bridge's curfew is one occurrence of Sunday's slots, not of its weekday's.
    private static func daysPerWeekday(of span: HistorySpan, tally: OpeningTally) -> [Int] {
        var perWeekday = span.daysPerWeekday
        guard let rules = tally.countedHolidaysAsSundays, let first = span.firstDay?.dayNumber,
              let last = span.lastDay?.dayNumber else { return perWeekday }
        let (firstYear, _, _) = CivilCalendar.civilFromDays(first)
        let (lastYear, _, _) = CivilCalendar.civilFromDays(last)
        for year in firstYear...lastYear {
            for day in rules.liftedDays(tally.bridgeID, inYear: year) where first <= day && day <= last {
                let weekday = FloatingTimestamp(wallClockSeconds: Int64(day) * 86_400).mondayFirstWeekday
                perWeekday[weekday] -= 1
                perWeekday[6] += 1
            }
        }
        return perWeekday
    }

    /// Empirical-Bayes strength (pseudo-exposure) for shrinking counts/exposures toward priors: the mean prior over
    /// the variance of the true rates, estimated as the rates' spread around their priors less the Poisson noise.
    /// Very large when the spread is all noise.
    static func strength(_ counts: [Double], _ exposures: [Double], prior: (Int) -> Double) -> Double {
        var spread = 0.0
        var noise = 0.0
        var priorSum = 0.0
        var cells = 0.0
        for index in counts.indices where exposures[index] > 0 {
            let mean = prior(index)
            let rate = counts[index] / exposures[index]
            spread += (rate - mean) * (rate - mean)
            noise += mean / exposures[index]
            priorSum += mean
            cells += 1
        }
        guard cells > 0 else { return 0 }
        let variance = (spread - noise) / cells
        guard variance > 0 else { return 1e6 }
        return min(priorSum / cells / variance, 1e6)
    }

    /// Models for every bridge, from all stored events.
    public func buildAll(bridges: [BridgeInfoDTO], events: [BridgeEventDTO], mergeGap: TimeInterval, builtAt: Date)
        -> [OpeningModelDTO]
    {
        buildAll(bridges: bridges, records: events.compactMap(OpeningRecordDTO.init), mergeGap: mergeGap, builtAt: builtAt)
    }

    /// The same from lean records.
    public func buildAll(bridges: [BridgeInfoDTO], records: [OpeningRecordDTO], mergeGap: TimeInterval, builtAt: Date)
        -> [OpeningModelDTO]
    {
        buildAll(bridges: bridges, tallies: Tallies(records: records, mergeGap: mergeGap), builtAt: builtAt)
    }

    /// The same from tallies (with occupancy): every bridge of `bridges`, those without openings included, each with
    /// its followers and durations.
    public func buildAll(bridges: [BridgeInfoDTO], tallies: Tallies, builtAt: Date) -> [OpeningModelDTO] {
        let models = bridges.map { bridge in
            var tally = tallies[bridge.id]
            tally.countedHolidaysAsSundays = tallies.rules
            return (tally, build(tally: tally, span: tallies.span, builtAt: builtAt, sourceEvents: tallies.rows,
                                 sourceLatestOpening: tallies.latestOpening))
        }
        let learnt = riverLearner.learn(
            startMinutes: tallies.startMinutes,
            models: Dictionary(models.map { ($0.1.bridgeID, $0.1) }, uniquingKeysWith: { first, _ in first }),
            rules: tallies.rules)
        return models.map { tally, model in
            let river = learnt[model.bridgeID]
            var durations = [Int](repeating: 0, count: 121)
            for (minutes, count) in tally.durations.ascendingMinutes {
                durations[min(Int(minutes.rounded(.down)), 120)] += count
            }
            while let last = durations.last, last == 0, durations.count > 1 { durations.removeLast() }
            return model.with(dynamics: OpeningDynamicsDTO(
                followers: river?.followers ?? [], broughtShare: river?.broughtShare ?? 0,
                backgroundShares: river?.backgroundShares ?? [],
                durationCounts: tally.durations.total > 0 ? durations : [],
                holidaysAsSundays: tallies.rules?.curfew(of: model.bridgeID) != nil,
                falseLinkRate: riverLearner.falseLinkRate))
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
        let season = model.monthFactors[reading.month - 1]
        for minute in 0..<window {
            let slot = OpeningModelDTO.slot(of: FloatingTimestamp(wallClockSeconds: reading.wallClockSeconds + Int64(minute * 60)))
            // Back from the chance to the slot's rate, scaled by the season, per minute of the slot.
            let rate = -log(max(1 - model.slots[slot].startProbability, 1e-12)) * season
            noOpening *= exp(-rate / Double(OpeningModelDTO.slotMinutes))
            if covered.insert(slot).inserted {
                starts += model.slots[slot].starts
                occurrences += model.slots[slot].occurrences
            }
        }
        let arrival = model.slots[OpeningModelDTO.slot(of: reading)]
        let openOnArrival = min(1, arrival.openProbability * season)
        let base = 1 - pow(1 - model.baseStartProbability, Double(window) / Double(OpeningModelDTO.slotMinutes))
        return ForecastDTO(
            bridgeID: bridge.id, bridgeName: bridge.name, at: reading.localText, windowMinutes: window,
            chanceOfOpening: 1 - noOpening, chanceOpenOnArrival: openOnArrival,
            expectedDelayMinutes: openOnArrival * arrival.meanRemainingMinutes, baseChanceOfOpening: base,
            sampleStarts: starts, sampleOccurrences: occurrences)
    }
}
