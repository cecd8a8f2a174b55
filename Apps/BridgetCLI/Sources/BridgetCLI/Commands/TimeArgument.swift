import BridgetDTOs
import Foundation

/// Parses times given on the command line. Without a zone they are Seattle local time.
enum TimeArgument {
    /// Accepts `YYYY-MM-DD`, `YYYY-MM-DD HH:MM[:SS]`, `YYYY-MM-DDTHH:MM[:SS]`, or ISO 8601 with `Z` or an offset.
    /// A bare date means its local midnight, or with `endOfDay` the midnight that ends it.
    static func parse(_ text: String, option: String, endOfDay: Bool = false, time: SeattleTime = SeattleTime())
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

    private static func parseAnyYear(_ trimmed: String, option: String, endOfDay: Bool, time: SeattleTime) throws
        -> Date
    {
        let text = trimmed
        if let day = LocalDay(trimmed) {
            let midnight = LocalDay(number: day.number + (endOfDay ? 1 : 0)).midnight
            return time.openingInstant(for: midnight)
        }
        var local = trimmed.replacingOccurrences(of: " ", with: "T")
        if local.count == 16 { local += ":00" }
        if let reading = FloatingTimestamp(local) { return time.openingInstant(for: reading) }
        let formatter = ISO8601DateFormatter()
        for options: ISO8601DateFormatter.Options in [[.withInternetDateTime],
                                                     [.withInternetDateTime, .withFractionalSeconds]] {
            formatter.formatOptions = options
            if let date = formatter.date(from: trimmed) { return date }
        }
        throw BridgetError.validation(
            "bad-time", "\(option) '\(text)' is not a time",
            hint: "use YYYY-MM-DD, 'YYYY-MM-DD HH:MM' (Seattle time) or ISO 8601 such as 2026-09-24T05:35:00Z")
    }
}
