/// The links' test (`learn`'s first step): the count of one bridge's openings followed by another's, against the
/// same count on the null's copies of the follower's openings (moved by whole weeks, or days shuffled).
extension RiverLearner {
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
