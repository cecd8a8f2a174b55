import BridgetDTOs
import Foundation

/// A server's `Retry-After` (RFC 9110 §10.2.3), read as a claim: delay-seconds or an HTTP date, checked and bounded.
public enum RetryAfter {
    /// Seconds to wait, from 0 to `limit`: delay-seconds (ASCII digits only: no sign, fraction, exponent or `nan`;
    /// more than ten digits, three centuries, is no wait a server means) or an HTTP date (IMF-fixdate, or the obsolete
    /// RFC 850 and asctime forms, RFC 9110 §5.6.7) relative to `now`, a date already past being 0. Nil for anything
    /// else, an absent header included.
    public static func seconds(_ value: String?, now: Date, limit: TimeInterval) -> TimeInterval? {
        guard let value, value.utf8.count <= 64 else { return nil }
        let text = Array(value.utf8.drop { $0 == 0x20 || $0 == 0x09 }.reversed().drop { $0 == 0x20 || $0 == 0x09 }
            .reversed())
        let ceiling = limit.isNaN ? 0 : max(limit, 0)
        if !text.isEmpty, text.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) {
            guard text.count <= 10 else { return nil }
            let seconds = text.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
            return min(TimeInterval(seconds), ceiling)
        }
        guard let date = httpDate(text, now: now) else { return nil }
        return min(max(date.timeIntervalSince(now), 0), ceiling)
    }

    /// An HTTP date in one of its three forms, all in GMT: `Sun, 06 Nov 1994 08:49:37 GMT` (IMF-fixdate),
    /// `Sunday, 06-Nov-94 08:49:37 GMT` (RFC 850, its two-digit year the latest that is not more than 50 years after
    /// `now`) and `Sun Nov  6 08:49:37 1994` (asctime). Names are matched case-sensitively, as the grammar writes them.
    static func httpDate(_ text: [UInt8], now: Date) -> Date? {
        if var scanner = DateScanner(text), let date = scanner.imfFixdate() { return date }
        if var scanner = DateScanner(text), let date = scanner.rfc850(now: now) { return date }
        if var scanner = DateScanner(text), let date = scanner.asctime() { return date }
        return nil
    }
}

/// Reads the fields of one HTTP date form, byte by byte; every method answers nil at the first byte out of place.
private struct DateScanner {
    static let days = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    static let longDays = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
    static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    private let bytes: [UInt8]
    private var index = 0

    init?(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return nil }
        self.bytes = bytes
    }

    /// `Sun, 06 Nov 1994 08:49:37 GMT`
    mutating func imfFixdate() -> Date? {
        guard word(Self.days) != nil, literal(", "), let day = number(2), literal(" "), let month = word(Self.months),
              literal(" "), let year = number(4), literal(" "), let time = timeOfDay(), literal(" GMT"), atEnd
        else { return nil }
        return Self.date(year: year, month: month + 1, day: day, time: time)
    }

    /// `Sunday, 06-Nov-94 08:49:37 GMT`
    mutating func rfc850(now: Date) -> Date? {
        guard word(Self.longDays) != nil, literal(", "), let day = number(2), literal("-"),
              let month = word(Self.months), literal("-"), let shortYear = number(2), literal(" "),
              let time = timeOfDay(), literal(" GMT"), atEnd
        else { return nil }
        let thisYear = CivilCalendar.civilFromDays(Int((now.timeIntervalSince1970 / 86_400).rounded(.down))).year
        var year = thisYear - thisYear % 100 + shortYear
        if year > thisYear + 50 { year -= 100 }
        return Self.date(year: year, month: month + 1, day: day, time: time)
    }

    /// `Sun Nov  6 08:49:37 1994` (a one-digit day has a space before it)
    mutating func asctime() -> Date? {
        guard word(Self.days) != nil, literal(" "), let month = word(Self.months), literal(" ") else { return nil }
        let day: Int
        if literal(" ") {
            guard let digit = number(1) else { return nil }
            day = digit
        } else {
            guard let digits = number(2) else { return nil }
            day = digits
        }
        guard literal(" "), let time = timeOfDay(), literal(" "), let year = number(4), atEnd else { return nil }
        return Self.date(year: year, month: month + 1, day: day, time: time)
    }

    private var atEnd: Bool { index == bytes.count }

    /// `HH:MM:SS` as seconds into the day (a leap second, 60, is allowed).
    private mutating func timeOfDay() -> Int? {
        guard let hour = number(2), literal(":"), let minute = number(2), literal(":"), let second = number(2),
              hour <= 23, minute <= 59, second <= 60
        else { return nil }
        return hour * 3600 + minute * 60 + second
    }

    private mutating func literal(_ text: String) -> Bool {
        let expected = Array(text.utf8)
        guard bytes.count - index >= expected.count, Array(bytes[index..<index + expected.count]) == expected else {
            return false
        }
        index += expected.count
        return true
    }

    /// Exactly `count` ASCII digits.
    private mutating func number(_ count: Int) -> Int? {
        guard bytes.count - index >= count else { return nil }
        var value = 0
        for byte in bytes[index..<index + count] {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        index += count
        return value
    }

    /// The index of the first of `words` that comes next.
    private mutating func word(_ words: [String]) -> Int? {
        for (position, word) in words.enumerated() where literal(word) { return position }
        return nil
    }

    /// The moment, or nil for a date that does not exist (31 Feb, day 0).
    private static func date(year: Int, month: Int, day: Int, time: Int) -> Date? {
        guard (1...CivilCalendar.daysInMonth(year: year, month: month)).contains(day) else { return nil }
        let days = CivilCalendar.daysFromCivil(year: year, month: month, day: day)
        return Date(timeIntervalSince1970: TimeInterval(days * 86_400 + time))
    }
}
