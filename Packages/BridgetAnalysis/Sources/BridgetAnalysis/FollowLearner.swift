import BridgetDTOs
import Foundation

/// Learns, for every ordered pair of bridges (A, B), how often a fresh opening of A is followed by one of B beyond
/// chance, and the lag's distribution (`FollowDTO`): what a vessel passing a waterway's bridges in order leaves in
/// the history, found without being told which bridges share a waterway.
///
/// A's opening is *fresh* for B when B did not open about the pair's travel time before it (a vessel that came from
/// B is going away from it). Chance is measured against B's openings moved by one and two weeks either way: that keeps
/// B's time of week and season and breaks any real link. A pair is kept when it is significant (z ≥ 4 against
/// chance, at least 10 followers) and brings at least 3% of A's fresh openings.
public struct FollowLearner: Sendable {
    public let maxLagMinutes: Int

    public init(maxLagMinutes: Int = 60) {
        self.maxLagMinutes = max(maxLagMinutes, 1)
    }

    /// What is learnt of one bridge: its followers, strongest first.
    public struct Learnt: Sendable, Equatable {
        public let followers: [FollowDTO]
    }

    /// Each bridge's followers (keyed by the bridge followed into), from every bridge's opening starts (the source's
    /// wall clock, minutes since 1970), sorted.
    public func learn(startMinutes: [String: [Int32]]) -> [String: Learnt] {
        let ids = startMinutes.keys.sorted()
        // First every pair on its own (keeping only the pairs: a pair's fresh openings are found again when it is
        // split, so at most one such list is held at a time), then each pair split by what its source's own
        // upstream did.
        var pairs: [String: [String: FollowDTO]] = [:]
        for to in ids {
            let target = startMinutes[to] ?? []
            guard !target.isEmpty else { continue }
            for from in ids {
                if let (follow, _) = pair(from: from, startMinutes[from] ?? [], to: target, isSelf: from == to) {
                    pairs[to, default: [:]][from] = follow
                }
            }
        }
        var result: [String: Learnt] = [:]
        for (to, sources) in pairs {
            let target = startMinutes[to] ?? []
            let followers = sources.map { from, follow -> FollowDTO in
                guard from != to, let window = follow.freshWindow else { return follow }
                let upstream = (pairs[from] ?? [:]).keys.filter { $0 != from && $0 != to }.sorted()
                let fresh = Self.fresh(startMinutes[from] ?? [], against: target,
                                       window: Int32(window.lowerBound)...Int32(window.upperBound))
                let parted = split(follow, fresh: fresh, to: target, upstream: upstream.compactMap { startMinutes[$0] })
                return parted.with(upstreamIDs: upstream, shareAfterUpstream: parted.shareAfterUpstream,
                                   shareFirst: parted.shareFirst)
            }
            result[to] = Learnt(followers: followers.sorted { ($0.share, $0.fromBridgeID) > ($1.share, $1.fromBridgeID) })
        }
        return result
    }

    /// The openings of `source` with none of `target` in `window` minutes before them.
    static func fresh(_ source: [Int32], against target: [Int32], window: ClosedRange<Int32>) -> [Int32] {
        var fresh: [Int32] = []
        fresh.reserveCapacity(source.count)
        var cursor = 0
        for start in source {
            while cursor < target.count && target[cursor] < start - window.upperBound { cursor += 1 }
            if !(cursor < target.count && target[cursor] <= start - window.lowerBound) { fresh.append(start) }
        }
        return fresh
    }

    /// `follow` with its share measured apart on the fresh openings that followed an upstream opening within the
    /// lag and on those that did not (each subset needs 10 openings, or its share stays `nil`).
    func split(_ follow: FollowDTO, fresh: [Int32], to target: [Int32], upstream: [[Int32]]) -> FollowDTO {
        guard !upstream.isEmpty else { return follow }
        let lag = Int32(maxLagMinutes)
        let merged = upstream.flatMap { $0 }.sorted()
        var through: [Int32] = []
        var first: [Int32] = []
        var cursor = 0
        for start in fresh {
            while cursor < merged.count && merged[cursor] < start - lag { cursor += 1 }
            if cursor < merged.count && merged[cursor] < start { through.append(start) } else { first.append(start) }
        }
        func share(_ subset: [Int32]) -> Double? {
            guard subset.count >= 10 else { return nil }
            let (followed, _, _) = Self.follow(subset, target, shift: 0, lag: lag)
            var chance = 0.0
            var shifts = 0
            for weeks: Int32 in [-2, -1, 1, 2] {
                let (found, _, covered) = Self.follow(subset, target, shift: weeks * 10_080, lag: lag)
                guard covered > 0 else { continue }
                chance += Double(found) / Double(covered)
                shifts += 1
            }
            guard shifts > 0 else { return nil }
            chance /= Double(shifts)
            let observed = Double(followed) / Double(subset.count)
            return chance < 1 ? min(1, max(0, (observed - chance) / (1 - chance))) : nil
        }
        return follow.with(upstreamIDs: follow.upstreamIDs, shareAfterUpstream: share(through), shareFirst: share(first))
    }

    /// The pair (from → to), or `nil` when it is not beyond chance.
    func pair(from: String, _ source: [Int32], to target: [Int32], isSelf: Bool = false) -> (FollowDTO, [Int32])? {
        guard !isSelf else { return pair(from: from, source, to: target, freshWindow: nil) }
        // First with every opening of `to` in the lag before counting against freshness, then with those at the
        // pair's own travel time only (a vessel takes about as long either way): on a busy bridge an unrelated
        // opening within the hour is common and would hide most of the pair.
        guard let (first, _) = pair(from: from, source, to: target, freshWindow: 1...Int32(maxLagMinutes)) else {
            return nil
        }
        let range = first.lagRange
        let window = Int32(max(range.lowerBound - 3, 1))...Int32(range.upperBound + 3)
        return pair(from: from, source, to: target, freshWindow: window)
    }

    /// The pair with freshness judged over `freshWindow` (minutes before the other bridge's opening; `nil`: every
    /// opening is fresh).
    func pair(from: String, _ source: [Int32], to target: [Int32], freshWindow: ClosedRange<Int32>?)
        -> (FollowDTO, [Int32])?
    {
        let lag = Int32(maxLagMinutes)
        let fresh = freshWindow.map { Self.fresh(source, against: target, window: $0) } ?? source
        guard fresh.count >= 10 else { return nil }
        let (followed, lags, _) = Self.follow(fresh, target, shift: 0, lag: lag)
        var chanceRate = 0.0
        var chanceLags = [Double](repeating: 0, count: maxLagMinutes)
        var shifts = 0
        for weeks: Int32 in [-2, -1, 1, 2] {
            let shift = weeks * 10_080
            let (found, shiftedLags, covered) = Self.follow(fresh, target, shift: shift, lag: lag)
            guard covered > 0 else { continue }
            shifts += 1
            chanceRate += Double(found) / Double(covered)
            for index in chanceLags.indices { chanceLags[index] += Double(shiftedLags[index]) / Double(covered) }
        }
        guard shifts > 0 else { return nil }
        chanceRate /= Double(shifts)
        let freshCount = Double(fresh.count)
        let expected = chanceRate * freshCount
        let z = (Double(followed) - expected) / max((expected * (1 - chanceRate)).squareRoot(), 1)
        let observedRate = Double(followed) / freshCount
        let share = chanceRate < 1 ? max(0, (observedRate - chanceRate) / (1 - chanceRate)) : 0
        guard followed >= 10, z >= 4, share >= 0.03 else { return nil }
        // The brought openings' lags: the observed lags less chance's, lightly smoothed (a 3-minute window).
        var excess = (0..<maxLagMinutes).map { max(0, Double(lags[$0]) / freshCount - chanceLags[$0] / Double(shifts)) }
        excess = excess.indices.map { index in
            let window = excess[max(0, index - 1)...min(excess.count - 1, index + 1)]
            return window.reduce(0, +) / Double(window.count)
        }
        let total = excess.reduce(0, +)
        guard total > 0 else { return nil }
        return (FollowDTO(fromBridgeID: from, maxLagMinutes: maxLagMinutes, freshOpenings: fresh.count,
                          followed: followed, expectedByChance: expected, share: min(share, 1),
                          lagWeights: excess.map { $0 / total },
                          freshWindow: freshWindow.map { Int($0.lowerBound)...Int($0.upperBound) }), fresh)
    }

    /// How many of `source` an opening of `target` (moved by `shift`) follows within `lag` minutes, the lags'
    /// counts (index = minutes − 1), and how many of `source` the moved target covers.
    static func follow(_ source: [Int32], _ target: [Int32], shift: Int32, lag: Int32) -> (Int, [Int], Int) {
        var lags = [Int](repeating: 0, count: Int(lag))
        guard let first = target.first, let last = target.last else { return (0, lags, 0) }
        var count = 0
        var covered = 0
        var cursor = 0
        for start in source {
            guard start >= first + shift && start <= last + shift else { continue }
            covered += 1
            while cursor < target.count && target[cursor] + shift <= start { cursor += 1 }
            if cursor < target.count {
                let gap = target[cursor] + shift - start
                if gap <= lag {
                    count += 1
                    lags[Int(gap) - 1] += 1
                }
            }
        }
        return (count, lags, covered)
    }

    /// The share of a bridge's slot rate that its followers bring: 1 − (its openings outside the times a follower
    /// is expected, over what its slots expect then). Those times are each fresh opening of a follower's bridge plus
    /// that pair's lag range (a minute wider either way); what the slots expect in them is their rate, minute by
    /// minute, with the season. So a bridge whose openings outside those times come at the slots' rate keeps all of
    /// it (0), and one whose openings all come with vessels seen before keeps little (at most 0.95 is taken).
    public static func broughtShare(of model: OpeningModelDTO, starts own: [Int32], followers: [FollowDTO],
                                    startMinutes: [String: [Int32]]) -> Double {
        guard model.openings > 0, !own.isEmpty else { return 0 }
        // Each follower's bridge's fresh openings, as a stream of intervals [start + lag low − 1, start + lag high + 1]
        // in order of their start; the streams merged as they go (no array of intervals: a million openings would
        // make one of megabytes).
        struct Stream {
            let starts: [Int32]
            let low: Int32
            let high: Int32
            let window: ClosedRange<Int32>?
            var next = 0
            var ownCursor = 0
        }
        var streams = followers.filter { $0.fromBridgeID != model.bridgeID }.compactMap { follow -> Stream? in
            guard let starts = startMinutes[follow.fromBridgeID] else { return nil }
            return Stream(starts: starts, low: Int32(follow.lagRange.lowerBound) - 1,
                          high: Int32(follow.lagRange.upperBound) + 1,
                          window: follow.freshWindow.map { Int32($0.lowerBound)...Int32($0.upperBound) })
        }
        guard !streams.isEmpty else { return 0 }
        /// The next fresh interval of stream `index`, advancing it; `nil` at its end.
        func pop(_ index: Int) -> (Int32, Int32)? {
            while streams[index].next < streams[index].starts.count {
                let start = streams[index].starts[streams[index].next]
                streams[index].next += 1
                if let window = streams[index].window {
                    var cursor = streams[index].ownCursor
                    while cursor < own.count && own[cursor] < start - window.upperBound { cursor += 1 }
                    streams[index].ownCursor = cursor
                    if cursor < own.count && own[cursor] <= start - window.lowerBound { continue }
                }
                return (start + streams[index].low, start + streams[index].high)
            }
            return nil
        }
        var heads = streams.indices.map { pop($0) }
        let rates = model.slots.map { -log(max(1 - $0.startProbability, 1e-12)) / Double(OpeningModelDTO.slotMinutes) }
        var inside = 0
        var ownCursor = 0
        var expectedInside = 0.0
        /// Counts the own openings in a merged interval and adds what the slots expect in it.
        func close(_ from: Int32, _ to: Int32) {
            while ownCursor < own.count && own[ownCursor] < from { ownCursor += 1 }
            while ownCursor < own.count && own[ownCursor] <= to {
                inside += 1
                ownCursor += 1
            }
            let (_, month, _) = CivilCalendar.civilFromDays(Int(from.floorDivided(by: 1_440)))
            let season = model.monthFactors[month - 1]
            var minute = Int64(from)
            while minute <= Int64(to) {
                let dayNumber = minute.floorDivided(by: 1_440)
                let weekday = Int((dayNumber + 3).floorModulo(7))
                expectedInside += rates[weekday * 96 + Int(minute - dayNumber * 1_440) / OpeningModelDTO.slotMinutes]
                    * season
                minute += 1
            }
        }
        var current: (Int32, Int32)?
        while let index = heads.indices.filter({ heads[$0] != nil }).min(by: { heads[$0]!.0 < heads[$1]!.0 }) {
            let interval = heads[index]!
            heads[index] = pop(index)
            if let open = current, interval.0 <= open.1 {
                current = (open.0, max(open.1, interval.1))
            } else {
                if let open = current { close(open.0, open.1) }
                current = interval
            }
        }
        if let open = current { close(open.0, open.1) }
        let expectedOutside = Double(model.openings) - expectedInside
        guard expectedOutside > 0 else { return 0.95 }
        let keeps = Double(own.count - inside) / expectedOutside
        return min(0.95, max(0, 1 - keeps))
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
