import BridgetDTOs
import Foundation

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
            rates[index] = Float(Hazard.rate(model.slots[slot].startProbability) * model.monthFactors[reading.month - 1]
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

    /// What one round reads: the parameters laid flat (see `linkStart`; background by bridge and hour pool), each
    /// bridge's count of origins and whether any link leads into it, and where each opening's origin chances start.
    private struct Round {
        let shares: [Double]
        let lags: [Double]
        let background: [Double]
        let originCounts: [Int]
        let linked: [Bool]
        /// Opening `i`'s origin chances are at `originOffsets[i]` in `Sums.originChances`, one per origin slot.
        let originOffsets: [Int]

        init(_ fit: Fit, river: River) {
            originCounts = river.origins.map(\.count)
            linked = river.links.map { !$0.isEmpty }
            var shares: [Double] = []
            var lags: [Double] = []
            shares.reserveCapacity(river.shareCount)
            lags.reserveCapacity(river.shareStart.count * river.maxLag)
            for to in river.ids.indices {
                for link in fit.links[to] {
                    shares += link.shares
                    lags += link.lags
                }
            }
            self.shares = shares
            self.lags = lags
            background = fit.background.flatMap { $0 }
            let count = river.minutes.count
            var originOffsets = [Int](repeating: 0, count: count + 1)
            for index in 0..<count {
                originOffsets[index + 1] = originOffsets[index] + originCounts[Int(river.bridges[index])]
            }
            self.originOffsets = originOffsets
        }
    }

    /// What one round finds: each opening's origin chances (by slot in its bridge's `origins`, at `originOffsets`),
    /// and the sums for the new parameters, laid out as the parameters are.
    private struct Sums {
        var originChances: [Float]
        var expected: [Double]
        var exposure: [Double]
        var lagSums: [Double]
        var ownSums: [Double]
        var poolCounts: [Double]
        var ownTotal: [Double]

        init(_ round: Round, river: River) {
            originChances = [Float](repeating: 0, count: round.originOffsets[river.minutes.count])
            expected = [Double](repeating: 0, count: river.shareCount)
            exposure = expected
            lagSums = [Double](repeating: 0, count: round.lags.count)
            ownSums = [Double](repeating: 0, count: river.ids.count * 48)
            poolCounts = ownSums
            ownTotal = [Double](repeating: 0, count: river.ids.count)
        }
    }

    /// An earlier opening that may have brought the one at hand: its position, its link (flat), the lag and weight.
    private typealias Candidate = (position: Int, link: Int, lag: Int, weight: Double)

    /// One round of expectation–maximisation.
    func step(_ fit: Fit) -> Fit {
        let round = Round(fit, river: self)
        var sums = Sums(round, river: self)
        var candidates: [Candidate] = []
        for position in 0..<minutes.count {
            let bridge = Int(bridges[position])
            let pool = bridge * 48 + Int(pools[position])
            let own = max(Double(rates[position]) * round.background[pool], 1e-12)
            candidates.removeAll(keepingCapacity: true)
            var total = own
            if round.linked[bridge] {
                gatherCandidates(of: position, at: bridge, round, sums.originChances, into: &candidates,
                                 total: &total)
            }
            attribute(position, at: bridge, pool: pool, own: own, total: total, candidates, round, &sums)
        }
        countExposure(round, &sums)
        return reestimated(fit, round, sums)
    }

    /// The earlier openings (within the longest lag) whose vessels may have brought opening `position` of `bridge`,
    /// each weighed by its link's share over the source's origin chances times the lag's density, into `candidates`;
    /// each weight is added to `total`.
    @inline(__always)
    private func gatherCandidates(of position: Int, at bridge: Int, _ round: Round, _ originChances: [Float],
                                  into candidates: inout [Candidate], total: inout Double) {
        let bridgeCount = ids.count
        var earlier = position - 1
        while earlier >= 0 {
            let lag = lag(earlier, position, to: bridge)
            if lag > maxLag { break }
            let source = Int(bridges[earlier])
            let link = linkIndex[bridge * bridgeCount + source]
            if lag >= 1, link >= 0 {
                let flat = linkStart[bridge] + link
                let first = shareStart[flat]
                let origin = round.originOffsets[earlier]
                var share = 0.0
                for slot in 0..<round.originCounts[source] {
                    share += Double(originChances[origin + slot]) * round.shares[first + slot]
                }
                let weight = share * round.lags[flat * maxLag + lag - 1]
                if weight > 0 {
                    candidates.append((earlier, flat, lag, weight))
                    total += weight
                }
            }
            earlier -= 1
        }
    }

    /// The expectation for opening `position` of `bridge`: its origin chances (its own background `own` against each
    /// candidate's weight, out of `total`), and their counts added to the sums.
    @inline(__always)
    private func attribute(_ position: Int, at bridge: Int, pool: Int, own: Double, total: Double,
                           _ candidates: [Candidate], _ round: Round, _ sums: inout Sums) {
        let bridgeCount = ids.count
        // This opening's origin.
        let base = round.originOffsets[position]
        sums.originChances[base] = Float(own / total)
        for candidate in candidates {
            let source = Int(bridges[candidate.position])
            let responsibility = candidate.weight / total
            let slot = originSlot[bridge * bridgeCount + source]
            if slot >= 0 { sums.originChances[base + slot] += Float(responsibility) }
            // Shared out over the source's own origins in proportion to what each would bring.
            let first = shareStart[candidate.link]
            let sourceBase = round.originOffsets[candidate.position]
            let slots = round.originCounts[source]
            var sum = 0.0
            for slot in 0..<slots { sum += Double(sums.originChances[sourceBase + slot]) * round.shares[first + slot] }
            if sum > 0 {
                for slot in 0..<slots {
                    let weight = Double(sums.originChances[sourceBase + slot]) * round.shares[first + slot]
                    sums.expected[first + slot] += responsibility * weight / sum
                }
            }
            sums.lagSums[candidate.link * maxLag + candidate.lag - 1] += responsibility
        }
        sums.ownSums[pool] += own / total
        sums.poolCounts[pool] += 1
        sums.ownTotal[bridge] += own / total
    }

    /// Each opening is a source for every link out of its bridge, by origin: its origin chances added to those
    /// links' exposure.
    private func countExposure(_ round: Round, _ sums: inout Sums) {
        let bridgeCount = ids.count
        for position in 0..<minutes.count {
            let source = Int(bridges[position])
            let origin = round.originOffsets[position]
            for to in 0..<bridgeCount {
                let link = linkIndex[to * bridgeCount + source]
                guard link >= 0 else { continue }
                let first = shareStart[linkStart[to] + link]
                for slot in 0..<round.originCounts[source] {
                    sums.exposure[first + slot] += Double(sums.originChances[origin + slot])
                }
            }
        }
    }

    /// The round's new parameters from its sums: each link's shares by origin, overall and lags, each bridge's
    /// background by hour pool and the share its links bring.
    private func reestimated(_ fit: Fit, _ round: Round, _ sums: Sums) -> Fit {
        var next = fit
        for to in ids.indices {
            for (link, from) in links[to].enumerated() {
                let flat = linkStart[to] + link
                let slots = shareStart[flat]..<(shareStart[flat] + round.originCounts[from])
                let totalExpected = sums.expected[slots].reduce(0, +)
                let totalExposure = sums.exposure[slots].reduce(0, +)
                let overall = totalExposure > 0 ? min(totalExpected / totalExposure, 0.99) : 0
                // Each origin's share, shrunk toward the link's overall share by five openings' worth.
                next.links[to][link].shares = slots.map {
                    min(0.99, (sums.expected[$0] + 5 * overall) / (sums.exposure[$0] + 5))
                }
                next.links[to][link].overall = overall
                let lagged = sums.lagSums[(flat * maxLag)..<((flat + 1) * maxLag)]
                let sum = lagged.reduce(0, +)
                if sum > 0 { next.links[to][link].lags = Self.smoothed(lagged.map { $0 / sum }) }
            }
            let overallOwn = counts[to] > 0 ? sums.ownTotal[to] / Double(counts[to]) : 1
            next.background[to] = (0..<48).map { pool in
                let cell = to * 48 + pool
                return min(1, max(0.01, (sums.ownSums[cell] + 5 * overallOwn) / (sums.poolCounts[cell] + 5)))
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
