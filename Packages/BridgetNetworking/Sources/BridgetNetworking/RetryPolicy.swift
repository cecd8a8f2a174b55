import Foundation

/// How often and how patiently a request is retried: exponential backoff with jitter and a cap.
public struct RetryPolicy: Sendable, Equatable {
    /// Attempts in all, the first included (at least 1).
    public let maxAttempts: Int
    /// Delay before the second attempt, in seconds; doubles each time.
    public let baseDelay: TimeInterval
    /// No wait is longer than this, `Retry-After` included.
    public let maxDelay: TimeInterval
    /// Share of each delay that is random (0 … 1), so many clients do not retry in step.
    public let jitter: Double

    /// Attempts in all for a host name that does not resolve, whatever `maxAttempts` says: a name the resolver does
    /// not know is not a busy server, so one quick retry (a resolver's hiccup mends at once) and no backoff.
    public static let unresolvedHostAttempts = 2

    /// Creates a policy.
    public init(maxAttempts: Int = 5, baseDelay: TimeInterval = 1, maxDelay: TimeInterval = 30, jitter: Double = 0.5) {
        self.maxAttempts = max(1, maxAttempts)
        self.baseDelay = max(0, baseDelay)
        self.maxDelay = max(0, maxDelay)
        self.jitter = min(max(jitter, 0), 1)
    }

    /// Seconds to wait after failed attempt `attempt` (1-based). A server's `Retry-After` wins over backoff, capped
    /// at `maxDelay`; `random` is a uniform draw in [0, 1).
    public func delay(afterAttempt attempt: Int, retryAfter: TimeInterval?, random: Double) -> TimeInterval {
        if let retryAfter { return min(max(retryAfter, 0), maxDelay) }
        let exponential = baseDelay * pow(2, Double(max(attempt, 1) - 1))
        let capped = min(exponential, maxDelay)
        return capped * (1 - jitter) + capped * jitter * random
    }
}
