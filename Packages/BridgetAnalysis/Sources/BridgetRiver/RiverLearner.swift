import BridgetDTOs
import Foundation

/// Learns the river model from the history: which bridges' openings bring openings of which (the links), how likely
/// by where the vessel came from, after what lag, and what share of each bridge's openings start a vessel's passage
/// there (the background). Nobody tells it which bridges share a waterway.
///
/// Two steps:
/// 1. **Links are earned.** For each ordered pair (A, B), A's own included, the count of A's openings followed by one
///    of B within the longest lag is set against the same count with B's openings moved by ±1…±6 whole weeks (time of
///    week and season kept, any link broken), or on a history shorter than 13 weeks with B's days shuffled among the
///    days of the same weekday (24 times). A pair is a candidate only when the count beats the null's mean by the
///    t-quantile of `falseLinkRate` in units of its spread (degrees of freedom: the null's copies, less one; the
///    spread widened for the mean's own error, and never narrower than a binomial count's): on bridges with no link
///    at all, a pair is kept at that rate. A history shorter than three weeks learns no link. A bridge against itself
///    is counted beyond the minutes it cannot open again (`deadTime`), which its moved copy does not have.
/// 2. **Shares and lags by maximum likelihood** (expectation–maximisation of a self-exciting point process): each
///    opening of B is a vessel starting out there (rate: its time-of-week slot times the background share of that
///    hour) or a vessel of an earlier opening of a linked bridge (rate: that link's share for the earlier opening's
///    own origin times the lag's density). Responsibilities are shared out, and the shares (per origin: a vessel
///    starting out, passing through from another bridge, or going away from B), lags and background shares
///    re-estimated from them, 30 times. Lags count the minutes B lets vessels through (`PassageClock`), so a
///    follower a curfew holds is late, not missing. A link that ends with a share under 1% is dropped.
///
/// Memory: the openings' minutes, bridges and per-opening rates, and each opening's passage count at the linked bridges
/// that hold vessels: about 40 bytes an opening, of the newest `fitOpenings` at most.
public struct RiverLearner: Sendable {
    public let maxLagMinutes: Int
    public let iterations: Int
    /// The chance that a pair of bridges with no link is kept.
    public let falseLinkRate: Double
    /// The week moves of the null on a long history.
    static let shifts: [Int32] = [-6, -5, -4, -3, -2, -1, 1, 2, 3, 4, 5, 6]
    /// The t-quantile of 1 − `falseLinkRate` by degrees of freedom, 1…11.
    static let thresholds = [318.3, 22.33, 10.21, 7.173, 5.893, 5.208, 4.785, 4.501, 4.297, 4.144, 4.025]

    /// The most openings (of all bridges, the newest) the likelihood's maximum is found on: the river as it is now,
    /// and a rebuild's time and memory bounded whatever the history's length (250,000: 18 years of Seattle's).
    public let fitOpenings: Int

    public init(maxLagMinutes: Int = 60, iterations: Int = 30, fitOpenings: Int = 250_000) {
        self.maxLagMinutes = max(maxLagMinutes, 1)
        self.iterations = max(iterations, 1)
        self.fitOpenings = max(fitOpenings, 1)
        falseLinkRate = 0.001
    }

    /// Each bridge's starts from the minute on which the newest `count` of all of them begin (all of them when
    /// there are no more).
    static func newest(_ starts: [String: [Int32]], ids: [String], count: Int) -> [String: [Int32]] {
        let total = ids.reduce(0) { $0 + (starts[$1]?.count ?? 0) }
        guard total > count else { return starts }
        // The cut: the smallest minute that leaves at most `count` starts at or after it (a binary search on minutes).
        let all = ids.compactMap { starts[$0] }
        func after(_ minute: Int32) -> Int {
            all.reduce(0) { $0 + $1.count - $1.partitioningIndex { $0 >= minute } }
        }
        var low = all.compactMap(\.first).min() ?? 0
        var high = (all.compactMap(\.last).max() ?? 0) + 1
        while low < high {
            let middle = low + (high - low) / 2
            if after(middle) <= count { high = middle } else { low = middle + 1 }
        }
        return starts.mapValues { Array($0[$0.partitioningIndex { $0 >= low }...]) }
    }

    /// What is learnt of one bridge.
    public struct Learnt: Sendable, Equatable {
        /// Links into the bridge, strongest first.
        public let followers: [FollowDTO]
        /// The share of openings at each hour (weekdays, then weekend days) that start a vessel's passage here.
        public let backgroundShares: [Double]
        /// The share of the bridge's openings its links bring.
        public let broughtShare: Double
    }

    /// Every bridge's links and background, from each bridge's opening starts (the source's wall clock, minutes since
    /// 1970, sorted) and its slot model (`models`, for the time of week's rates).
    public func learn(startMinutes: [String: [Int32]], models: [String: OpeningModelDTO], rules: RuleCalendar?)
        -> [String: Learnt]
    {
        let ids = startMinutes.keys.filter { !(startMinutes[$0] ?? []).isEmpty && models[$0] != nil }.sorted()
        let clock = PassageClock(rules: rules)
        // 1. The links that beat the null.
        var tests: [Int: [Int: PairTest]] = [:]
        for (to, target) in ids.enumerated() {
            let copies = PairTarget(startMinutes[target] ?? [],
                                    passage: passage(clock.bridge(target), covering: Array(startMinutes.values)))
            for (from, source) in ids.enumerated() {
                let starts = startMinutes[source] ?? []
                let test = pairTest(starts, copies, after: source == target ? Self.deadTime(starts) : 0)
                if test.moves >= 2, test.score >= Self.threshold(df: test.moves - 1),
                   Double(test.followed) - test.mean >= 10 {
                    tests[to, default: [:]][from] = test
                }
            }
        }
        // 2. The likelihood's maximum, on the newest `fitOpenings` openings of all bridges at most.
        let river = River(ids: ids, startMinutes: Self.newest(startMinutes, ids: ids, count: fitOpenings),
                          models: models, rules: rules, clock: clock, maxLag: maxLagMinutes,
                          links: tests.mapValues { Array($0.keys).sorted() })
        var fit = river.initial(tests: tests)
        for _ in 0..<iterations { fit = river.step(fit) }
        var result: [String: Learnt] = [:]
        for (to, id) in ids.enumerated() {
            var followers: [FollowDTO] = []
            for (index, from) in river.links[to].enumerated() {
                let link = fit.links[to][index]
                guard link.overall >= 0.01, let test = tests[to]?[from] else { continue }
                var shares: [String: Double] = [:]
                for (slot, origin) in river.origins[from].enumerated() {
                    shares[origin < 0 ? "" : ids[origin]] = link.shares[slot]
                }
                followers.append(FollowDTO(
                    fromBridgeID: ids[from], maxLagMinutes: maxLagMinutes,
                    sourceOpenings: startMinutes[ids[from]]?.count ?? river.counts[from],
                    followed: test.followed, expectedByChance: test.mean, chanceSpread: test.spread,
                    share: link.overall, originShares: shares, lagWeights: link.lags))
            }
            result[id] = Learnt(
                followers: followers.sorted { ($0.share, $0.fromBridgeID) > ($1.share, $1.fromBridgeID) },
                backgroundShares: fit.background[to], broughtShare: fit.brought[to])
        }
        return result
    }

    /// The link test's score for openings of one bridge (`from`) followed by another's (`to`, id `targetID`): how far
    /// the count beats the week-moved null, in the null's spreads (about 0 with a spread about 1 where there is no
    /// link; kept at `threshold`).
    public func score(from source: [Int32], to target: [Int32], targetID: String, rules: RuleCalendar?) -> Double {
        let copies = PairTarget(target, passage: passage(PassageClock(rules: rules).bridge(targetID),
                                                         covering: [source, target]))
        return pairTest(source, copies, after: source == target ? Self.deadTime(source) : 0).score
    }
}

extension Int32 {
    package func floorDivided(by divisor: Int32) -> Int32 {
        let quotient = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }
}

extension Int64 {
    package func floorModulo(_ divisor: Int64) -> Int64 { ((self % divisor) + divisor) % divisor }
}
