import BridgetDTOs
import Foundation

/// The river model's arithmetic: the chance that a bridge opens in a window, from every bridge's background rate
/// (vessels starting out) and its links (a vessel raising one bridge goes on to raise another after a lag, counted in
/// minutes the other lets vessels through), given the openings before the moment.
///
/// The chance of no opening of bridge B in the window `[t, t + w)` is the product of
/// - exp(−Λ): no vessel starting out in the window, at B or at a bridge whose vessels reach B in the window (Λ sums
///   each bridge's background rate times the chance that its vessel's links carry it to B before the window ends,
///   through any bridges on the way);
/// - for every opening before t, one minus the chance that its vessel still raises B in the window: each link's share
///   (by where the vessel came from), the lag's distribution given that it has not come yet, and the same onward.
///
/// The onward chances are worked out backwards from the window's last minute (a vessel only ever arrives later), so
/// a path through any number of bridges, back and forth, is counted exactly once per minute. Every vessel counts; a
/// vessel that raised a bridge on its way is carried on by that opening, not counted twice (its link there is
/// answered). The same arithmetic serves a forecast (links learnt, origins inferred: `infer`) and a planted world's
/// truth (links known, origins known).
public struct RiverEngine: Sendable {
    /// Links into each bridge.
    public let into: [String: [FollowDTO]]
    public let clock: PassageClock
    /// The longest lag of any link.
    public let maxLag: Int

    /// A link as the arithmetic walks it: its lags' running sums, and where its source stands among the origins of
    /// the bridge it leads to.
    struct Link {
        let from: String
        let to: String
        let follow: FollowDTO
        /// `cumulative[m]`: the chance that the lag is at most `m` minutes.
        let cumulative: [Double]
        let originAtTo: Int
    }

    /// What a target's chance walks: the bridges whose vessels can reach it (its ancestors through the links), and
    /// those of them that carry a vessel on (all but the target), in order.
    struct Plan {
        let reach: Set<String>
        let carriers: [String]
        let carrierIndex: [String: Int]

        init(target: String, into: [String: [FollowDTO]]) {
            var reach: Set<String> = [target]
            var frontier = [target]
            while let bridge = frontier.popLast() {
                for follow in into[bridge] ?? [] where reach.insert(follow.fromBridgeID).inserted {
                    frontier.append(follow.fromBridgeID)
                }
            }
            self.reach = reach
            carriers = reach.subtracting([target]).sorted()
            carrierIndex = Dictionary(uniqueKeysWithValues: carriers.enumerated().map { ($1, $0) })
        }

        /// The plan of a bridge no link touches: its own vessels only.
        init(lone target: String) {
            reach = [target]
            carriers = []
            carrierIndex = [:]
        }
    }

    private let outOf: [String: [Link]]
    /// The plan of every bridge a link touches, by target (another target's is made when asked).
    private let plans: [String: Plan]
    /// Each bridge's links by the bridge they come from.
    private let linkFrom: [String: [String: FollowDTO]]
    /// Onward chances worked out: `openOnward`'s by target, the others by the minutes held in their window.
    private let onwardCache = OnwardCache()
    /// Each bridge's origins: `""` (starting out), then each bridge linked into it.
    private let originsOf: [String: [String]]

    /// The engine of `into`'s links; a link that is not one (a share outside 0…1 or not a number, lags that are not
    /// a distribution) is left out.
    public init(into: [String: [FollowDTO]], clock: PassageClock) {
        let into = into.mapValues { $0.filter(Self.isSound) }.filter { !$0.value.isEmpty }
        self.into = into
        self.clock = clock
        var outOf: [String: [Link]] = [:]
        var originsOf: [String: [String]] = [:]
        for (to, follows) in into.sorted(by: { $0.key < $1.key }) {
            originsOf[to] = [""] + follows.map(\.fromBridgeID)
            for (index, follow) in follows.enumerated() {
                var cumulative = [0.0]
                cumulative.reserveCapacity(follow.lagWeights.count + 1)
                for weight in follow.lagWeights { cumulative.append(cumulative[cumulative.count - 1] + weight) }
                outOf[follow.fromBridgeID, default: []].append(
                    Link(from: follow.fromBridgeID, to: to, follow: follow, cumulative: cumulative, originAtTo: index + 1))
            }
        }
        self.outOf = outOf
        self.originsOf = originsOf
        linkFrom = into.mapValues { follows in
            Dictionary(follows.map { ($0.fromBridgeID, $0) }, uniquingKeysWith: { first, _ in first })
        }
        maxLag = into.values.flatMap { $0 }.map(\.lagWeights.count).max() ?? 0
        let touched = Set(into.keys).union(into.values.flatMap { $0.map(\.fromBridgeID) })
        plans = Dictionary(uniqueKeysWithValues: touched.map { ($0, Plan(target: $0, into: into)) })
    }

    /// Whether a link can be walked: shares in 0…1, lags finite, non-negative and summing to about 1.
    static func isSound(_ follow: FollowDTO) -> Bool {
        let unit = { (value: Double) in value.isFinite && value >= 0 && value <= 1 }
        return unit(follow.share) && follow.originShares.values.allSatisfy(unit) && !follow.lagWeights.isEmpty
            && follow.lagWeights.allSatisfy(unit) && abs(follow.lagWeights.reduce(0, +) - 1) < 1e-6
    }

    /// What a window's chance is made of.
    public struct Outcome: Sendable {
        /// The chance of at least one opening in the window.
        public let chance: Double
        /// For each vessel given before the moment, the chance that it raises the bridge in the window.
        public let fromVessels: [Double]
        /// The same for a vessel at the same place and time that started out there and has raised nothing since:
        /// what the opening would bring but for where its vessel came from and what has happened since.
        public let plainVessels: [Double]
    }

    /// The chance that `target` opens in minutes `[moment, moment + window)`, given `vessels` (openings before the
    /// moment) and each bridge's background rate per minute.
    public func chance(target: String, moment: Int64, window: Int, vessels: [RiverVessel],
                       background: (String, Int64) -> Double) -> Outcome {
        chance(target: target, moment: moment, window: window, vessels: vessels, background: background, timeline: nil)
    }

    /// The same, with each bridge's timeline from `timeline` where it covers the span, and its background rates
    /// minute by minute from the moment from `rates` where they cover the window (one moment's forecasts share
    /// them: `Nowcaster.RiverMoment`).
    package func chance(target: String, moment: Int64, window: Int, vessels: [RiverVessel],
                background: (String, Int64) -> Double, timeline: ((String) -> Timeline)?,
                rates: ((String) -> [Double])? = nil) -> Outcome {
        let window = max(window, 1)
        let last = moment + Int64(window) - 1
        let plan = plans[target] ?? Plan(lone: target)
        let reach = plan.reach, carriers = plan.carriers, carrierIndex = plan.carrierIndex
        var earliest = moment - 1
        for vessel in vessels where vessel.minute < earliest { earliest = vessel.minute }
        earliest -= 1
        let timelines = self.timelines(of: reach, first: earliest, last: last, given: timeline)
        let onward = windowOnward(target: target, plan: plan, moment: moment, window: window, timelines: timelines)
        // Vessels starting out in the window, at the target or carried to it.
        let lambda = startingOut(target: target, carriers: carriers, onward: onward, moment: moment, window: window,
                                 background: background, rates: rates)
        // Openings before the moment.
        var none = exp(-lambda)
        var fromVessels: [Double] = []
        var plainVessels: [Double] = []
        fromVessels.reserveCapacity(vessels.count)
        plainVessels.reserveCapacity(vessels.count)
        for vessel in vessels where vessel.minute < moment {
            var stays = 1.0
            var plainStays = 1.0
            for link in outOf[vessel.bridgeID] ?? [] where reach.contains(link.to) {
                guard let to = timelines[link.to] else { continue }
                let elapsed = to.passable(from: vessel.minute, to: moment - 1)
                guard elapsed < link.follow.lagWeights.count else { continue }
                let survival = 1 - link.cumulative[elapsed]
                let reaches = hop(link, from: vessel.minute, elapsed: elapsed, target: target, last: last,
                                  moment: moment, timelines: timelines, onward: onward, carrierIndex: carrierIndex)
                guard reaches > 0 else { continue }
                let given = { (share: Double) in share * reaches / max(1 - share + share * survival, 1e-12) }
                plainStays *= 1 - min(max(given(link.follow.share(origin: "")), 0), 1)
                let pending = 1 - min(max(vessel.passed[link.to] ?? 0, 0), 1)
                guard pending > 0 else { continue }
                var chance = 0.0
                for (origin, weight) in vessel.origins where weight > 0 {
                    chance += weight * given(link.follow.share(origin: origin))
                }
                stays *= 1 - min(max(pending * chance, 0), 1)
            }
            fromVessels.append(1 - stays)
            plainVessels.append(1 - plainStays)
            none *= stays
        }
        return Outcome(chance: min(max(1 - none, 0), 1), fromVessels: fromVessels, plainVessels: plainVessels)
    }

    /// Each bridge of `reach`'s timeline over `[first, last]`: `given`'s where it covers the span, else made here.
    private func timelines(of reach: Set<String>, first: Int64, last: Int64, given timeline: ((String) -> Timeline)?)
        -> [String: Timeline]
    {
        var timelines: [String: Timeline] = [:]
        for bridge in reach {
            if let given = timeline?(bridge), given.first == first, given.last >= last {
                timelines[bridge] = given
            } else {
                timelines[bridge] = Timeline(clock.prefix(bridge, first: first, last: last), first: first, last: last)
            }
        }
        return timelines
    }

    /// The onward chances of `plan`'s carriers over the window `[moment, moment + window)`.
    ///
    /// `values[carrier][origin][k]`: the chance that a vessel at the carrier at minute moment + k, come from that
    /// origin, is carried on to the target before the window ends. Where every bridge on the way lets vessels
    /// through every minute of the window, it depends on the minutes left only: kept by target, worked out once,
    /// and read backwards.
    private func windowOnward(target: String, plan: Plan, moment: Int64, window: Int,
                              timelines: [String: Timeline]) -> Onward {
        let last = moment + Int64(window) - 1
        if plan.reach.allSatisfy({ timelines[$0]?.passable(from: moment - 1, to: last) == window }) {
            return Onward(values: openOnward(target: target, reach: plan.reach, carriers: plan.carriers,
                                             carrierIndex: plan.carrierIndex, minutes: window), lastIndex: window - 1)
        }
        // Otherwise they depend on which minutes of the window each bridge on the way holds vessels in: the
        // same curfew minutes recur day after day, so they are kept by that pattern.
        let key = OnwardCache.HeldKey(target: target, window: window,
                                      held: heldMinutes(of: plan.carriers + [target], moment: moment, window: window,
                                                        timelines: timelines))
        if let known = onwardCache.value(key) { return Onward(values: known, lastIndex: nil) }
        let values = onward(target: target, reach: plan.reach, carriers: plan.carriers,
                            carrierIndex: plan.carrierIndex, moment: moment, window: window, timelines: timelines)
        onwardCache.set(key, values)
        return Onward(values: values, lastIndex: nil)
    }

    /// The minutes of the window each of `bridges` holds vessels in, as bits (64 minutes a word, bridge after
    /// bridge; a bridge without a timeline is left out).
    private func heldMinutes(of bridges: [String], moment: Int64, window: Int, timelines: [String: Timeline])
        -> [UInt64]
    {
        let last = moment + Int64(window) - 1
        var held: [UInt64] = []
        for bridge in bridges {
            guard let line = timelines[bridge] else { continue }
            var words = [UInt64](repeating: 0, count: (window + 63) / 64)
            if line.passable(from: moment - 1, to: last) < window {
                var before = line.count(at: moment - 1)
                for k in 0..<window {
                    let now = line.count(at: moment + Int64(k))
                    if now == before { words[k / 64] |= 1 << UInt64(k % 64) }
                    before = now
                }
            }
            held += words
        }
        return held
    }

    /// Λ: the expected count of vessels starting out in the window at `target` (its background rates), or at one of
    /// `carriers` and carried on to it (their rates times `onward`'s chance).
    private func startingOut(target: String, carriers: [String], onward: Onward, moment: Int64, window: Int,
                             background: (String, Int64) -> Double, rates: ((String) -> [Double])?) -> Double {
        func ratesOf(_ bridge: String) -> [Double] {
            if let given = rates?(bridge), given.count >= window { return given }
            var made: [Double] = []
            made.reserveCapacity(window)
            for k in 0..<window { made.append(background(bridge, moment + Int64(k))) }
            return made
        }
        var lambda = 0.0
        let own = ratesOf(target)
        for k in 0..<window { lambda += max(own[k], 0) }
        for index in carriers.indices {
            let carried = onward.values[index][0]
            let rate = ratesOf(carriers[index])
            for k in 0..<window {
                let chance = carried[onward.lastIndex.map { $0 - k } ?? k]
                if chance > 0 { lambda += max(rate[k], 0) * chance }
            }
        }
        return lambda
    }

    /// The onward chances of `carriers` (see `chance`), backwards from the window's last minute.
    private func onward(target: String, reach: Set<String>, carriers: [String], carrierIndex: [String: Int],
                        moment: Int64, window: Int, timelines: [String: Timeline]) -> [[[Double]]] {
        let last = moment + Int64(window) - 1
        var onward = carriers.map { carrier in
            [[Double]](repeating: [Double](repeating: 0, count: window), count: originsOf[carrier]?.count ?? 1)
        }
        let linksOf = carriers.map { (outOf[$0] ?? []).filter { reach.contains($0.to) } }
        let originLists = carriers.map { originsOf[$0] ?? [""] }
        var carried: [Double] = []
        for k in stride(from: window - 1, through: 0, by: -1) {
            let minute = moment + Int64(k)
            for index in carriers.indices {
                let links = linksOf[index]
                carried.removeAll(keepingCapacity: true)
                for link in links {
                    carried.append(hop(link, from: minute, elapsed: 0, target: target, last: last, moment: moment,
                                       timelines: timelines, onward: Onward(values: onward, lastIndex: nil),
                                       carrierIndex: carrierIndex))
                }
                let origins = originLists[index]
                for slot in origins.indices {
                    var none = 1.0
                    for position in links.indices {
                        none *= 1 - links[position].follow.share(origin: origins[slot]) * carried[position]
                    }
                    onward[index][slot][k] = 1 - none
                }
            }
        }
        return onward
    }

    /// The onward chances where every minute lets vessels through, by minutes left (index 0: the window's last
    /// minute), at least `minutes` of them; kept by target.
    private func openOnward(target: String, reach: Set<String>, carriers: [String], carrierIndex: [String: Int],
                            minutes: Int) -> [[[Double]]] {
        if let known = onwardCache.value(target), known.first?.first?.count ?? .max >= minutes { return known }
        let length = max(minutes, 120)
        let timelines = Dictionary(uniqueKeysWithValues: reach.map {
            ($0, Timeline((counts: [], passes: []), first: -Int64(maxLag) - 2, last: Int64(length) - 1))
        })
        let computed = onward(target: target, reach: reach, carriers: carriers, carrierIndex: carrierIndex,
                              moment: 0, window: length, timelines: timelines).map { $0.map { Array($0.reversed()) } }
        onwardCache.set(target, computed)
        return computed
    }

    /// The chance mass of a link's lag beyond `elapsed` (from an opening at `minute`) whose arrival reaches the
    /// target by `last`: directly (the link ends at the target) or through the arrival bridge's onward chance.
    private func hop(_ link: Link, from minute: Int64, elapsed: Int, target: String, last: Int64, moment: Int64,
                     timelines: [String: Timeline], onward: Onward, carrierIndex: [String: Int]) -> Double {
        guard let to = timelines[link.to] else { return 0 }
        let base = to.count(at: minute)
        let upper = min(Int(to.count(at: last) - base), link.follow.lagWeights.count)
        guard upper > elapsed else { return 0 }
        if link.to == target { return max(link.cumulative[upper] - link.cumulative[elapsed], 0) }
        guard let index = carrierIndex[link.to] else { return 0 }
        let carried = onward.values[index][link.originAtTo]
        // Minutes of the window: `k` from the moment, or (read backwards) minutes left.
        let count = onward.lastIndex.map { $0 + 1 } ?? carried.count
        let lags = link.follow.lagWeights
        var sum = 0.0
        for lag in (elapsed + 1)...upper where lags[lag - 1] > 0 {
            guard let arrival = to.minute(reachingCount: base + Int32(lag)) else { break }
            let k = Int(arrival - moment)
            if k >= 0 && k < count { sum += lags[lag - 1] * carried[onward.lastIndex.map { $0 - k } ?? k] }
        }
        return sum
    }

    /// Onward chances by carrier, origin and minute of the window (`lastIndex` nil), or by minutes left, read
    /// backwards from `lastIndex` (the window's last minute is index 0).
    struct Onward {
        let values: [[[Double]]]
        let lastIndex: Int?
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
            let links = linkFrom[here.bridgeID] ?? [:]
            var weights: [(Int, Double)] = []
            for earlier in vessels[..<index].indices.reversed() {
                let source = vessels[earlier]
                if here.minute - source.minute > horizon { break }
                guard source.minute < here.minute, let follow = links[source.bridgeID] else { continue }
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
