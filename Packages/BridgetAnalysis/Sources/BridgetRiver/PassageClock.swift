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
            guard to > from, holds else { return 0 }
            return heldSpans(first: from + 1, last: to).reduce(0) { held, span in
                held + max(min(span.end, to + 1) - max(span.start, from + 1), 0)
            }
        }

        /// The spans of held minutes (`start..<end`) that meet minutes `first…last`: sorted, a minute held by both
        /// the curfew and a deviation in one span. A span may reach beyond `first…last`.
        func heldSpans(first: Int64, last: Int64) -> [(start: Int64, end: Int64)] {
            guard last >= first else { return [] }
            var spans: [(start: Int64, end: Int64)] = []
            if let curfew {
                var day = first.floorDivided(by: 1_440)
                while day <= last.floorDivided(by: 1_440) {
                    let weekday = Int((day + 3).floorModulo(7))
                    // The holiday table is asked only where the curfew's hours are met.
                    if curfew.weekdays.contains(weekday), curfew.windows.contains(where: {
                        day * 1_440 + $0.0 <= last && day * 1_440 + $0.1 > first
                    }), rules?.liftedCurfew(id, onDay: Int(day)) == nil {
                        for (start, end) in curfew.windows where day * 1_440 + start <= last && day * 1_440 + end > first {
                            spans.append((day * 1_440 + start, day * 1_440 + end))
                        }
                    }
                    day += 1
                }
            }
            if !closures.isEmpty {
                // The first deviation that may reach `first`, by a binary search on starts.
                var index = closures.partitioningIndex { $0.0 >= first - longestClosure }
                while index < closures.count && closures[index].0 <= last {
                    if closures[index].1 > first { spans.append((closures[index].0, closures[index].1)) }
                    index += 1
                }
            }
            guard spans.count > 1 else { return spans }
            spans.sort { $0.start < $1.start }
            var merged: [(start: Int64, end: Int64)] = [spans[0]]
            for span in spans.dropFirst() {
                if span.start <= merged[merged.count - 1].end {
                    merged[merged.count - 1].end = max(merged[merged.count - 1].end, span.end)
                } else {
                    merged.append(span)
                }
            }
            return merged
        }

        /// The held minutes over `first…last` laid out once, for many questions inside it (a learner's walk over a
        /// history): each answer is a binary search.
        func indexed(first: Int64, last: Int64) -> Index {
            Index(bridge: self, first: first, last: last)
        }
    }

    /// One bridge's held minutes over a span of minutes, laid out once: the minutes held before any minute of it by
    /// a binary search, not a walk over its days. Outside the span it asks the bridge.
    struct Index {
        let bridge: Bridge
        let first: Int64
        let last: Int64
        /// The held spans clipped to `first…last`, and the minutes held before each.
        private let starts: [Int64]
        private let ends: [Int64]
        private let before: [Int64]

        init(bridge: Bridge, first: Int64, last: Int64) {
            self.bridge = bridge
            self.first = first
            self.last = last
            let spans = bridge.heldSpans(first: first, last: last)
            starts = spans.map { max($0.start, first) }
            ends = spans.map { min($0.end, last + 1) }
            var before: [Int64] = []
            before.reserveCapacity(spans.count)
            var total: Int64 = 0
            for index in spans.indices {
                before.append(total)
                total += ends[index] - starts[index]
            }
            self.before = before
        }

        /// The held minutes in `first..<minute`, for `minute` in `first…last + 1`.
        private func held(before minute: Int64) -> Int64 {
            // How many spans start before `minute`.
            let low = starts.partitioningIndex { $0 >= minute }
            guard low > 0 else { return 0 }
            return before[low - 1] + min(ends[low - 1], minute) - starts[low - 1]
        }

        /// `minute` on the bridge's passage clock: the passable minutes of `(a, b]` are `clocked(b) − clocked(a)`.
        /// Beyond the span the bridge is asked for the minutes past its ends.
        func clocked(_ minute: Int64) -> Int64 {
            if minute < first - 1 { return clocked(first - 1) - bridge.passableMinutes(from: minute, to: first - 1) }
            if minute > last { return clocked(last) + bridge.passableMinutes(from: last, to: minute) }
            return minute - held(before: minute + 1)
        }

        /// The minutes in `(from, to]` that let vessels through.
        func passableMinutes(from: Int64, to: Int64) -> Int64 {
            to > from ? clocked(to) - clocked(from) : 0
        }
    }

    /// The minutes in `(from, to]` in which `bridgeID` lets vessels through.
    public func passableMinutes(_ bridgeID: String, from: Int64, to: Int64) -> Int64 {
        to > from ? to - from - heldMinutes(bridgeID, from: from, to: to) : 0
    }

    /// For minutes `first…last`: how many of `(first − 1, minute]` let vessels through at `bridgeID` (index
    /// `minute − first`), and whether each does; both empty when every minute does (the common case, kept without
    /// arrays). The held spans are laid over the minutes day by day, not asked minute by minute.
    package func prefix(_ bridgeID: String, first: Int64, last: Int64) -> (counts: [Int32], passes: [Bool]) {
        let count = Int(max(last - first + 1, 0))
        guard holds(bridgeID), count > 0 else { return ([], []) }
        let spans = bridge(bridgeID).heldSpans(first: first, last: last)
        guard !spans.isEmpty else { return ([], []) }
        var passes = [Bool](repeating: true, count: count)
        for span in spans {
            for minute in max(span.start, first)..<min(span.end, last + 1) { passes[Int(minute - first)] = false }
        }
        var counts = [Int32](repeating: 0, count: count)
        var running: Int32 = 0
        for index in 0..<count {
            if passes[index] { running += 1 }
            counts[index] = running
        }
        return (counts, passes)
    }
}
