import BridgetDTOs
import Foundation

/// A past opening as evidence for the river model: where and when (a minute of the source's wall clock), where its
/// vessel came from, and how likely each of its links has been answered already.
public struct RiverVessel: Sendable, Equatable {
    public let bridgeID: String
    public let minute: Int64
    /// The chance of each origin: `""` a vessel starting out here, else the bridge it raised before.
    public var origins: [String: Double]
    /// By bridge: the chance that this vessel has raised it already (so it brings no opening there any more).
    public var passed: [String: Double]

    public init(bridgeID: String, minute: Int64, origins: [String: Double] = ["": 1], passed: [String: Double] = [:]) {
        self.bridgeID = bridgeID
        self.minute = minute
        self.origins = origins
        self.passed = passed
    }
}

/// The river model's arithmetic: the chance that a bridge opens in a window, from every bridge's background rate
/// (vessels starting out) and its links (a vessel raising one bridge goes on to raise another after a lag, counted in
/// minutes the other lets vessels through), given the openings before the moment.
///
/// The chance of no opening of bridge B in the window `[t, t + w)` is the product of
/// - exp(−Λ): no vessel starting out in the window, at B or at a bridge whose vessels reach B in the window (Λ sums
///   each bridge's background rate times the chance that its vessel's links carry it to B before the window ends,
///   through up to `depth` bridges);
/// - for every opening before t, one minus the chance that its vessel still raises B in the window: each link's share
///   (by where the vessel came from), the lag's distribution given that it has not come yet, and the same onward.
///
/// Every vessel counts; a vessel that raised a bridge on its way is carried on by that opening, not counted twice
/// (its link there is answered). The same arithmetic serves a forecast (links learnt, origins inferred: `infer`) and
/// a planted world's truth (links known, origins known).
public struct RiverEngine: Sendable {
    /// Links into each bridge.
    public let into: [String: [FollowDTO]]
    public let clock: PassageClock
    /// Bridges a vessel may pass on its way to the one forecast.
    public let depth: Int
    private let outOf: [String: [(to: String, follow: FollowDTO)]]

    public init(into: [String: [FollowDTO]], clock: PassageClock, depth: Int = 3) {
        self.into = into
        self.clock = clock
        self.depth = max(depth, 1)
        var outOf: [String: [(to: String, follow: FollowDTO)]] = [:]
        for (to, follows) in into.sorted(by: { $0.key < $1.key }) {
            for follow in follows { outOf[follow.fromBridgeID, default: []].append((to, follow)) }
        }
        self.outOf = outOf
    }

    /// The longest lag of any link.
    public var maxLag: Int { into.values.flatMap { $0 }.map(\.maxLagMinutes).max() ?? 0 }

    /// What a window's chance is made of.
    public struct Outcome: Sendable {
        /// The chance of at least one opening in the window.
        public let chance: Double
        /// The chance from vessels starting out in the window alone (no opening before the moment counted).
        public let fromBackground: Double
        /// For each vessel given, the chance that it raises the bridge in the window.
        public let fromVessels: [Double]
    }

    /// The chance that `target` opens in minutes `[moment, moment + window)`, given `vessels` (openings before the
    /// moment) and each bridge's background rate per minute.
    public func chance(target: String, moment: Int64, window: Int, vessels: [RiverVessel],
                       background: (String, Int64) -> Double) -> Outcome {
        let window = max(window, 1)
        let last = moment + Int64(window) - 1
        // The bridges whose vessels can reach the target, with how many hops they still have.
        var reach: [String: Int] = [target: 0]
        var frontier = [target]
        for hop in 1...depth {
            var next: [String] = []
            for bridge in frontier {
                for follow in into[bridge] ?? [] where reach[follow.fromBridgeID] == nil {
                    reach[follow.fromBridgeID] = hop
                    next.append(follow.fromBridgeID)
                }
            }
            frontier = next
        }
        let earliest = min(vessels.map(\.minute).min() ?? moment - 1, moment - 1) - 1
        var timelines: [String: Timeline] = [:]
        for bridge in reach.keys {
            timelines[bridge] = Timeline(clock.prefix(bridge, first: earliest, last: last), first: earliest)
        }
        // Depth by depth: for each link out of a bridge, the chance (given the link is taken) that a vessel there at
        // minute moment + k reaches the target before the window ends; then `onward["bridge|origin"][k]`, the chance
        // that any of the bridge's links carries such a vessel there. A vessel at the target is there already.
        var onward: [String: [Double]] = [:]
        for hops in 1...depth {
            var byBridge: [String: [[Double]]] = [:]
            for (bridge, distance) in reach where bridge != target && distance <= hops {
                byBridge[bridge] = (outOf[bridge] ?? []).map { link -> [Double] in
                    guard let to = timelines[link.to] else { return [Double](repeating: 0, count: window) }
                    return (0..<window).map { k in
                        let minute = moment + Int64(k)
                        return hop(link.follow, from: minute, to: to, toID: link.to, target: target, last: last,
                                   elapsed: 0, onward: onward, fromID: bridge)
                    }
                }
            }
            // The onward chance for each bridge and origin at this depth: one minus no link carrying the vessel on.
            var next: [String: [Double]] = [:]
            for (bridge, links) in byBridge {
                let out = outOf[bridge] ?? []
                for origin in origins(of: bridge) {
                    var none = [Double](repeating: 1, count: window)
                    for (index, link) in out.enumerated() {
                        let share = link.follow.share(origin: origin)
                        guard share > 0 else { continue }
                        for k in 0..<window { none[k] *= 1 - share * links[index][k] }
                    }
                    next[bridge + "|" + origin] = none.map { 1 - $0 }
                }
            }
            onward = next
        }
        // Vessels starting out in the window.
        var lambda = 0.0
        var targetOwn = 0.0
        for (bridge, _) in reach {
            let carried = bridge == target ? nil : onward[bridge + "|"]
            if bridge != target && carried == nil { continue }
            for k in 0..<window {
                let rate = background(bridge, moment + Int64(k))
                guard rate > 0 else { continue }
                if bridge == target {
                    targetOwn += rate
                } else if let carried {
                    lambda += rate * carried[k]
                }
            }
        }
        let fromBackground = 1 - exp(-(lambda + targetOwn))
        // Openings before the moment.
        var none = exp(-(lambda + targetOwn))
        var fromVessels: [Double] = []
        fromVessels.reserveCapacity(vessels.count)
        for vessel in vessels where vessel.minute < moment {
            var stays = 1.0
            for link in outOf[vessel.bridgeID] ?? [] {
                guard let to = timelines[link.to], reach[link.to] != nil else { continue }
                let pending = 1 - min(max(vessel.passed[link.to] ?? 0, 0), 1)
                guard pending > 0 else { continue }
                let elapsed = to.passable(from: vessel.minute, to: moment - 1)
                guard elapsed < link.follow.lagWeights.count else { continue }
                let survival = link.follow.survival(after: elapsed)
                let reaches = hop(link.follow, from: vessel.minute, to: to, toID: link.to, target: target, last: last,
                                  elapsed: elapsed, onward: onward, fromID: vessel.bridgeID)
                var chance = 0.0
                for (origin, weight) in vessel.origins where weight > 0 {
                    let share = link.follow.share(origin: origin)
                    guard share > 0 else { continue }
                    chance += weight * share * reaches / max(1 - share + share * survival, 1e-12)
                }
                stays *= 1 - min(max(pending * chance, 0), 1)
            }
            fromVessels.append(1 - stays)
            none *= stays
        }
        return Outcome(chance: min(max(1 - none, 0), 1), fromBackground: fromBackground, fromVessels: fromVessels)
    }

    /// The chance mass of a link's lag beyond `elapsed` whose arrival reaches the target before `last`: directly
    /// (the link ends at the target) or through the arrival bridge's onward chance.
    private func hop(_ follow: FollowDTO, from minute: Int64, to: Timeline, toID: String, target: String, last: Int64,
                     elapsed: Int, onward: [String: [Double]], fromID: String) -> Double {
        let base = to.count(at: minute)
        let room = Int(to.count(at: last) - base)
        guard room > elapsed else { return 0 }
        let lags = follow.lagWeights
        if toID == target {
            var sum = 0.0
            for lag in (elapsed + 1)...min(room, lags.count) { sum += lags[lag - 1] }
            return sum
        }
        guard let carried = onward[toID + "|" + fromID] else { return 0 }
        let start = last - Int64(carried.count) + 1
        var sum = 0.0
        for lag in (elapsed + 1)...min(room, lags.count) where lags[lag - 1] > 0 {
            guard let arrival = to.minute(reachingCount: base + Int32(lag)) else { break }
            let k = Int(arrival - start)
            if k >= 0 && k < carried.count { sum += lags[lag - 1] * carried[k] }
        }
        return sum
    }

    /// The origins a bridge's openings can have: starting out, or any bridge linked into it.
    func origins(of bridge: String) -> [String] {
        [""] + (into[bridge] ?? []).map(\.fromBridgeID)
    }

    /// The forecaster's reading of openings before a moment: for each (in order of time), where its vessel likely
    /// came from and which links it has likely answered, from the links and each bridge's background rate (an
    /// opening is a vessel of an earlier one in proportion to that link's share and lag density, against the
    /// background's rate then).
    public func infer(_ openings: [(bridgeID: String, minute: Int64)], background: (String, Int64) -> Double)
        -> [RiverVessel]
    {
        var vessels = openings.sorted { ($0.minute, $0.bridgeID) < ($1.minute, $1.bridgeID) }
            .map { RiverVessel(bridgeID: $0.bridgeID, minute: $0.minute, origins: [:]) }
        let horizon = Int64(maxLag) + 1_440
        for index in vessels.indices {
            let here = vessels[index]
            let links = into[here.bridgeID] ?? []
            var weights: [(Int, Double)] = []
            for earlier in vessels[..<index].indices.reversed() {
                let source = vessels[earlier]
                if here.minute - source.minute > horizon { break }
                guard source.minute < here.minute,
                      let follow = links.first(where: { $0.fromBridgeID == source.bridgeID }) else { continue }
                let lag = Int(clock.passableMinutes(here.bridgeID, from: source.minute, to: here.minute))
                guard lag >= 1, lag <= follow.lagWeights.count else { continue }
                let share = source.origins.reduce(0.0) { $0 + $1.value * follow.share(origin: $1.key) }
                let weight = share * follow.lagWeights[lag - 1] * (1 - min(source.passed[here.bridgeID] ?? 0, 1))
                if weight > 0 { weights.append((earlier, weight)) }
            }
            let own = max(background(here.bridgeID, here.minute), 1e-9)
            let total = own + weights.reduce(0) { $0 + $1.1 }
            var origins: [String: Double] = ["": own / total]
            for (earlier, weight) in weights {
                origins[vessels[earlier].bridgeID, default: 0] += weight / total
                vessels[earlier].passed[here.bridgeID] = min(1, (vessels[earlier].passed[here.bridgeID] ?? 0)
                    + weight / total)
            }
            vessels[index].origins = origins
        }
        return vessels
    }
}

/// One bridge's minutes over a forecast's span: how many let vessels through up to each, and where each count is
/// reached.
struct Timeline {
    let first: Int64
    let counts: [Int32]
    /// The minute index at which each count (1, 2, …) is first reached.
    let reaching: [Int32]

    init(_ prefix: (counts: [Int32], passes: [Bool]), first: Int64) {
        self.first = first
        counts = prefix.counts
        var reaching: [Int32] = []
        reaching.reserveCapacity(Int(prefix.counts.last ?? 0))
        for (index, open) in prefix.passes.enumerated() where open { reaching.append(Int32(index)) }
        self.reaching = reaching
    }

    /// Passable minutes in `(first − 1, minute]`.
    func count(at minute: Int64) -> Int32 {
        let index = Int(minute - first)
        if index < 0 { return 0 }
        return counts[min(index, counts.count - 1)]
    }

    /// Passable minutes in `(from, to]`.
    func passable(from: Int64, to: Int64) -> Int { Int(max(count(at: to) - count(at: from), 0)) }

    /// The minute at which the count reaches `count`, if within the span.
    func minute(reachingCount count: Int32) -> Int64? {
        guard count >= 1, Int(count) <= reaching.count else { return nil }
        return first + Int64(reaching[Int(count) - 1])
    }
}
