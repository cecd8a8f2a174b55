import BridgetDTOs
import Foundation

/// When each bridge lets vessels through: every minute but those of its curfew (on the weekdays it holds, not on a
/// federal holiday that lifts it) and of a dated deviation that keeps it closed. A vessel's lag to a bridge is
/// counted in these minutes, so a follower the curfew holds is late, not missing.
///
/// Minutes are the source's wall clock, minutes since 1970 (`FloatingTimestamp.wallClockSeconds / 60`).
public struct PassageClock: Sendable {
    public let rules: RuleCalendar?
    /// Per bridge: the curfew's weekdays (Monday = 0) and windows, and the deviations' spans in minutes.
    private let curfews: [String: (weekdays: Set<Int>, windows: [(Int64, Int64)])]
    /// Each bridge's deviations by start, and the longest of them: a span is found by a binary search.
    private let closures: [String: [(Int64, Int64)]]
    private let longestClosure: [String: Int64]

    public init(rules: RuleCalendar?) {
        self.rules = rules
        var curfews: [String: (weekdays: Set<Int>, windows: [(Int64, Int64)])] = [:]
        var closures: [String: [(Int64, Int64)]] = [:]
        for rule in rules?.curfews ?? [] {
            for bridge in rule.bridgeIDs where curfews[bridge] == nil {
                curfews[bridge] = (Set(rule.weekdays.map { $0 - 1 }),
                                   rule.windows.map { (Int64($0.fromMinute), Int64($0.untilMinute)) })
            }
        }
        for deviation in rules?.deviations ?? [] {
            guard let from = deviation.fromReading, let until = deviation.untilReading else { continue }
            for bridge in deviation.bridgeIDs {
                closures[bridge, default: []].append((from.wallClockSeconds.floorDivided(by: 60),
                                                      until.wallClockSeconds.floorDivided(by: 60)))
            }
        }
        self.curfews = curfews
        self.closures = closures.mapValues { $0.sorted { $0.0 < $1.0 } }
        longestClosure = closures.mapValues { spans in spans.map { $0.1 - $0.0 }.max() ?? 0 }
    }

    /// Whether `bridgeID` lets vessels through in minute `minute`.
    public func passes(_ bridgeID: String, minute: Int64) -> Bool {
        heldMinutes(bridgeID, from: minute - 1, to: minute) == 0
    }

    /// Whether `bridgeID` has any minute that holds vessels (a curfew or a deviation).
    public func holds(_ bridgeID: String) -> Bool { curfews[bridgeID] != nil || closures[bridgeID] != nil }

    /// The minutes in `(from, to]` in which `bridgeID` holds vessels.
    public func heldMinutes(_ bridgeID: String, from: Int64, to: Int64) -> Int64 {
        guard to > from else { return 0 }
        return bridge(bridgeID).heldMinutes(from: from, to: to)
    }

    /// One bridge's clock, its rules looked up once: a caller that asks one bridge many times keeps it.
    func bridge(_ bridgeID: String) -> Bridge {
        Bridge(id: bridgeID, rules: rules, curfew: curfews[bridgeID], closures: closures[bridgeID] ?? [],
               longestClosure: longestClosure[bridgeID] ?? 0)
    }

    /// `PassageClock` for one bridge.
    struct Bridge {
        let id: String
        let rules: RuleCalendar?
        let curfew: (weekdays: Set<Int>, windows: [(Int64, Int64)])?
        let closures: [(Int64, Int64)]
        let longestClosure: Int64

        /// Whether any minute holds vessels.
        var holds: Bool { curfew != nil || !closures.isEmpty }

        /// The minutes in `(from, to]` that let vessels through.
        func passableMinutes(from: Int64, to: Int64) -> Int64 {
            to > from ? to - from - heldMinutes(from: from, to: to) : 0
        }

        /// The minutes in `(from, to]` that hold vessels.
        func heldMinutes(from: Int64, to: Int64) -> Int64 {
            guard to > from else { return 0 }
            var held: Int64 = 0
            if let curfew {
                let firstDay = (from + 1).floorDivided(by: 1_440)
                let lastDay = to.floorDivided(by: 1_440)
                var day = firstDay
                while day <= lastDay {
                    let weekday = Int((day + 3).floorModulo(7))
                    if curfew.weekdays.contains(weekday) {
                        var overlap: Int64 = 0
                        for (start, end) in curfew.windows {
                            // Minutes [day·1440 + start, day·1440 + end) against (from, to] = [from + 1, to + 1).
                            let low = max(day * 1_440 + start, from + 1)
                            let high = min(day * 1_440 + end, to + 1)
                            if high > low { overlap += high - low }
                        }
                        // The holiday table is asked only where the curfew's hours are met.
                        if overlap > 0, rules?.liftedCurfew(id, onDay: Int(day)) == nil { held += overlap }
                    }
                    day += 1
                }
            }
            if !closures.isEmpty {
                var low = 0
                var high = closures.count
                while low < high {
                    let middle = (low + high) / 2
                    if closures[middle].0 < from + 1 - longestClosure { low = middle + 1 } else { high = middle }
                }
                var index = low
                while index < closures.count && closures[index].0 <= to {
                    let (start, end) = closures[index]
                    let overlapLow = max(start, from + 1)
                    let overlapHigh = min(end, to + 1)
                    if overlapHigh > overlapLow { held += overlapHigh - overlapLow }
                    index += 1
                }
            }
            return min(held, to - from)
        }
    }

    /// The minutes in `(from, to]` in which `bridgeID` lets vessels through.
    public func passableMinutes(_ bridgeID: String, from: Int64, to: Int64) -> Int64 {
        to > from ? to - from - heldMinutes(bridgeID, from: from, to: to) : 0
    }

    /// For minutes `first…last`: how many of `(first − 1, minute]` let vessels through at `bridgeID` (index
    /// `minute − first`), and whether each does; both empty when every minute does (the common case, kept without
    /// arrays). The held spans are laid over the minutes day by day, not asked minute by minute.
    func prefix(_ bridgeID: String, first: Int64, last: Int64) -> (counts: [Int32], passes: [Bool]) {
        let count = Int(max(last - first + 1, 0))
        guard holds(bridgeID), count > 0 else { return ([], []) }
        var passes: [Bool] = []
        func hold(_ start: Int64, _ end: Int64) {
            // Minutes [start, end) held.
            let low = max(start, first)
            let high = min(end, last + 1)
            guard high > low else { return }
            if passes.isEmpty { passes = [Bool](repeating: true, count: count) }
            for minute in low..<high { passes[Int(minute - first)] = false }
        }
        if let curfew = curfews[bridgeID] {
            var day = first.floorDivided(by: 1_440)
            while day <= last.floorDivided(by: 1_440) {
                let weekday = Int((day + 3).floorModulo(7))
                if curfew.weekdays.contains(weekday), curfew.windows.contains(where: {
                    day * 1_440 + $0.0 <= last && day * 1_440 + $0.1 > first
                }), rules?.liftedCurfew(bridgeID, onDay: Int(day)) == nil {
                    for (start, end) in curfew.windows { hold(day * 1_440 + start, day * 1_440 + end) }
                }
                day += 1
            }
        }
        for (start, end) in closures[bridgeID] ?? [] where start <= last && end > first { hold(start, end) }
        guard !passes.isEmpty else { return ([], []) }
        var counts = [Int32](repeating: 0, count: count)
        var running: Int32 = 0
        for index in 0..<count {
            if passes[index] { running += 1 }
            counts[index] = running
        }
        return (counts, passes)
    }
}
