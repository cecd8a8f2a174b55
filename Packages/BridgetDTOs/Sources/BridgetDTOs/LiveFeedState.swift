import Foundation

/// What a live state feed was last seen to say, kept in the store so that a restart (or another host taking over the
/// polling) goes on from it: no opening lost, none opened twice.
public struct LiveFeedState: Sendable, Codable, Equatable {
    /// Where a bridge was last seen.
    public enum Position: String, Sendable, Codable, CaseIterable {
        /// Raised: open to boats, closed to road traffic.
        case raised
        /// Lowered: open to road traffic.
        case lowered
        /// Not known: the feed has not named the bridge for a while (or never), or named it with a status no one knows.
        case unknown
    }

    /// One bridge as last seen.
    public struct Bridge: Sendable, Codable, Equatable {
        /// Where it is.
        public var position: Position
        /// The first poll that saw it there.
        public var since: Date
        /// The last poll that named it with a known status.
        public var lastSeenAt: Date
        /// While raised: the opening instant of its live opening in the store (`nil`: none open, e.g. one closed as
        /// "end unknown" while the feed still says raised).
        public var openingAt: Date?
        /// While raised: the poll before the one that saw it raised (the opening's `openedAfter`).
        public var openedAfter: Date?
        /// When its opening was closed as "end unknown" for lasting too long (a stuck sensor): from then until it is
        /// read lowered, a reading of raised (after any absence) opens nothing.
        public var stuckSince: Date?

        /// Creates a bridge's state.
        public init(position: Position, since: Date, lastSeenAt: Date, openingAt: Date? = nil, openedAfter: Date? = nil,
                    stuckSince: Date? = nil) {
            self.position = position
            self.since = since
            self.lastSeenAt = lastSeenAt
            self.openingAt = openingAt
            self.openedAfter = openedAfter
            self.stuckSince = stuckSince
        }
    }

    /// The feed polled (a URL or a file), so a state kept for another feed is not taken for this one's.
    public var source: String
    /// The last poll, good or not.
    public var lastPollAt: Date?
    /// The last poll whose answer was read (`status`'s `asOf` for the live state).
    public var lastGoodPollAt: Date?
    /// When the answer last differed from the one before (a feed that gives the same answer for hours is named).
    public var answerChangedAt: Date?
    /// A digest of the last good answer's positions.
    public var answerDigest: String?
    /// The last poll's outcome when it was not good (`nil` after a good one), e.g. `http-503`, `html-page`.
    public var lastProblem: String?
    /// How many polls in a row ended with `lastProblem` (a repeated failure is logged when it starts and ends).
    public var problemPolls: Int?
    /// The kinds of note the last good answer gave (`unknown-bridge`, `single-encoded`, …), sorted: a kind is
    /// logged when it appears and when it goes, not every poll.
    public var noteKinds: [String]?
    /// Each bridge of the catalog the feed has named, by id.
    public var bridges: [String: Bridge]

    /// An empty state for `source`.
    public init(source: String, lastPollAt: Date? = nil, lastGoodPollAt: Date? = nil, answerChangedAt: Date? = nil,
                answerDigest: String? = nil, lastProblem: String? = nil, bridges: [String: Bridge] = [:]) {
        self.source = source
        self.lastPollAt = lastPollAt
        self.lastGoodPollAt = lastGoodPollAt
        self.answerChangedAt = answerChangedAt
        self.answerDigest = answerDigest
        self.lastProblem = lastProblem
        self.bridges = bridges
    }
}

/// Who polls a store's live state feed: one process at a time holds the lease, renewing it with each poll.
public struct LiveFeedLease: Sendable, Codable, Equatable {
    /// The process holding it (`host:pid`).
    public let holder: String
    /// When it runs out unless renewed.
    public let until: Date

    /// Creates a lease.
    public init(holder: String, until: Date) {
        self.holder = holder
        self.until = until
    }
}
