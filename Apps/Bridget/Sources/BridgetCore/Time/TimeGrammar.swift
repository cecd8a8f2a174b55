import BridgetDTOs
import Foundation

/// The one grammar of every time argument (`--since`, `--until`, `--at`, `--depart`, `--before`, `--between`), in the
/// store's local zone (Seattle's unless the source says otherwise). Documented in Docs/OUTPUT.md, "Times you type".
///
/// - Days: `today`, `tomorrow`, `yesterday`, a weekday (`mon`, `monday`: the next one for options that look ahead,
///   today included; the latest for options that look back).
/// - Full forms: `2026-10-01` (that day's local midnight), `2026-10-01 17:40` or `2026-10-01T17:40[:SS[.mmm]]`
///   (local), the same followed by the zone abbreviation tables print (`2026-10-01 17:40 PDT`), ISO 8601 instants
///   with `Z` or an offset (`2026-10-01T00:40:00Z`, `…+02:00`).
/// - A time of day, `17:40` or `7:05`: for options that look ahead (`--at`, `--depart`) the next such local time
///   from now; for options that look back (`--since`, `--until`, `--before`) the latest such time at or before now.
/// - Relative: `now`; `30d`, `2h`, `45m`, `1w`: ago for options that look back, ahead for options that look ahead;
///   a sign decides explicitly (`-2h` ago, `+2h` ahead).
///
/// A local time that does not exist (the spring-forward gap) moves forward by the gap (02:30 becomes 03:30 PDT); a
/// local time that occurs twice (the autumn repeated hour) means its first occurrence (PDT), unless a zone
/// abbreviation says which. Either adjustment is reported in `Resolved.note`, which commands print on standard
/// error, so nobody is answered for a time they did not ask about without being told.
package struct TimeGrammar: Sendable {
    /// Which way a bare time of day and an unsigned relative form point.
    package enum Direction: Sendable { case ahead, back }

    /// A parsed time: the instant, its local reading, and what was adjusted to get there.
    package struct Resolved: Sendable, Equatable {
        package let instant: Date
        package let reading: FloatingTimestamp
        /// Set when the local time given does not exist or occurs twice.
        package let note: String?
    }

    package let clock: LocalClock
    package let now: Date

    package init(clock: LocalClock = .seattle, now: Date = Date()) {
        self.clock = clock
        self.now = now
    }

    /// The instant `text` names; `option` names the argument in errors.
    package func instant(_ text: String, option: String, direction: Direction) throws -> Date {
        try resolve(text, option: option, direction: direction).instant
    }

    /// Parses `text`, failing with a message that shows every accepted form.
    package func resolve(_ text: String, option: String, direction: Direction) throws -> Resolved {
        do {
            return try resolving(text, option: option, direction: direction)
        } catch let error as BridgetError {
            throw error.about(option)
        }
    }

    private func resolving(_ text: String, option: String, direction: Direction) throws -> Resolved {
        let trimmed = text.trimmedOfSpaces
        guard let resolved = try parse(trimmed, option: option, direction: direction) else {
            throw BridgetError(.inputBadTime, "\(option) '\(text)' is not a time", hint: Self.formsHint)
        }
        // The years of the local reading (2999-12-31 23:59 in Seattle is already 3000 in UTC), and instants a day
        // past them either way, so any zone's 1900 and 2999 are in.
        let bounds = Date(timeIntervalSince1970: -2_209_075_200)...Date(timeIntervalSince1970: 32_503_766_400)
        guard bounds.contains(resolved.instant), (1900...2999).contains(resolved.reading.year) else {
            throw BridgetError(.inputBadTime, "\(option) '\(text)' is outside the years 1900 to 2999")
        }
        return resolved
    }

    /// Every form, for error hints and help.
    package static let formsHint = "use a date (2026-10-01, today, tomorrow, or a weekday such as mon), a local time (2026-10-01 17:40, optionally with PDT or PST as "
        + "tables print it), a time of day (17:40, 7:05), now, a span such as 30d, 2h, 45m or 1w (-2h ago, +2h "
        + "ahead), or ISO 8601 such as 2026-09-24T05:35:00Z"

    private func parse(_ text: String, option: String, direction: Direction) throws -> Resolved? {
        let lowered = text.lowercased()
        if lowered == "now" { return exact(now) }
        if let seconds = Self.span(lowered) {
            let sign: Int
            switch lowered.first {
            case "-": sign = -1
            case "+": sign = 1
            default: sign = direction == .ahead ? 1 : -1
            }
            // Days and weeks are calendar days: the same clock time that many days away, across a clock change too.
            if lowered.hasSuffix("d") || lowered.hasSuffix("w") {
                let days = sign * seconds / 86_400
                let here = clock.reading(for: now)
                return local(FloatingTimestamp(wallClockSeconds: here.wallClockSeconds + Int64(days) * 86_400))
            }
            return exact(now.addingTimeInterval(Double(sign * seconds)))
        }
        if let (hour, minute) = Self.timeOfDay(text) { return local(timeOfDay: hour, minute, direction: direction) }
        if let day = LocalDay(text) { return local(day.midnight) }
        if let day = weekday(lowered, direction: direction) { return local(day.midnight) }
        // `2026-10-01 10:00 PDT`, as tables print it: the zone says which of a repeated hour's readings is meant.
        let words = text.split(separator: " ")
        if words.count >= 2, let reading = Self.localReading(words.dropLast().joined(separator: " ")) {
            let zone = words.last!.uppercased() // two words at least
            let candidates = clock.candidateInstants(for: reading)
            if let match = candidates.first(where: { clock.abbreviation(at: $0) == zone }),
               clock.reading(for: match) == reading {
                return Resolved(instant: match, reading: reading, note: nil)
            }
            if zone.allSatisfy(\.isLetter), zone.count >= 3, clock.instants(for: reading).isEmpty {
                throw BridgetError(.inputBadTime, "\(option) '\(text)': \(Self.shown(reading)) does not exist in \(clock.zone.identifier) "
                        + "(the clocks skip it that day)",
                    hint: "leave the zone out to mean the time just after the gap, or pick another time")
            }
            let known = Set(candidates.map { clock.abbreviation(at: $0) })
            if zone.allSatisfy(\.isLetter), zone.count >= 3 {
                throw BridgetError(.inputBadTime, "\(option) '\(text)' names \(zone), but the clock there reads "
                        + known.sorted().joined(separator: " or ") + " at that time",
                    hint: "write \(known.sorted().joined(separator: " or ")), or leave the zone out")
            }
        }
        if let reading = Self.localReading(text) { return local(reading) }
        if let offset = Self.utcOffset(text), !(offset.minutes.map { (-12 * 60...14 * 60).contains($0) } ?? false) {
            throw BridgetError(.inputBadTime, "\(option) '\(text)' has a UTC offset of \(offset.text); offsets run from -12:00 to +14:00")
        }
        // `2026-10-01T17:40Z`: ISO 8601 allows the seconds to be left out.
        let withSeconds = Self.minutePrecisionInstant(text).map { [$0] } ?? []
        for candidate in [text] + withSeconds {
            if let date = InstantText.date(from: candidate) { return exact(date) }
        }
        // What RFC 3339's form leaves out and Foundation's reader still takes.
        let formatter = ISO8601DateFormatter()
        for candidate in [text] + withSeconds {
            for options: ISO8601DateFormatter.Options in [[.withInternetDateTime],
                                                         [.withInternetDateTime, .withFractionalSeconds]] {
                formatter.formatOptions = options
                if let date = formatter.date(from: candidate) { return exact(date) }
            }
        }
        return nil
    }

    /// `today`, `tomorrow`, `yesterday`, or a weekday's name (`mon`, `monday`): for options that look ahead the next
    /// such day (today if it is one), for options that look back the latest (today if it is one).
    private func weekday(_ text: String, direction: Direction) -> LocalDay? {
        let today = LocalDay(containing: now, time: clock)
        switch text {
        case "today": return today
        case "tomorrow": return LocalDay(number: today.number + 1)
        case "yesterday": return LocalDay(number: today.number - 1)
        default: break
        }
        guard let wanted = Weekdays.names.firstIndex(of: text)
            ?? LocalDay.weekdayNames.firstIndex(where: { $0.lowercased() == text })
        else { return nil }
        let ahead = (wanted - today.weekday + 7) % 7
        return LocalDay(number: direction == .ahead ? today.number + ahead : today.number - (7 - ahead) % 7)
    }

    private func exact(_ instant: Date) -> Resolved {
        Resolved(instant: instant, reading: clock.reading(for: instant), note: nil)
    }

    /// A local reading, by the rule for missing and repeated times.
    package func local(_ reading: FloatingTimestamp) -> Resolved {
        let occurrences = clock.instants(for: reading)
        let instant = clock.openingInstant(for: reading)
        var note: String?
        if occurrences.isEmpty {
            note = "\(Self.shown(reading)) does not exist in \(clock.zone.identifier) (the clocks skip it); using "
                + clock.display(instant)
        } else if occurrences.count > 1 {
            note = "\(Self.shown(reading)) occurs twice in \(clock.zone.identifier) (the clocks repeat the hour); using the first, "
                + clock.display(instant)
        }
        return Resolved(instant: instant, reading: clock.reading(for: instant), note: note)
    }

    /// The next (ahead) or the latest (back) instant at which the clock reads `hour:minute`: today's, or the next or
    /// previous day's; in a repeated hour either occurrence counts, whichever is nearer on the right side of now.
    private func local(timeOfDay hour: Int, _ minute: Int, direction: Direction) -> Resolved {
        let today = clock.reading(for: now).dayNumber
        let days = direction == .ahead ? [today, today + 1, today + 2] : [today, today - 1, today - 2]
        for day in days {
            let reading = FloatingTimestamp(wallClockSeconds: Int64(day) * 86_400 + Int64(hour * 3600 + minute * 60))
            let occurrences = clock.instants(for: reading)
            let fitting = direction == .ahead ? occurrences.first { $0 >= now.addingTimeInterval(-59) }
                : occurrences.last { $0 <= now }
            if let instant = fitting {
                let note = occurrences.count > 1
                    ? "\(Self.shown(reading)) occurs twice in \(clock.zone.identifier); using the "
                        + (instant == occurrences.first ? "first" : "second") + ", \(clock.display(instant))"
                    : nil
                return Resolved(instant: instant, reading: reading, note: note)
            }
            if occurrences.isEmpty {
                // The clocks skip this time that day: the rule moves it forward by the gap.
                let moved = local(reading)
                if direction == .ahead ? moved.instant >= now : moved.instant <= now { return moved }
            }
        }
        return local(FloatingTimestamp(wallClockSeconds: Int64(today) * 86_400 + Int64(hour * 3600 + minute * 60)))
    }

    /// `2026-10-01 17:40`, for messages.
    package static func shown(_ reading: FloatingTimestamp) -> String {
        String(reading.description.prefix(16).map { $0 == "T" ? " " : $0 })
    }

    /// `2026-10-01T17:40Z` (or `+02:00`) with `:00` seconds put in, or `nil` when `text` is not that form.
    package static func minutePrecisionInstant(_ text: String) -> String? {
        let characters = Array(text)
        guard characters.count >= 17, characters[10] == "T", characters[13] == ":",
              (characters.count == 17 && characters[16] == "Z")
                || (characters.count == 22 && (characters[16] == "+" || characters[16] == "-"))
        else { return nil }
        return String(characters[..<16]) + ":00" + String(characters[16...])
    }

    /// `17:40`, `7:05`, `17:40:00`: hour and minute (seconds, when given, must be a valid 00-59 and are dropped:
    /// answers are per minute).
    package static func timeOfDay(_ text: String) -> (Int, Int)? {
        guard text.utf8.count <= 8 else { return nil } // H:MM:SS at most
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard (2...3).contains(parts.count), (1...2).contains(parts[0].count), parts[1].count == 2,
              parts.count == 2 || (parts[2].count == 2 && (Int(parts[2]) ?? 60) < 60),
              parts.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } }),
              let hour = Int(parts[0]), let minute = Int(parts[1]), hour < 24, minute < 60
        else { return nil }
        return (hour, minute)
    }

    /// `30d`, `2h`, `45m`, `1w`, with an optional sign: seconds.
    package static func span(_ text: String) -> Int? {
        guard text.utf8.count <= 8 else { return nil } // a sign, six digits and a unit at most
        var body = Substring(text)
        if body.first == "+" || body.first == "-" { body = body.dropFirst() }
        guard let unit = body.last, let count = Int(body.dropLast()), count >= 0, count <= 100_000,
              body.dropLast().allSatisfy({ $0.isASCII && $0.isNumber })
        else { return nil }
        switch unit {
        case "m": return count * 60
        case "h": return count * 3600
        case "d": return count * 86_400
        case "w": return count * 7 * 86_400
        default: return nil
        }
    }

    /// A duration in whole minutes from 1 to 1440: `20m`, `45`, `1h`. `option` names the option in the error.
    package static func minutes(_ text: String, option: String) throws -> Int {
        let trimmed = text.trimmedOfSpaces.lowercased()
        let value: Int? = if trimmed.hasSuffix("h") { Int(trimmed.dropLast()).flatMap { $0 <= 24 ? $0 * 60 : nil } }
            else if trimmed.hasSuffix("m") { Int(trimmed.dropLast()) }
            else { Int(trimmed) }
        guard let value, (1...1_440).contains(value) else {
            throw BridgetError(.inputBadDuration, "\(option) '\(text)' is not a duration from 1m to 24h",
                                          hint: "use minutes (20m, 45) or hours (1h)", parameter: option)
        }
        return value
    }

    /// `YYYY-MM-DD HH:MM[:SS[.mmm]]` or with `T`, as a wall-clock reading.
    package static func localReading(_ text: String) -> FloatingTimestamp? {
        var local = String(decoding: text.utf8.map { $0 == UInt8(ascii: " ") ? UInt8(ascii: "T") : $0 }, as: UTF8.self)
        guard local.count >= 16 else { return nil }
        if local.count == 16 { local += ":00" }
        if local.count == 19 { local += ".000" }
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
}

extension StringProtocol {
    /// The text without spaces and tabs at either end (what `trimmingCharacters(in: .whitespaces)` gives for the
    /// ASCII ones, without Foundation's bridging).
    var trimmedOfSpaces: String {
        let isSpace = { (character: Character) in character == " " || character == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[first...last])
    }
}
