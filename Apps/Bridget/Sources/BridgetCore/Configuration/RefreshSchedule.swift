import BridgetDTOs
import Foundation

/// When the refresher syncs: at local times of day in the provider's zone (`refresh.times`), or every so many
/// minutes (`refresh.every`).
///
/// Local times follow the zone's clock across daylight-saving changes: 05:30 is 13:30 UTC in Seattle's winter and
/// 12:30 UTC in its summer. A time the clocks skip (02:30 on the spring-forward day) runs when the clocks would have
/// shown it with the offset before the change (03:30 daylight time), and a time the clocks repeat (01:30 on the
/// fall-back day) runs once, at its first occurrence: the rule `LocalClock` applies to opening times.
package struct RefreshSchedule: Sendable, Equatable {
    package enum Rule: Sendable, Equatable {
        /// Minutes after local midnight, sorted.
        case times([Int])
        /// Seconds between syncs.
        case every(TimeInterval)
    }

    package let rule: Rule
    package let clock: LocalClock

    package init(rule: Rule, clock: LocalClock) {
        self.rule = rule
        self.clock = clock
    }

    /// The schedule `refresh.times` or `refresh.every` configures.
    package init(_ settings: BridgetConfiguration.RefreshSettings, clock: LocalClock) {
        if let minutes = settings.everyMinutes {
            rule = .every(TimeInterval(minutes) * 60)
        } else {
            rule = .times(settings.times.compactMap { text in TimeGrammar.timeOfDay(text).map { $0.0 * 60 + $0.1 } }.sorted())
        }
        self.clock = clock
    }

    package static func == (lhs: Self, rhs: Self) -> Bool { lhs.rule == rhs.rule && lhs.clock.zone == rhs.clock.zone }

    /// The first scheduled instant strictly after `instant` (jitter not included).
    package func next(after instant: Date) -> Date {
        switch rule {
        case .every(let seconds):
            return instant.addingTimeInterval(max(seconds, 1))
        case .times(let minutes):
            guard !minutes.isEmpty else { return instant.addingTimeInterval(86_400) }
            let today = clock.reading(for: instant).dayNumber
            for day in (today - 1)...(today + 2) {
                for minute in minutes {
                    let when = self.instant(day: day, minute: minute)
                    if when > instant { return when }
                }
            }
            return instant.addingTimeInterval(86_400) // unreachable: a day holds every time
        }
    }

    /// Whether a sync is due now: none ever succeeded, or a scheduled time passed since the last that did (the
    /// refresher was not running then), so a restarted server catches up at once instead of serving stale data.
    package func isOverdue(lastSuccess: Date?, now: Date) -> Bool {
        guard let lastSuccess else { return true }
        return next(after: lastSuccess) <= now
    }

    /// The instant of `minute` after midnight on local day `day`, by the rule above.
    private func instant(day: Int, minute: Int) -> Date {
        let reading = FloatingTimestamp(wallClockSeconds: Int64(day) * 86_400 + Int64(minute) * 60)
        return clock.openingInstant(for: reading)
    }

    /// `at 05:30 and 17:30 (America/Los_Angeles)` or `every 30 min`, for logs and `/v1/status`.
    package var description: String {
        switch rule {
        case .every(let seconds):
            let minutes = Int(seconds / 60)
            return minutes % 60 == 0 ? "every \(minutes / 60) h" : "every \(minutes) min"
        case .times(let minutes):
            let shown = minutes.map { String(format: "%02d:%02d", $0 / 60, $0 % 60) }
            let listed = shown.count > 1 ? shown.dropLast().joined(separator: ", ") + " and " + shown.last! // count > 1
                : shown.joined()
            return "at \(listed) (\(clock.zone.identifier))"
        }
    }
}

/// How long to wait after failed syncs: `initial`, doubling with each failure in a row, never more than `maximum`.
package struct RefreshBackoff: Sendable, Equatable {
    package var initial: TimeInterval
    package var maximum: TimeInterval

    package init(initial: TimeInterval, maximum: TimeInterval) {
        self.initial = initial
        self.maximum = maximum
    }

    /// The wait after the `failures`-th failure in a row (1 for the first).
    package func delay(afterFailures failures: Int) -> TimeInterval {
        guard failures > 0 else { return 0 }
        let doubled = initial * pow(2, Double(min(failures - 1, 40)))
        return min(doubled, maximum)
    }
}
