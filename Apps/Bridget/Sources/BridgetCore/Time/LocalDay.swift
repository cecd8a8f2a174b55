import BridgetDTOs
import Foundation

/// A Seattle local calendar day, as a day number (days since 1970-01-01).
package struct LocalDay: Sendable, Equatable, Comparable, CustomStringConvertible {
    package let number: Int

    package init(number: Int) { self.number = number }

    /// Parses `YYYY-MM-DD`.
    package init?(_ text: String) {
        guard let reading = FloatingTimestamp(text + "T00:00:00.000") else { return nil }
        number = CivilCalendar.daysFromCivil(year: reading.year, month: reading.month, day: reading.day)
    }

    /// The Seattle day of an instant.
    package init(containing instant: Date, time: LocalClock = .seattle) {
        let reading = time.reading(for: instant)
        number = CivilCalendar.daysFromCivil(year: reading.year, month: reading.month, day: reading.day)
    }

    /// The wall-clock reading of this day's midnight.
    package var midnight: FloatingTimestamp { FloatingTimestamp(wallClockSeconds: Int64(number) * 86_400) }

    package var description: String { midnight.dateString }

    /// The weekdays' names, Monday first.
    package static let weekdayNames = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]

    /// Its weekday, Monday 0 to Sunday 6.
    package var weekday: Int { midnight.mondayFirstWeekday }

    /// "Monday 2026-11-30 (tomorrow)": the day with its weekday, and "today" or "tomorrow" when it is, seen from
    /// `today`.
    package func words(from today: LocalDay) -> String {
        let relative = self == today ? " (today)" : number == today.number + 1 ? " (tomorrow)" : ""
        return "\(Self.weekdayNames[weekday]) \(description)\(relative)"
    }

    package static func < (lhs: LocalDay, rhs: LocalDay) -> Bool { lhs.number < rhs.number }
}
