import Foundation

/// A Socrata floating timestamp: a wall-clock reading with no zone, such as `2026-09-23T22:35:00.000`.
///
/// Parsing is strict (`YYYY-MM-DDTHH:MM:SS` with optional `.fff`) and allocation-free, because every row of every
/// sync goes through it.
public struct FloatingTimestamp: Sendable, Equatable, Hashable, Comparable, CustomStringConvertible {
    /// The fields in one word, most significant first (year + 2^19 in 20 bits, month 4, day 5, hour 5, minute 6,
    /// second 6, millisecond 10), so that comparing readings is comparing words: a record carries two readings
    /// through every stage of a sync, and seven words each were a visible share of what it copied.
    private let packed: UInt64
    private static let yearOffset = 1 << 19

    public var year: Int { Int(packed >> 36) - Self.yearOffset }
    public var month: Int { Int(packed >> 32 & 0xF) }
    public var day: Int { Int(packed >> 27 & 0x1F) }
    public var hour: Int { Int(packed >> 22 & 0x1F) }
    public var minute: Int { Int(packed >> 16 & 0x3F) }
    public var second: Int { Int(packed >> 10 & 0x3F) }
    public var millisecond: Int { Int(packed & 0x3FF) }

    private init(packing year: Int, _ month: Int, _ day: Int, _ hour: Int, _ minute: Int, _ second: Int,
                 _ millisecond: Int) {
        packed = UInt64(year + Self.yearOffset) << 36 | UInt64(month) << 32 | UInt64(day) << 27 | UInt64(hour) << 22
            | UInt64(minute) << 16 | UInt64(second) << 10 | UInt64(millisecond)
    }

    /// Creates a wall-clock reading; returns `nil` when a field is out of its calendar range.
    public init?(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int = 0, millisecond: Int = 0) {
        guard (1...9999).contains(year), (1...12).contains(month),
              (1...CivilCalendar.daysInMonth(year: year, month: month)).contains(day),
              (0...23).contains(hour), (0...59).contains(minute), (0...59).contains(second),
              (0...999).contains(millisecond)
        else { return nil }
        self.init(packing: year, month, day, hour, minute, second, millisecond)
    }

    /// Parses `YYYY-MM-DDTHH:MM:SS[.fff]`; returns `nil` for anything else, including a zone suffix.
    public init?(_ text: String) {
        var text = text
        // Parsed in place from the string's UTF-8 storage: no allocation, as every stored row goes through here.
        guard let reading = text.withUTF8({ Self(utf8: $0) }) else { return nil }
        self = reading
    }

    /// Parses the same form from UTF-8 bytes.
    public init?(utf8: UnsafeBufferPointer<UInt8>) {
        guard let fields = Self.fields(utf8) else { return nil }
        self.init(year: fields.0, month: fields.1, day: fields.2, hour: fields.3, minute: fields.4, second: fields.5,
                  millisecond: fields.6)
    }

    private static func fields(_ utf8: UnsafeBufferPointer<UInt8>) -> (Int, Int, Int, Int, Int, Int, Int)? {
        guard utf8.count == 19 || utf8.count == 23,
              utf8[4] == UInt8(ascii: "-"), utf8[7] == UInt8(ascii: "-"), utf8[10] == UInt8(ascii: "T"),
              utf8[13] == UInt8(ascii: ":"), utf8[16] == UInt8(ascii: ":"),
              let year = number(utf8, 0, 4), let month = number(utf8, 5, 2), let day = number(utf8, 8, 2),
              let hour = number(utf8, 11, 2), let minute = number(utf8, 14, 2), let second = number(utf8, 17, 2)
        else { return nil }
        var millisecond = 0
        if utf8.count == 23 {
            guard utf8[19] == UInt8(ascii: "."), let value = number(utf8, 20, 3) else { return nil }
            millisecond = value
        }
        return (year, month, day, hour, minute, second, millisecond)
    }

    private static func number(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ length: Int) -> Int? {
        var value = 0
        for index in start..<(start + length) {
            let digit = bytes[index] &- UInt8(ascii: "0") // wraps below '0', so one comparison checks both ends
            guard digit < 10 else { return nil }
            value = value &* 10 &+ Int(digit) // at most 4 digits
        }
        return value
    }

    /// Seconds since 1970-01-01T00:00:00 if this reading were UTC (the "wall-clock epoch").
    public var wallClockSeconds: Int64 {
        let days = Int64(CivilCalendar.daysFromCivil(year: year, month: month, day: day))
        return days * 86_400 + Int64(hour * 3600 + minute * 60 + second)
    }

    /// The reading for wall-clock epoch seconds (inverse of `wallClockSeconds`, milliseconds dropped).
    public init(wallClockSeconds: Int64) {
        let days = Int(wallClockSeconds.floorDiv(86_400))
        let secondsOfDay = Int(wallClockSeconds - Int64(days) * 86_400)
        let (year, month, day) = CivilCalendar.civilFromDays(days)
        // A year beyond ±524,287 (an instant far outside any record) is clamped into the field's range.
        self.init(packing: min(max(year, 1 - Self.yearOffset), Self.yearOffset - 1), month, day, secondsOfDay / 3600, secondsOfDay % 3600 / 60,
                  secondsOfDay % 60, 0)
    }

    /// Day of week, 1 = Sunday … 7 = Saturday (the convention of Foundation's `Calendar`).
    public var weekday: Int {
        let days = CivilCalendar.daysFromCivil(year: year, month: month, day: day)
        // 1970-01-01 was a Thursday (weekday 5).
        return (days + 4).floorMod(7) + 1
    }

    /// Weekday with Monday = 0 … Sunday = 6.
    public var mondayFirstWeekday: Int { (weekday + 5) % 7 }

    /// The day number (days since 1970-01-01) of this reading's date.
    public var dayNumber: Int { CivilCalendar.daysFromCivil(year: year, month: month, day: day) }

    /// The Socrata form, `YYYY-MM-DDTHH:MM:SS.fff`.
    public var description: String { text(length: 23) }

    /// The one local form of Bridget's output (outside Socrata's own rows): ISO 8601 local date and time to the
    /// second, no zone, `2026-10-01T06:38:00`.
    public var localText: String { text(length: 19) }

    /// The date part, `YYYY-MM-DD`.
    public var dateString: String { text(length: 10) }

    /// The first `length` characters of `YYYY-MM-DDTHH:MM:SS.mmm`, written digit by digit (every answer that lists
    /// openings writes two of these an opening).
    private func text(length: Int) -> String {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 23) { buffer in
            func put(_ value: Int, _ width: Int, at start: Int) {
                var rest = max(value, 0)
                for index in stride(from: start + width - 1, through: start, by: -1) {
                    buffer[index] = UInt8(ascii: "0") + UInt8(rest % 10)
                    rest /= 10
                }
            }
            put(year, 4, at: 0)
            buffer[4] = UInt8(ascii: "-")
            put(month, 2, at: 5)
            buffer[7] = UInt8(ascii: "-")
            put(day, 2, at: 8)
            buffer[10] = UInt8(ascii: "T")
            put(hour, 2, at: 11)
            buffer[13] = UInt8(ascii: ":")
            put(minute, 2, at: 14)
            buffer[16] = UInt8(ascii: ":")
            put(second, 2, at: 17)
            buffer[19] = UInt8(ascii: ".")
            put(millisecond, 3, at: 20)
            return String(decoding: UnsafeBufferPointer(rebasing: buffer[0..<length]), as: UTF8.self)
        }
    }

    public static func < (lhs: FloatingTimestamp, rhs: FloatingTimestamp) -> Bool { lhs.packed < rhs.packed }
}

/// Proleptic Gregorian calendar arithmetic on day numbers (days since 1970-01-01), free of time zones.
public enum CivilCalendar {
    /// Days since 1970-01-01 for a civil date.
    public static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The civil date of a day number.
    public static func civilFromDays(_ days: Int) -> (year: Int, month: Int, day: Int) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthPrime = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthPrime + 2) / 5 + 1
        let month = monthPrime < 10 ? monthPrime + 3 : monthPrime - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// Days in a month of a year.
    public static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}

extension BinaryInteger {
    func floorDiv(_ divisor: Self) -> Self {
        let quotient = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }

    func floorMod(_ divisor: Self) -> Self { self - floorDiv(divisor) * divisor }
}
