import Foundation

/// How much slower than a plain debug build this test run may be: `TEST_TIME_SCALE` (Scripts/test --tsan sets
/// 8: ThreadSanitizer makes the code several times slower), else 1. The few timeouts that stand for "a server that
/// does not answer" (a client's request timeout against a server that hangs on purpose, a poll's hang detector) are
/// stretched by it, so a test judges what happened, never how fast it happened.
public enum TestTime {
    public static let scale: Double = {
        guard let text = ProcessInfo.processInfo.environment["TEST_TIME_SCALE"], let value = Double(text),
              value.isFinite, value >= 1 else { return 1 }
        return value
    }()

    /// `seconds`, stretched by `scale`.
    public static func seconds(_ seconds: TimeInterval) -> TimeInterval { seconds * scale }

    /// `duration`, stretched by `scale`.
    public static func duration(_ duration: Duration) -> Duration { duration * scale }
}

/// Configuration the tests share.
public enum TestConfig {
    /// The `provider:` section of the sample data the tests read: seed 11, `days` days to `endDate`, a share of
    /// invalid rows (`invalidRate`).
    public static func sampleProvider(days: Int, endDate: String = "2026-06-30", invalidRate: Double = 0.01) -> String {
        """
        provider:
          kind: sample
          sample:
            seed: 11
            days: \(days)
            end_date: \(endDate)
            invalid_rate: \(invalidRate)
        """
    }
}
