import BridgetDTOs
import Foundation

/// Finds cascades between bridges and anomalous openings, from merged openings and opening models.
public struct PatternFinder: Sendable {
    public let bridges: [BridgeInfoDTO]
    public let models: [String: OpeningModelDTO]
    private let names: [String: String]
    /// The forecaster an opening's time is judged by (the rules calendar and the river), and every bridge's opening
    /// starts (the source's wall clock, minutes, sorted): what came before each opening.
    private let nowcaster: Nowcaster
    private let startMinutes: [String: [Int32]]

    /// Creates a finder; with `rules` and `startMinutes`, an opening's time is judged as the forecasts judge it (a
    /// holiday that lifts the curfew as a Sunday, a vessel brought by an opening upstream).
    public init(bridges: [BridgeInfoDTO], models: [OpeningModelDTO], rules: RuleCalendar? = nil,
                startMinutes: [String: [Int32]] = [:]) {
        self.bridges = bridges
        self.models = Dictionary(uniqueKeysWithValues: models.map { ($0.bridgeID, $0) })
        names = Dictionary(bridges.map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
        nowcaster = Nowcaster(rules: rules, catalog: BridgeCatalog(bridges: bridges), models: models)
        self.startMinutes = startMinutes
    }

    /// The chance the forecasts give an opening of `model`'s bridge in the slot-long window from `start`: the slot's
    /// on the calendar (a lifted holiday read as a Sunday), and what the openings before it brought.
    func chance(of start: FloatingTimestamp, model: OpeningModelDTO, bridge: BridgeInfoDTO) -> Double {
        let slotChance = model.slots[nowcaster.slot(of: start, model: model)].startProbability
        guard !startMinutes.isEmpty else { return slotChance }
        let minute = start.wallClockSeconds.floorDivided(by: 60)
        var seen: [NowcastEvidence.Seen] = []
        for (id, starts) in startMinutes {
            let from = starts.partitioningIndex { Int64($0) >= minute - Int64(NowcastEvidence.lookbackMinutes) }
            for earlier in starts[from...] where Int64(earlier) < minute {
                seen.append(.init(bridgeID: id, minutesAgo: Double(minute - Int64(earlier))))
            }
        }
        let moment = FloatingTimestamp(wallClockSeconds: minute * 60)
        let forecast = nowcaster.forecast(model, bridge: bridge, at: moment, windowMinutes: OpeningModelDTO.slotMinutes,
                                          evidence: NowcastEvidence(seen: seen, isComplete: true))
        return max(slotChance, forecast.chanceOfOpening)
    }

    /// Ordered pairs (A, B) with at least `minimumCount` openings of A followed by a B opening starting within
    /// `withinMinutes`, most lifted first. The expected count is the same count with B's openings shifted by one and
    /// two weeks either way (averaged): that keeps B's time-of-week and season but breaks any real link, so two
    /// bridges merely busy at the same hours show a lift near 1.
    public func cascades(_ openings: [MergedOpening], withinMinutes: Int, minimumCount: Int) -> [CascadeDTO] {
        var startsByBridge: [String: [Int64]] = [:]
        for opening in openings { startsByBridge[opening.bridgeID, default: []].append(opening.startLocal.wallClockSeconds) }
        for key in startsByBridge.keys { startsByBridge[key]?.sort() }
        return cascades(startsByBridge: startsByBridge, withinMinutes: withinMinutes, minimumCount: minimumCount)
    }

    /// The same from each bridge's opening starts (the source's wall-clock seconds, sorted).
    func cascades(startsByBridge: [String: [Int64]], withinMinutes: Int, minimumCount: Int) -> [CascadeDTO] {
        let window = Int64(withinMinutes * 60)
        var result: [CascadeDTO] = []
        for from in bridges {
            let fromStarts = startsByBridge[from.id] ?? []
            for to in bridges where to.id != from.id {
                guard !fromStarts.isEmpty else { continue }
                let toStarts = startsByBridge[to.id] ?? []
                let count = Self.followers(fromStarts, toStarts, shift: 0, window: window)
                let week: Int64 = 7 * 86_400
                let shifted = [-2, -1, 1, 2].compactMap { weeks -> Double? in
                    // Only openings of A that the shifted B still covers can find a follower: scale back up from them,
                    // or the shift's edges would make chance look smaller than it is.
                    let shift = Int64(weeks) * week
                    guard let first = toStarts.first, let last = toStarts.last else { return 0 }
                    let covered = fromStarts.filter { $0 >= first + shift && $0 <= last + shift }.count
                    guard covered > 0 else { return nil }
                    let found = Self.followers(fromStarts, toStarts, shift: shift, window: window)
                    return Double(found) * Double(fromStarts.count) / Double(covered)
                }
                guard !shifted.isEmpty else { continue }
                // At least half an opening: a pair chance never produces still ranks, with a finite lift.
                let expected = max(shifted.reduce(0, +) / Double(shifted.count), 0.5)
                guard count >= minimumCount else { continue }
                result.append(CascadeDTO(
                    fromBridgeID: from.id, fromBridgeName: from.name, toBridgeID: to.id, toBridgeName: to.name,
                    count: count, expected: expected, lift: Double(count) / expected,
                    zScore: (Double(count) - expected) / expected.squareRoot(), withinMinutes: withinMinutes))
            }
        }
        return result.sorted { ($0.lift, $0.count, $0.fromBridgeID, $0.toBridgeID) > ($1.lift, $1.count, $1.fromBridgeID, $1.toBridgeID) }
    }

    /// How many of `from` are followed, within `window` seconds, by one of `to` moved by `shift` seconds.
    static func followers(_ from: [Int64], _ to: [Int64], shift: Int64, window: Int64) -> Int {
        var count = 0
        var cursor = 0
        for start in from {
            while cursor < to.count && to[cursor] + shift <= start { cursor += 1 }
            if cursor < to.count && to[cursor] + shift <= start + window { count += 1 }
        }
        return count
    }

    /// Openings longer than their bridge's p99 duration, or starting where the model gives less than
    /// `unlikelyChance` of a start; newest first.
    public func anomalies(_ openings: [MergedOpening], unlikelyChance: Double = 0.005) -> [AnomalyDTO] {
        var durations: [String: [Double]] = [:]
        for opening in openings {
            if let minutes = opening.durationMinutes { durations[opening.bridgeID, default: []].append(minutes) }
        }
        let p99 = durations.mapValues { OpeningStatistics.nearestRank($0.sorted(), 0.99) }
        return Self.newestFirst(openings.compactMap { anomaly($0, p99: p99[$0.bridgeID] ?? nil, unlikelyChance: unlikelyChance) })
    }

    /// Why `opening` is anomalous, given its bridge's p99 duration; `nil` when it is not (or its bridge has no
    /// model).
    func anomaly(_ opening: MergedOpening, p99 limit: Double?, unlikelyChance: Double) -> AnomalyDTO? {
        guard let model = models[opening.bridgeID] else { return nil }
        let slot = model.slots[nowcaster.slot(of: opening.startLocal, model: model)]
        var reasons: [AnomalyDTO.Reason] = []
        var chance = slot.startProbability
        if let minutes = opening.durationMinutes, let limit, minutes > limit { reasons.append(.long) }
        if slot.startProbability < unlikelyChance, let bridge = bridges.first(where: { $0.id == opening.bridgeID }) {
            chance = self.chance(of: opening.startLocal, model: model, bridge: bridge)
            if chance < unlikelyChance { reasons.append(.unlikelyTime) }
        }
        guard !reasons.isEmpty else { return nil }
        return AnomalyDTO(
            bridgeID: opening.bridgeID, bridgeName: names[opening.bridgeID] ?? opening.bridgeID, openedAt: opening.start,
            openLocal: opening.startLocal.localText, durationMinutes: opening.durationMinutes,
            reasons: reasons, p99Minutes: limit, slotChance: chance)
    }

    /// Newest first; openings at the same instant by bridge id.
    static func newestFirst(_ anomalies: [AnomalyDTO]) -> [AnomalyDTO] {
        anomalies.sorted { ($0.openedAt, $1.bridgeID) > ($1.openedAt, $0.bridgeID) }
    }
}

/// The second pass of `findAnomalies`: each merged opening judged against its bridge's model and p99, as it streams
/// by; only the anomalies are kept.
struct AnomalySink: OpeningSink {
    let finder: PatternFinder
    let p99: [String: Double]
    let unlikelyChance: Double
    private(set) var found: [AnomalyDTO] = []

    init(finder: PatternFinder, p99: [String: Double], unlikelyChance: Double = 0.005) {
        self.finder = finder
        self.p99 = p99
        self.unlikelyChance = unlikelyChance
    }

    mutating func begin(bridgeID: String) {}
    mutating func take(record: OpeningRecordDTO) {}

    mutating func take(opening: MergedOpening) {
        if let anomaly = finder.anomaly(opening, p99: p99[opening.bridgeID], unlikelyChance: unlikelyChance) {
            found.append(anomaly)
        }
    }
}
