/// One bridge's minutes over a forecast's span: how many let vessels through up to each, and where each count is
/// reached (worked out by arithmetic when every minute of the span does).
package struct Timeline {
    package let first: Int64
    package let counts: [Int32]
    /// The minute index at which each count (1, 2, …) is first reached.
    package let reaching: [Int32]
    /// Whether every minute lets vessels through (no arrays kept).
    package let open: Bool
    private let length: Int
    /// The span's last minute.
    package var last: Int64 { first + Int64(length) - 1 }

    package init(_ prefix: (counts: [Int32], passes: [Bool]), first: Int64, last: Int64) {
        self.first = first
        length = Int(max(last - first + 1, 0))
        open = prefix.counts.isEmpty
        counts = prefix.counts
        var reaching: [Int32] = []
        if !open {
            reaching.reserveCapacity(Int(prefix.counts.last ?? 0))
            let passes = prefix.passes
            for index in passes.indices where passes[index] { reaching.append(Int32(index)) }
        }
        self.reaching = reaching
    }

    /// Passable minutes in `(first − 1, minute]`.
    package func count(at minute: Int64) -> Int32 {
        let index = Int(minute - first)
        if index < 0 || length == 0 { return 0 }
        if open { return Int32(min(index, length - 1) + 1) }
        return counts[min(index, counts.count - 1)]
    }

    /// Passable minutes in `(from, to]`.
    package func passable(from: Int64, to: Int64) -> Int { Int(max(count(at: to) - count(at: from), 0)) }

    /// The minute at which the count reaches `count`, if within the span.
    package func minute(reachingCount count: Int32) -> Int64? {
        if open { return count >= 1 && Int(count) <= length ? first + Int64(count) - 1 : nil }
        guard count >= 1, Int(count) <= reaching.count else { return nil }
        return first + Int64(reaching[Int(count) - 1])
    }
}
