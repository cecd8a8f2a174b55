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

    /// The test of one pair: the count, the null's mean and spread, and the lags of the first follower (observed,
    /// and the null's mean) for a first guess at the lag's shape.
    struct PairTest {
        let followed: Int
        let mean: Double
        let spread: Double
        let lags: [Double]
        /// How many moves the history allowed.
        var moves = 0

        /// How far the count beats the null's mean, in units of the spread of a new copy about that mean (the
        /// spread widened by the mean's own error).
        var score: Double {
            let width = spread * (1 + 1 / Double(max(moves, 1))).squareRoot()
            return width > 0 ? (Double(followed) - mean) / width : (Double(followed) > mean ? .infinity : 0)
        }
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

    /// A target bridge's held minutes laid out over every minute its pair tests ask of (the openings' minutes, the
    /// null's moves and a day and the lag beyond), or nil when it lets vessels through at every minute.
    func passage(_ bridge: PassageClock.Bridge, covering starts: [[Int32]]) -> PassageClock.Index? {
        guard bridge.holds, let low = starts.compactMap(\.first).min(), let high = starts.compactMap(\.last).max() else {
            return nil
        }
        let reach = Int64(Self.shifts.map { abs($0) }.max() ?? 0) * 10_080 + Int64(maxLagMinutes) + 2 * 1_440
        return bridge.indexed(first: Int64(low) - reach, last: Int64(high) + reach)
    }

    /// The minutes after an opening in which the same bridge is seen to open again hardly ever (it is still open, or
    /// its rows merge into one opening): the 2nd percentile of the gaps between its openings, at most 30. Its own
    /// moved copy has no such gap, so a bridge is tested against itself beyond it only.
    static func deadTime(_ starts: [Int32]) -> Int {
        guard starts.count > 50 else { return 0 }
        var gaps = zip(starts.dropFirst(), starts).map { Int($0 - $1) }
        gaps.sort()
        return min(max(gaps[gaps.count / 50], 0), 30)
    }

    /// A target bridge as its pair tests read it, for every source alike: its openings and the null's copies of
    /// them, and its passage clock.
    struct PairTarget {
        /// The openings as one count reads them: `minutes` moved by `shift` (a week's move shares the target's own
        /// array, not a copy of it), the span they cover, and each one's minute on the target's passage clock.
        struct Copy {
            let minutes: [Int32]
            let shift: Int32
            let range: ClosedRange<Int32>
            /// nil: the target holds no minute, and a minute is its own.
            let clocked: [Int32]?
        }
        /// The openings as they are (nil: none), and the null's copies.
        let observed: Copy?
        let nulls: [Copy]
        let passage: PassageClock.Index?

        init(_ target: [Int32], passage: PassageClock.Index?) {
            self.passage = passage
            let clocked = { (minutes: [Int32], shift: Int32) in
                passage.map { clock in minutes.map { Int32(truncatingIfNeeded: clock.clocked(Int64($0 + shift))) } }
            }
            guard let first = target.first, let last = target.last else {
                observed = nil
                nulls = []
                return
            }
            observed = Copy(minutes: target, shift: 0, range: first...last, clocked: clocked(target, 0))
            if RiverLearner.movesByWeeks(target) {
                nulls = RiverLearner.shifts.map { weeks in
                    let shift = weeks * 10_080
                    return Copy(minutes: target, shift: shift, range: (first + shift)...(last + shift),
                                clocked: clocked(target, shift))
                }
            } else {
                nulls = RiverLearner.nullTargets(target).map {
                    Copy(minutes: $0.minutes, shift: 0, range: $0.range, clocked: clocked($0.minutes, 0))
                }
            }
        }

        /// Minutes on the target's passage clock (nil: it holds no minute, and a minute is its own).
        func clocked(_ minutes: [Int32]) -> [Int32]? {
            passage.map { clock in minutes.map { Int32(truncatingIfNeeded: clock.clocked(Int64($0))) } }
        }
    }

    /// The count of `source` openings followed by one of `target` within the lag (minutes the target lets vessels
    /// through; beyond `floor` of them), against the same with `target`'s openings moved (`nullTargets`).
    func pairTest(_ source: [Int32], _ target: PairTarget, after floor: Int = 0) -> PairTest {
        let lag = maxLagMinutes
        guard let observedCopy = target.observed, !source.isEmpty else {
            return PairTest(followed: 0, mean: 0, spread: 0, lags: [])
        }
        let sourceClocked = target.clocked(source)
        // Source openings whose whole lag lies within the copy's span are counted.
        func count(_ copy: PairTarget.Copy) -> (found: Int, covered: Int, lags: [Int]) {
            let range = copy.range
            let minutes = copy.minutes
            let shift = copy.shift
            var lags = [Int](repeating: 0, count: lag)
            var found = 0
            var covered = 0
            var cursor = 0
            for (index, start) in source.enumerated() {
                guard start >= range.lowerBound && start + Int32(lag) <= range.upperBound else { continue }
                covered += 1
                while cursor < minutes.count && minutes[cursor] + shift <= start { cursor += 1 }
                let from = Int64(sourceClocked?[index] ?? start)
                var next = cursor
                while next < minutes.count {
                    let minute = minutes[next] + shift
                    if Int64(minute - start) > Int64(lag) + 1_440 { break }
                    let passable = Int64(copy.clocked?[next] ?? minute) - from
                    if passable > Int64(floor) {
                        if passable <= Int64(lag) {
                            found += 1
                            lags[Int(passable) - 1] += 1
                        }
                        break
                    }
                    next += 1
                }
            }
            return (found, covered, lags)
        }
        let observed = count(observedCopy)
        let total = Double(source.count)
        var nulls: [Double] = []
        var nullLags = [Double](repeating: 0, count: lag)
        for moved in target.nulls {
            let null = count(moved)
            guard null.covered >= 10 else { continue }
            let scale = total / Double(null.covered)
            nulls.append(Double(null.found) * scale)
            for index in 0..<lag { nullLags[index] += Double(null.lags[index]) * scale }
        }
        guard nulls.count >= 2, observed.covered > 0 else { return PairTest(followed: 0, mean: 0, spread: 0, lags: []) }
        let scale = total / Double(observed.covered)
        let followed = Int((Double(observed.found) * scale).rounded())
        let mean = nulls.reduce(0, +) / Double(nulls.count)
        // The copies' spread, and never less than a count of that many independent chances has (the copies of a
        // short history share much of their days, and their spread alone runs narrow).
        let binomial = (mean * max(1 - mean / total, 0)).squareRoot()
        let spread = max((nulls.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(nulls.count - 1)).squareRoot(),
                         binomial)
        let lags = (0..<lag).map { max(0, Double(observed.lags[$0]) * scale - nullLags[$0] / Double(nulls.count)) }
        return PairTest(followed: followed, mean: mean, spread: spread, lags: lags, moves: nulls.count)
    }

    /// The null's copies of a bridge's openings, each with the span it covers. On a history of 13 weeks or more: moved
    /// by ±1…±6 whole weeks (time of week and season kept, any link broken). On a shorter one, where so few moves
    /// would leave the null's spread unknown: its days shuffled among the days of the same weekday (each day to
    /// another; 24 shuffles, the same for every pair), on a history of three weeks or more.
    static func nullTargets(_ target: [Int32]) -> [(minutes: [Int32], range: ClosedRange<Int32>)] {
        guard let first = target.first, let last = target.last else { return [] }
        if movesByWeeks(target) {
            return shifts.map { weeks in
                let shift = weeks * 10_080
                return (target.map { $0 + shift }, (first + shift)...(last + shift))
            }
        }
        let firstDay = Int(Int64(first).floorDivided(by: 1_440))
        let days = Int(Int64(last).floorDivided(by: 1_440)) - firstDay + 1
        guard days >= 21 else { return [] }
        // Each day's openings, by day of the history.
        var byDay = [ArraySlice<Int32>](repeating: [], count: days)
        var start = 0
        while start < target.count {
            let day = Int(Int64(target[start]).floorDivided(by: 1_440)) - firstDay
            var end = start
            while end < target.count && Int(Int64(target[end]).floorDivided(by: 1_440)) - firstDay == day { end += 1 }
            byDay[day] = target[start..<end]
            start = end
        }
        var random = SplitMix64(seed: 0x5EED)
        return (0..<24).map { _ in
            // Each weekday's days in one cycle (Sattolo's shuffle): no day keeps its own openings.
            var from = Array(0..<days)
            for weekday in 0..<7 {
                var members = Array(stride(from: weekday, to: days, by: 7))
                for index in stride(from: members.count - 1, to: 0, by: -1) {
                    members.swapAt(index, Int(random.next() % UInt64(index)))
                }
                for (position, day) in stride(from: weekday, to: days, by: 7).enumerated() { from[day] = members[position] }
            }
            var moved: [Int32] = []
            moved.reserveCapacity(target.count)
            for day in 0..<days {
                let shift = Int32(day - from[day]) * 1_440
                moved += byDay[from[day]].map { $0 + shift }
            }
            return (moved, Int32(firstDay * 1_440)...Int32((firstDay + days) * 1_440 - 1))
        }
    }

    /// Whether the null moves the openings by whole weeks: a history of 13 weeks or more.
    static func movesByWeeks(_ target: [Int32]) -> Bool {
        guard let first = target.first, let last = target.last else { return false }
        return last - first >= 13 * 10_080
    }

    /// The t-quantile of 1 − `falseLinkRate` for `df` degrees of freedom: the table to 11, Cornish–Fisher's
    /// expansion beyond (within 0.01 there).
    static func threshold(df: Int) -> Double {
        guard df > thresholds.count else { return thresholds[max(df, 1) - 1] }
        let z = 3.090_232, v = Double(df)
        let z3 = z * z * z, z5 = z3 * z * z, z7 = z5 * z * z
        return z + (z3 + z) / (4 * v) + (5 * z5 + 16 * z3 + 3 * z) / (96 * v * v)
            + (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / (384 * v * v * v)
    }
}

/// The history as the river's learner reads it: every opening of every bridge in order of time, each with its
/// time-of-week rate, its hour's pool, and its passage count at each bridge that holds vessels.
struct River {
    let ids: [String]
    /// By bridge index: the linked bridges into it (indices), and its origins (−1: starting out, else a bridge).
    let links: [[Int]]
    let origins: [[Int]]
    let counts: [Int]
    let maxLag: Int
    private let minutes: [Int32]
    private let bridges: [UInt8]
    /// Per opening: the time-of-week rate per minute of its bridge, and its hour pool (0–47).
    private let rates: [Float]
    private let pools: [UInt8]
    /// Per bridge that holds vessels: each opening's count of the minutes that bridge let vessels through, at
    /// `passageBase[bridge]` in `passage` (−1: it holds none, and lags are minutes).
    private let passage: [Int32]
    private let passageBase: [Int]
    /// By target and source bridge (`target · bridges + source`): which of the target's links the source is, −1 none.
    private let linkIndex: [Int]
    /// By bridge and origin bridge (`bridge · bridges + origin`): the origin's slot in `origins[bridge]`, −1 none.
    private let originSlot: [Int]
    /// The links laid end to end (target by target, in `links` order): link `l` of target `t` is `linkStart[t] + l`;
    /// its shares start at `shareStart` of it (one per origin of its source), its lags at `maxLag` times it.
    private let linkStart: [Int]
    private let shareStart: [Int]
    private let shareCount: Int

    /// The parameters: per bridge, per link: shares by origin, lags; background shares by hour pool.
    struct Fit {
        struct Link {
            var shares: [Double]
            var lags: [Double]
            var overall: Double
        }
        var links: [[Link]]
        var background: [[Double]]
        var brought: [Double]
    }

    init(ids: [String], startMinutes: [String: [Int32]], models: [String: OpeningModelDTO], rules: RuleCalendar?,
         clock: PassageClock, maxLag: Int, links: [Int: [Int]]) {
        self.ids = ids
        self.maxLag = maxLag
        self.links = ids.indices.map { links[$0] ?? [] }
        origins = ids.indices.map { to in [-1] + (links[to] ?? []) }
        counts = ids.map { startMinutes[$0]?.count ?? 0 }
        var merged: [(Int32, UInt8)] = []
        merged.reserveCapacity(counts.reduce(0, +))
        for (index, id) in ids.enumerated() {
            for minute in startMinutes[id] ?? [] { merged.append((minute, UInt8(index))) }
        }
        merged.sort { ($0.0, $0.1) < ($1.0, $1.1) }
        minutes = merged.map(\.0)
        bridges = merged.map(\.1)
        var rates = [Float](repeating: 0, count: merged.count)
        var pools = [UInt8](repeating: 0, count: merged.count)
        let sundays = ids.map { rules?.curfew(of: $0) != nil }
        for (index, (minute, bridge)) in merged.enumerated() {
            let reading = FloatingTimestamp(wallClockSeconds: Int64(minute) * 60)
            let id = ids[Int(bridge)]
            guard let model = models[id] else { continue }
            var slot = OpeningModelDTO.slot(of: reading)
            if sundays[Int(bridge)], rules?.liftedCurfew(id, onDay: reading.dayNumber) != nil { slot = 6 * 96 + slot % 96 }
            rates[index] = Float(Nowcaster.rate(model.slots[slot].startProbability) * model.monthFactors[reading.month - 1]
                / Double(OpeningModelDTO.slotMinutes))
            pools[index] = UInt8((slot / 96 >= 5 ? 24 : 0) + reading.hour)
        }
        self.rates = rates
        self.pools = pools
        var passage: [Int32] = []
        var passageBase = [Int](repeating: -1, count: ids.count)
        // Only a bridge with links into it has its lags counted.
        for (index, id) in ids.enumerated() where clock.holds(id) && !self.links[index].isEmpty {
            guard let first = merged.first?.0, let last = merged.last?.0 else { continue }
            let bridge = clock.bridge(id).indexed(first: Int64(first), last: Int64(last))
            passageBase[index] = passage.count
            var previous = Int64(first)
            var running: Int64 = 0
            for (minute, _) in merged {
                running += bridge.passableMinutes(from: previous, to: Int64(minute))
                previous = Int64(minute)
                passage.append(Int32(truncatingIfNeeded: running))
            }
        }
        self.passage = passage
        self.passageBase = passageBase
        var linkIndex = [Int](repeating: -1, count: ids.count * ids.count)
        var originSlot = [Int](repeating: -1, count: ids.count * ids.count)
        var linkStart: [Int] = []
        var shareStart: [Int] = []
        var shareCount = 0
        for to in ids.indices {
            linkStart.append(shareStart.count)
            for (position, from) in self.links[to].enumerated() {
                linkIndex[to * ids.count + from] = position
                shareStart.append(shareCount)
                shareCount += origins[from].count
            }
            for (slot, origin) in origins[to].enumerated() where origin >= 0 { originSlot[to * ids.count + origin] = slot }
        }
        self.linkIndex = linkIndex
        self.originSlot = originSlot
        self.linkStart = linkStart
        self.shareStart = shareStart
        self.shareCount = shareCount
    }

    /// The minutes bridge `to` let vessels through from opening `from` to opening `at` (positions in the timeline).
    @inline(__always)
    private func lag(_ from: Int, _ at: Int, to bridge: Int) -> Int {
        let base = passageBase[bridge]
        if base >= 0 { return Int(passage[base + at] - passage[base + from]) }
        return Int(minutes[at] - minutes[from])
    }

    /// A first guess: shares from the tests' excess, lags from the excess's shape, backgrounds from what is left.
    func initial(tests: [Int: [Int: RiverLearner.PairTest]]) -> Fit {
        var fitLinks: [[Fit.Link]] = []
        var brought = [Double](repeating: 0, count: ids.count)
        for to in ids.indices {
            fitLinks.append(links[to].map { from in
                let test = tests[to]?[from]
                let excess = max(0, Double(test?.followed ?? 0) - (test?.mean ?? 0))
                let share = min(0.9, max(0.02, excess / Double(max(counts[from], 1))))
                var lags = test?.lags ?? []
                let total = lags.reduce(0, +)
                lags = total > 0 ? Self.smoothed(lags.map { $0 / total }) : [Double](repeating: 1 / Double(maxLag), count: maxLag)
                brought[to] += share * Double(counts[from])
                return Fit.Link(shares: [Double](repeating: share, count: origins[from].count), lags: lags, overall: share)
            })
        }
        let background = ids.indices.map { to -> [Double] in
            let share = max(0.05, 1 - brought[to] / Double(max(counts[to], 1)))
            brought[to] = 1 - share
            return [Double](repeating: share, count: 48)
        }
        return Fit(links: fitLinks, background: background, brought: brought)
    }

    /// One round of expectation–maximisation.
    func step(_ fit: Fit) -> Fit {
        let count = minutes.count
        let bridgeCount = ids.count
        let originCounts = origins.map(\.count)
        let linked = links.map { !$0.isEmpty }
        // The parameters laid flat (see `linkStart`), background by bridge and hour pool.
        var shares: [Double] = []
        var lags: [Double] = []
        shares.reserveCapacity(shareCount)
        lags.reserveCapacity(shareStart.count * maxLag)
        for to in ids.indices {
            for link in fit.links[to] {
                shares += link.shares
                lags += link.lags
            }
        }
        let background = fit.background.flatMap { $0 }
        // Each opening's origin probabilities (by slot in its bridge's `origins`), from this round.
        var originOffsets = [Int](repeating: 0, count: count + 1)
        for index in 0..<count { originOffsets[index + 1] = originOffsets[index] + originCounts[Int(bridges[index])] }
        var originChances = [Float](repeating: 0, count: originOffsets[count])
        // Sums for the new parameters, laid out as the parameters are.
        var expected = [Double](repeating: 0, count: shareCount)
        var exposure = expected
        var lagSums = [Double](repeating: 0, count: lags.count)
        var ownSums = [Double](repeating: 0, count: bridgeCount * 48)
        var poolCounts = ownSums
        var ownTotal = [Double](repeating: 0, count: bridgeCount)
        // The earlier openings that may have brought this one: position, link (flat), lag and weight.
        var candidates: [(position: Int, link: Int, lag: Int, weight: Double)] = []
        for position in 0..<count {
            let bridge = Int(bridges[position])
            let pool = bridge * 48 + Int(pools[position])
            let own = max(Double(rates[position]) * background[pool], 1e-12)
            candidates.removeAll(keepingCapacity: true)
            var total = own
            if linked[bridge] {
                var earlier = position - 1
                while earlier >= 0 {
                    let lag = lag(earlier, position, to: bridge)
                    if lag > maxLag { break }
                    let source = Int(bridges[earlier])
                    let link = linkIndex[bridge * bridgeCount + source]
                    if lag >= 1, link >= 0 {
                        let flat = linkStart[bridge] + link
                        let first = shareStart[flat]
                        let origin = originOffsets[earlier]
                        var share = 0.0
                        for slot in 0..<originCounts[source] {
                            share += Double(originChances[origin + slot]) * shares[first + slot]
                        }
                        let weight = share * lags[flat * maxLag + lag - 1]
                        if weight > 0 {
                            candidates.append((earlier, flat, lag, weight))
                            total += weight
                        }
                    }
                    earlier -= 1
                }
            }
            // This opening's origin.
            let base = originOffsets[position]
            originChances[base] = Float(own / total)
            for candidate in candidates {
                let source = Int(bridges[candidate.position])
                let responsibility = candidate.weight / total
                let slot = originSlot[bridge * bridgeCount + source]
                if slot >= 0 { originChances[base + slot] += Float(responsibility) }
                // Shared out over the source's own origins in proportion to what each would bring.
                let first = shareStart[candidate.link]
                let sourceBase = originOffsets[candidate.position]
                let slots = originCounts[source]
                var sum = 0.0
                for slot in 0..<slots { sum += Double(originChances[sourceBase + slot]) * shares[first + slot] }
                if sum > 0 {
                    for slot in 0..<slots {
                        let weight = Double(originChances[sourceBase + slot]) * shares[first + slot]
                        expected[first + slot] += responsibility * weight / sum
                    }
                }
                lagSums[candidate.link * maxLag + candidate.lag - 1] += responsibility
            }
            ownSums[pool] += own / total
            poolCounts[pool] += 1
            ownTotal[bridge] += own / total
        }
        // Each opening is a source for every link out of its bridge, by origin.
        for position in 0..<count {
            let source = Int(bridges[position])
            let origin = originOffsets[position]
            for to in 0..<bridgeCount {
                let link = linkIndex[to * bridgeCount + source]
                guard link >= 0 else { continue }
                let first = shareStart[linkStart[to] + link]
                for slot in 0..<originCounts[source] { exposure[first + slot] += Double(originChances[origin + slot]) }
            }
        }
        var next = fit
        for to in ids.indices {
            for (link, from) in links[to].enumerated() {
                let flat = linkStart[to] + link
                let slots = shareStart[flat]..<(shareStart[flat] + originCounts[from])
                let totalExpected = expected[slots].reduce(0, +)
                let totalExposure = exposure[slots].reduce(0, +)
                let overall = totalExposure > 0 ? min(totalExpected / totalExposure, 0.99) : 0
                // Each origin's share, shrunk toward the link's overall share by five openings' worth.
                next.links[to][link].shares = slots.map { min(0.99, (expected[$0] + 5 * overall) / (exposure[$0] + 5)) }
                next.links[to][link].overall = overall
                let lagged = lagSums[(flat * maxLag)..<((flat + 1) * maxLag)]
                let sum = lagged.reduce(0, +)
                if sum > 0 { next.links[to][link].lags = Self.smoothed(lagged.map { $0 / sum }) }
            }
            let overallOwn = counts[to] > 0 ? ownTotal[to] / Double(counts[to]) : 1
            next.background[to] = (0..<48).map { pool in
                min(1, max(0.01, (ownSums[to * 48 + pool] + 5 * overallOwn) / (poolCounts[to * 48 + pool] + 5)))
            }
            next.brought[to] = 1 - overallOwn
        }
        return next
    }

    /// Weights lightly smoothed (a quarter to each neighbour) and normalised to sum to 1.
    static func smoothed(_ weights: [Double]) -> [Double] {
        guard weights.count > 2 else { return weights }
        var result = weights.indices.map { index -> Double in
            let left = index > 0 ? weights[index - 1] : weights[index]
            let right = index < weights.count - 1 ? weights[index + 1] : weights[index]
            return 0.25 * left + 0.5 * weights[index] + 0.25 * right
        }
        let sum = result.reduce(0, +)
        if sum > 0 { result = result.map { $0 / sum } }
        return result
    }
}

extension Int32 {
    func floorDivided(by divisor: Int32) -> Int32 {
        let quotient = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }
}

extension Int64 {
    func floorModulo(_ divisor: Int64) -> Int64 { ((self % divisor) + divisor) % divisor }
}
