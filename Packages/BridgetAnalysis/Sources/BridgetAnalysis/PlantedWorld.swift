import BridgetDTOs
import BridgetRiver
import Foundation

/// A history made by a known process, so the true chance of an opening at every moment is computable: the check a
/// forecaster is held to (`Scripts/bench forecast`, the analysis tests).
///
/// Vessels start out at each bridge at a known rate per minute (a time of week, a season); a vessel that raises a
/// bridge goes on to raise each linked bridge with a known chance, which may depend on where it came from, after a
/// known lag counted in the minutes that bridge lets vessels through (a curfew holds it: late, not gone). The truth at
/// a moment is the chance given everything that happened before it, each vessel's path included (which opening was
/// whose vessel): `RiverEngine` with the world's own links and rates. A forecaster sees only the openings.
public struct PlantedWorld: Sendable {
    public let name: String
    public let summary: String
    public let bridgeIDs: [String]
    public let rules: RuleCalendar?
    /// The links into each bridge, as the process runs them.
    public let links: [String: [FollowDTO]]
    /// Vessels starting out per hour at each bridge, by hour of the week (Monday 00:00 first), before the season.
    public let hourlyRates: [String: [Double]]
    /// The season's swing: rates are scaled by 1 + `season`·sin(2π·day/365).
    public let season: Double
    public let firstDay: Int
    public let days: Int
    public let seed: UInt64

    /// One opening of the made history, with its place in the process.
    public struct Opening: Sendable, Equatable {
        public let bridgeID: String
        public let minute: Int64
        /// The bridge whose vessel this is (`""`: one starting out here).
        public let origin: String
        /// When this vessel raised each linked bridge after this one (minutes), for those it did.
        public var raised: [String: Int64]
    }

    public init(name: String, summary: String, bridgeIDs: [String], rules: RuleCalendar? = nil,
                links: [String: [FollowDTO]], hourlyRates: [String: [Double]], season: Double = 0.3,
                firstDay: Int = 20_089, days: Int = 430, seed: UInt64 = 1) {
        self.name = name
        self.summary = summary
        self.bridgeIDs = bridgeIDs
        self.rules = rules
        self.links = links
        self.hourlyRates = hourlyRates
        self.season = season
        self.firstDay = firstDay
        self.days = days
        self.seed = seed
    }

    /// The rate per minute at which vessels start out at `bridgeID` in `minute`.
    public func background(_ bridgeID: String, minute: Int64) -> Double {
        guard let rates = hourlyRates[bridgeID] else { return 0 }
        let day = minute.floorDivided(by: 1_440)
        let hourOfWeek = Int((day + 3).floorModulo(7)) * 24 + Int(minute - day * 1_440) / 60
        let swing = 1 + season * sin(2 * Double.pi * Double(day) / 365)
        return rates[hourOfWeek] / 60 * swing
    }

    /// The engine with the world's own links.
    public var engine: RiverEngine { RiverEngine(into: links, clock: PassageClock(rules: rules)) }

    /// The history: every opening, in order of time.
    public func simulate() -> [Opening] {
        var random = SplitMix64(seed: seed)
        let clock = PassageClock(rules: rules)
        let start = Int64(firstDay) * 1_440
        let end = start + Int64(days) * 1_440
        var openings: [Opening] = []
        for minute in start..<end {
            for id in bridgeIDs {
                let rate = background(id, minute: minute)
                if rate > 0 && random.unit() < 1 - exp(-rate) {
                    openings.append(Opening(bridgeID: id, minute: minute, origin: "", raised: [:]))
                }
            }
        }
        let outOf = Dictionary(grouping: links.flatMap { to, follows in follows.map { (to, $0) } }) { $0.1.fromBridgeID }
        // Vessels go on in order of time: a heap would do; openings are few, so the queue is kept sorted.
        var queue = openings
        queue.sort { ($0.minute, $0.bridgeID) > ($1.minute, $1.bridgeID) }
        var done: [Opening] = []
        while var opening = queue.popLast() {
            for (to, follow) in (outOf[opening.bridgeID] ?? []).sorted(by: { $0.0 < $1.0 }) {
                guard random.unit() < follow.share(origin: opening.origin) else { continue }
                var lag = 1
                var pick = random.unit()
                for (index, weight) in follow.lagWeights.enumerated() {
                    pick -= weight
                    if pick < 0 { lag = index + 1; break }
                }
                var arrival = opening.minute
                var counted = 0
                while counted < lag {
                    arrival += 1
                    if clock.passes(to, minute: arrival) { counted += 1 }
                }
                guard arrival < end else { continue }
                opening.raised[to] = arrival
                let child = Opening(bridgeID: to, minute: arrival, origin: opening.bridgeID, raised: [:])
                let place = queue.partitioningIndex { ($0.minute, $0.bridgeID) <= (child.minute, child.bridgeID) }
                queue.insert(child, at: place)
            }
            done.append(opening)
        }
        return done.sorted { ($0.minute, $0.bridgeID) < ($1.minute, $1.bridgeID) }
    }

    /// The true chance that `target` opens in `[moment, moment + window)`, given the openings before the moment
    /// (`openings` in order of time) and their vessels' paths.
    public func truth(target: String, moment: Int64, window: Int, openings: [Opening], engine: RiverEngine) -> Double {
        let from = openings.partitioningIndex { $0.minute >= moment - Int64(NowcastEvidence.lookbackMinutes) }
        var vessels: [RiverVessel] = []
        var index = from
        while index < openings.count && openings[index].minute < moment {
            let opening = openings[index]
            vessels.append(RiverVessel(
                bridgeID: opening.bridgeID, minute: opening.minute, origins: [opening.origin: 1],
                passed: opening.raised.filter { $0.value < moment }.mapValues { _ in 1 }))
            index += 1
        }
        return engine.chance(target: target, moment: moment, window: window, vessels: vessels,
                             background: background).chance
    }

    /// A lag distribution spread evenly over `range` minutes, as a link's weights up to `maxLag`.
    public static func lags(_ range: ClosedRange<Int>, maxLag: Int = 60) -> [Double] {
        (1...maxLag).map { range.contains($0) ? 1 / Double(range.count) : 0 }
    }

    /// A link as the process runs it.
    public static func link(from: String, share: Double, origins: [String: Double] = [:], lags range: ClosedRange<Int>)
        -> FollowDTO
    {
        FollowDTO(fromBridgeID: from, maxLagMinutes: 60, sourceOpenings: 0, followed: 0, expectedByChance: 0,
                  chanceSpread: 0, share: share, originShares: origins, lagWeights: lags(range))
    }

    /// Rates by hour of the week: quiet nights, busy days, busier weekends, scaled by `scale`.
    public static func weekly(_ scale: Double, rush: Double = 1) -> [Double] {
        (0..<168).map { hourOfWeek in
            let (day, hour) = (hourOfWeek / 24, hourOfWeek % 24)
            let base: Double = hour < 6 ? 0.08 : hour < 7 ? 0.3 : hour < 20 ? 0.6 : 0.3
            let rushHour = day < 5 && [7, 8, 16, 17].contains(hour) ? rush : 1
            return base * scale * (day >= 5 ? 1.5 : 1) * rushHour
        }
    }

    /// The curfew of the Ship Canal's rule, for `bridgeIDs`.
    public static func curfew(_ bridgeIDs: [String]) -> RuleCalendar {
        RuleCalendar(curfews: [CurfewRule(
            bridgeIDs: bridgeIDs, weekdays: [1, 2, 3, 4, 5],
            windows: [.init(fromMinute: 7 * 60, untilMinute: 9 * 60), .init(fromMinute: 16 * 60, untilMinute: 18 * 60)],
            holidaysExempt: true, exemptVessels: "none", source: "a planted world")])
    }

    /// The worlds the forecaster is checked on: a single link, two vessels close together, a chain, both directions,
    /// no link at all, a lag longer than the window, and a curfew holding followers.
    public static func all(days: Int = 430, seed: UInt64 = 1) -> [PlantedWorld] {
        let one = weekly(1)
        return [
            PlantedWorld(
                name: "single", summary: "A's vessels raise B 10–16 min later at 70%",
                bridgeIDs: ["A", "B"], links: ["B": [link(from: "A", share: 0.7, lags: 10...16)]],
                hourlyRates: ["A": one, "B": weekly(0.5)], days: days, seed: seed),
            PlantedWorld(
                name: "two-vessels", summary: "as single, and a third of A's vessels have a second close behind (2–6 min)",
                bridgeIDs: ["A", "B"],
                links: ["A": [link(from: "A", share: 0.3, origins: ["": 0.3, "A": 0], lags: 2...6)],
                        "B": [link(from: "A", share: 0.7, lags: 10...16)]],
                hourlyRates: ["A": one, "B": weekly(0.5)], days: days, seed: seed + 1),
            PlantedWorld(
                name: "chain", summary: "A → B → C: B's vessels from A go on to C at 80%, B's own at 3%",
                bridgeIDs: ["A", "B", "C"],
                links: ["B": [link(from: "A", share: 0.7, lags: 10...16)],
                        "C": [link(from: "B", share: 0.3, origins: ["": 0.03, "A": 0.8], lags: 8...14)]],
                hourlyRates: ["A": one, "B": weekly(0.6), "C": weekly(0.4)], days: days, seed: seed + 2),
            PlantedWorld(
                name: "reverse", summary: "A ⇄ B: vessels go both ways, none comes back",
                bridgeIDs: ["A", "B"],
                links: ["B": [link(from: "A", share: 0.6, origins: ["": 0.6, "B": 0], lags: 10...16)],
                        "A": [link(from: "B", share: 0.5, origins: ["": 0.5, "A": 0], lags: 10...16)]],
                hourlyRates: ["A": one, "B": weekly(0.8)], days: days, seed: seed + 3),
            PlantedWorld(
                name: "independent", summary: "three bridges with the same time of week and season, no link",
                bridgeIDs: ["A", "B", "C"], links: [:],
                hourlyRates: ["A": weekly(1, rush: 2), "B": weekly(0.8, rush: 2), "C": weekly(0.6, rush: 2)],
                days: days, seed: seed + 4),
            PlantedWorld(
                name: "long-lag", summary: "A's vessels raise B 35–45 min later at 60%",
                bridgeIDs: ["A", "B"], links: ["B": [link(from: "A", share: 0.6, lags: 35...45)]],
                hourlyRates: ["A": one, "B": weekly(0.5)], days: days, seed: seed + 5),
            PlantedWorld(
                name: "curfew", summary: "as single, B's curfew (weekdays 7–9, 16–18) holds A's vessels until it ends",
                bridgeIDs: ["A", "B"], rules: curfew(["B"]), links: ["B": [link(from: "A", share: 0.7, lags: 10...16)]],
                hourlyRates: ["A": one, "B": curfewed(weekly(0.5))], days: days, seed: seed + 6),
        ]
    }

    /// `rates` with the curfew's hours (weekdays 7–9, 16–18) nearly empty.
    static func curfewed(_ rates: [Double]) -> [Double] {
        rates.enumerated().map { hourOfWeek, rate in
            hourOfWeek / 24 < 5 && [7, 8, 16, 17].contains(hourOfWeek % 24) ? rate * 0.05 : rate
        }
    }
}
