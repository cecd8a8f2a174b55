import BridgetDTOs
import Foundation

extension PlantedWorld {
    /// How a forecaster did on a world's test days against the truth.
    public struct Check: Sendable {
        public let world: String
        public let windows: [Window]
        /// The links the forecaster kept (`to ← from`), against the world's.
        public let learntLinks: [String]
        public let trueLinks: [String]

        /// One window length's figures.
        public struct Window: Sendable {
            public let minutes: Int
            public let points: Int
            /// Brier skill over the base rate: the forecaster, the time of week alone, the exact truth.
            public let forecastSkill: Double
            public let slotSkill: Double
            public let truthSkill: Double
            /// Moments of a kind: how many, the mean forecast and the mean truth.
            public let classes: [MomentClass]

            /// The forecaster's share of the truth's skill.
            public var shareOfTruth: Double { truthSkill > 0 ? forecastSkill / truthSkill : 0 }
        }

        public struct MomentClass: Sendable {
            public let name: String
            public let points: Int
            public let meanForecast: Double
            public let meanTruth: Double
            public let meanSlot: Double
        }
    }

    /// Learns a forecaster from the world's first days (the pipeline a store's history goes through: records merged
    /// into openings, tallies, `OpeningModelBuilder`) and checks it on the last `testDays`, every `stepMinutes`, for
    /// each window: its forecast, the time of week's, and the truth, at every bridge.
    public func check(testDays: Int = 60, stepMinutes: Int = 10, windows: [Int] = [20, 60]) -> Check {
        let openings = simulate()
        let split = Int64(firstDay + days - testDays) * 1_440
        let records = openings.filter { $0.minute < split }.map { opening in
            OpeningRecordDTO(bridgeID: opening.bridgeID, openedAt: opening.minute * 60,
                             closedAt: opening.minute * 60 + 120, openWall: opening.minute * 60)
        }
        let bridges = bridgeIDs.map { BridgeInfoDTO(id: $0, name: $0, displayName: $0, latitude: 0, longitude: 0, waterway: "planted", kind: "bascule") }
        let tallies = Tallies(records: records, mergeGap: 60, rules: rules)
        let models = OpeningModelBuilder().buildAll(bridges: bridges, tallies: tallies, builtAt: Date())
        let nowcaster = Nowcaster(rules: rules, catalog: BridgeCatalog(bridges: bridges), models: models)
        let engine = self.engine
        let seen = Self.seen(openings)
        let seenMinutes = seen.map(\.minute)
        let rawMinutes = openings.map(\.minute)
        let upstream = links.mapValues { Set($0.map(\.fromBridgeID)) }
        let results = windows.map { window -> Check.Window in
            var sums = (forecast: 0.0, slot: 0.0, truth: 0.0, base: 0.0, points: 0)
            var classes: [String: (Int, Double, Double, Double)] = [:]
            var moment = split + Int64(NowcastEvidence.lookbackMinutes)
            let end = Int64(firstDay + days) * 1_440 - Int64(window)
            while moment < end {
                let reading = FloatingTimestamp(wallClockSeconds: moment * 60)
                let from = seenMinutes.partitioningIndex { $0 >= moment - Int64(NowcastEvidence.lookbackMinutes) }
                let to = seenMinutes.partitioningIndex { $0 >= moment }
                let recent = seen[from..<to]
                let evidence = NowcastEvidence(
                    seen: recent.map { .init(bridgeID: $0.bridgeID, minutesAgo: Double(moment - $0.minute)) },
                    isComplete: true)
                let rawFrom = rawMinutes.partitioningIndex { $0 >= moment }
                let rawTo = rawMinutes.partitioningIndex { $0 >= moment + Int64(window) }
                let shared = nowcaster.riverMoment(at: reading, evidence: evidence, horizon: window)
                for (model, id) in zip(models, bridgeIDs) {
                    let bridge = BridgeInfoDTO(id: id, name: id, displayName: id, latitude: 0, longitude: 0, waterway: "planted", kind: "bascule")
                    let forecast = nowcaster.forecast(model, bridge: bridge, at: reading, windowMinutes: window,
                                                      evidence: evidence, shared: shared, explain: false)
                    let truth = self.truth(target: id, moment: moment, window: window, openings: openings,
                                           engine: engine)
                    let happened = openings[rawFrom..<rawTo].contains { $0.bridgeID == id } ? 1.0 : 0.0
                    let base = forecast.baseChanceOfOpening
                    sums.forecast += (forecast.chanceOfOpening - happened) * (forecast.chanceOfOpening - happened)
                    sums.slot += (forecast.slotChanceOfOpening - happened) * (forecast.slotChanceOfOpening - happened)
                    sums.truth += (truth - happened) * (truth - happened)
                    sums.base += (base - happened) * (base - happened)
                    sums.points += 1
                    for name in momentClasses(target: id, moment: moment, recent: Array(recent),
                                              upstream: upstream) {
                        var entry = classes[name] ?? (0, 0, 0, 0)
                        entry.0 += 1
                        entry.1 += forecast.chanceOfOpening
                        entry.2 += truth
                        entry.3 += forecast.slotChanceOfOpening
                        classes[name] = entry
                    }
                }
                moment += Int64(stepMinutes)
            }
            let skill = { (brier: Double) in sums.base > 0 ? 1 - brier / sums.base : 0 }
            return Check.Window(
                minutes: window, points: sums.points, forecastSkill: skill(sums.forecast), slotSkill: skill(sums.slot),
                truthSkill: skill(sums.truth),
                classes: classes.sorted { $0.key < $1.key }.map { name, entry in
                    Check.MomentClass(name: name, points: entry.0, meanForecast: entry.1 / Double(entry.0),
                                      meanTruth: entry.2 / Double(entry.0), meanSlot: entry.3 / Double(entry.0))
                })
        }
        let planted = links.flatMap { to, follows in follows.map { "\(to) ← \($0.fromBridgeID)" } }.sorted()
        return Check(world: name, windows: results, learntLinks: Self.linksLearnt(by: models), trueLinks: planted)
    }

    /// What the forecaster sees of `openings`: merged as a store merges them (a start within a minute of the last's
    /// end).
    private static func seen(_ openings: [Opening]) -> [(bridgeID: String, minute: Int64)] {
        var seen: [(bridgeID: String, minute: Int64)] = []
        var lastEnd: [String: Int64] = [:]
        for opening in openings {
            if let end = lastEnd[opening.bridgeID], opening.minute <= end + 1 {
                lastEnd[opening.bridgeID] = max(end, opening.minute + 2)
                continue
            }
            seen.append((opening.bridgeID, opening.minute))
            lastEnd[opening.bridgeID] = opening.minute + 2
        }
        return seen
    }

    /// The links `models` kept, one line each (`to ← from`, share, origin shares, lags and score), sorted.
    private static func linksLearnt(by models: [OpeningModelDTO]) -> [String] {
        models.flatMap { model in
            model.dynamics.followers.map { follow in
                let origins = follow.originShares.sorted { $0.key < $1.key }
                    .map { String(format: "%@ %.2f", ($0.key.isEmpty ? "own" : $0.key) as NSString, $0.value) }
                return "\(model.bridgeID) ← \(follow.fromBridgeID) "
                    + String(format: "(%.2f: %@; %d–%d min; z %.1f)", follow.share,
                             origins.joined(separator: ", ") as NSString, follow.lagRange.lowerBound,
                             follow.lagRange.upperBound, follow.score)
            }
        }.sorted()
    }

    /// The kinds of moment a moment is for `target`: just after an upstream opening, two vessels on their way, quiet,
    /// a coincidence (an upstream opening long after its own upstream's: a vessel starting out), a vessel going
    /// away (an upstream opening just after the target's own).
    func momentClasses(target: String, moment: Int64, recent: [(bridgeID: String, minute: Int64)],
                       upstream: [String: Set<String>]) -> [String] {
        let linked = upstream[target] ?? []
        var kinds: [String] = []
        if recent.allSatisfy({ moment - $0.minute > 90 }) { kinds.append("quiet") }
        let fresh = recent.filter { linked.contains($0.bridgeID) && $0.bridgeID != target && moment - $0.minute <= 5 }
        if !fresh.isEmpty { kinds.append("after-upstream") }
        if recent.filter({ linked.contains($0.bridgeID) && moment - $0.minute <= 20 }).count >= 2 {
            kinds.append("two-vessels")
        }
        for opening in fresh {
            let before = upstream[opening.bridgeID] ?? []
            if recent.contains(where: { before.contains($0.bridgeID) && $0.bridgeID != target
                && (25...60).contains(opening.minute - $0.minute) }),
                !recent.contains(where: { before.contains($0.bridgeID) && (1...24).contains(opening.minute - $0.minute) }) {
                kinds.append("coincidence")
            }
            if recent.contains(where: { $0.bridgeID == target && (5...20).contains(opening.minute - $0.minute) }) {
                kinds.append("going-away")
            }
        }
        return Array(Set(kinds)).sorted()
    }
}

extension PlantedWorld.Check {
    /// The check as lines of text: per window, the three skills and the share, then each kind of moment.
    public var text: String {
        var lines = ["\(world): links learnt \(learntLinks.joined(separator: ", ")) (planted: "
            + "\(trueLinks.isEmpty ? "none" : trueLinks.joined(separator: ", ")))"]
        for window in windows {
            lines.append(String(format: "  %3d min: skill forecast %+.3f, time of week %+.3f, truth %+.3f: "
                                    + "%.0f%% of the truth's (%d points)",
                                window.minutes, window.forecastSkill, window.slotSkill, window.truthSkill,
                                window.shareOfTruth * 100, window.points))
            for kind in window.classes {
                lines.append(String(format: "           %-15@ %6d points: forecast %.3f, truth %.3f, time of week %.3f",
                                    kind.name as NSString, kind.points, kind.meanForecast, kind.meanTruth,
                                    kind.meanSlot))
            }
        }
        return lines.joined(separator: "\n")
    }
}
