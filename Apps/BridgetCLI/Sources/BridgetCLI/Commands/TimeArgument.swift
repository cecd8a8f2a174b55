import BridgetDTOs
import Foundation

/// Parses times and durations given on the command line. Without a zone, times are Seattle local time.
enum TimeArgument {
    /// Accepts `YYYY-MM-DD`, `YYYY-MM-DD HH:MM[:SS]`, `YYYY-MM-DDTHH:MM[:SS]`, either followed by `PDT` or `PST` (the
    /// form tables print), or ISO 8601 with `Z` or an offset from -12:00 to +14:00.
    /// A bare date means its local midnight, or with `endOfDay` the midnight that ends it.
    static func parse(_ text: String, option: String, endOfDay: Bool = false, time: LocalClock = .seattle)
        throws -> Date
    {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let instant = try parseAnyYear(trimmed, option: option, endOfDay: endOfDay, time: time)
        let bounds = Date(timeIntervalSince1970: -2_208_988_800)...Date(timeIntervalSince1970: 32_503_680_000) // 1900…3000
        guard bounds.contains(instant) else {
            throw BridgetError.validation("bad-time", "\(option) '\(text)' is outside the years 1900 to 2999")
        }
        return instant
    }

    /// A duration in whole minutes from 1 to 1440: `20m`, `45`, `1h`. `option` names the option in the error.
    static func minutes(_ text: String, option: String) throws -> Int {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        let value: Int? = if trimmed.hasSuffix("h") { Int(trimmed.dropLast()).flatMap { $0 <= 24 ? $0 * 60 : nil } }
            else if trimmed.hasSuffix("m") { Int(trimmed.dropLast()) }
            else { Int(trimmed) }
        guard let value, (1...1_440).contains(value) else {
            throw BridgetError.validation("bad-duration", "\(option) '\(text)' is not a duration from 1m to 24h",
                                          hint: "use minutes (20m, 45) or hours (1h)")
        }
        return value
    }

    /// Seattle's zone abbreviations and their UTC offsets in seconds.
    private static let seattleZones = ["PDT": -7 * 3600, "PST": -8 * 3600]

    private static func parseAnyYear(_ trimmed: String, option: String, endOfDay: Bool, time: LocalClock) throws
        -> Date
    {
        let text = trimmed
        if let day = LocalDay(trimmed) {
            let midnight = LocalDay(number: day.number + (endOfDay ? 1 : 0)).midnight
            return time.openingInstant(for: midnight)
        }
        // `2026-10-01 10:00 PDT`, as tables print it: the zone says which of a repeated hour's readings is meant.
        let words = trimmed.split(separator: " ")
        if words.count >= 2, let zone = words.last.map({ $0.uppercased() }), let offset = seattleZones[zone] {
            guard let reading = localReading(words.dropLast().joined(separator: " ")) else { throw notATime(option, text) }
            let instant = Date(timeIntervalSince1970: Double(reading.wallClockSeconds - Int64(offset)))
            let actual = time.abbreviation(at: instant)
            guard actual == zone else {
                throw BridgetError.validation(
                    "bad-time", "\(option) '\(text)' names \(zone), but Seattle is on \(actual) at that time",
                    hint: "write \(actual), or leave the zone out for Seattle's time of that day")
            }
            return instant
        }
        if let reading = localReading(trimmed) { return time.openingInstant(for: reading) }
        if let offset = utcOffset(trimmed), !(offset.minutes.map { (-12 * 60...14 * 60).contains($0) } ?? false) {
            throw BridgetError.validation(
                "bad-time", "\(option) '\(text)' has a UTC offset of \(offset.text); offsets run from -12:00 to +14:00")
        }
        let formatter = ISO8601DateFormatter()
        for options: ISO8601DateFormatter.Options in [[.withInternetDateTime],
                                                     [.withInternetDateTime, .withFractionalSeconds]] {
            formatter.formatOptions = options
            if let date = formatter.date(from: trimmed) { return date }
        }
        throw notATime(option, text)
    }

    /// `YYYY-MM-DD HH:MM[:SS]` or with `T`, as a wall-clock reading.
    private static func localReading(_ text: String) -> FloatingTimestamp? {
        var local = text.replacingOccurrences(of: " ", with: "T")
        if local.count == 16 { local += ":00" }
        return FloatingTimestamp(local)
    }

    /// The UTC offset an ISO 8601 time ends with (`+05:30`, `-0700`, `+09`): its text, and its minutes unless they
    /// are 60 or more; `nil` when the time ends otherwise (`Z`, or no offset at all).
    private static func utcOffset(_ text: String) -> (text: Substring, minutes: Int?)? {
        // The offset follows the time of day, so its sign comes after the date's own '-' (at 4 and 7).
        guard let sign = text.lastIndex(where: { $0 == "+" || $0 == "-" }),
              text.distance(from: text.startIndex, to: sign) > 10
        else { return nil }
        let characters = text[text.index(after: sign)...].filter { $0 != ":" }
        let digits = characters.compactMap { $0.isASCII ? $0.wholeNumberValue : nil }
        guard [2, 4].contains(digits.count), digits.count == characters.count else { return nil }
        let hours = digits[0] * 10 + digits[1]
        let minutes = digits.count == 4 ? digits[2] * 10 + digits[3] : 0
        guard minutes < 60 else { return (text[sign...], nil) }
        return (text[sign...], (text[sign] == "-" ? -1 : 1) * (hours * 60 + minutes))
    }

    private static func notATime(_ option: String, _ text: String) -> BridgetError {
        BridgetError.validation(
            "bad-time", "\(option) '\(text)' is not a time",
            hint: "use YYYY-MM-DD, 'YYYY-MM-DD HH:MM' (Seattle time, optionally with PDT or PST as tables print it) "
                + "or ISO 8601 such as 2026-09-24T05:35:00Z")
    }
}
