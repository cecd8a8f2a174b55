import Foundation

/// Converts between a time zone's wall-clock readings and instants, with the zone's own DST rules: Seattle's
/// (America/Los_Angeles) for the Socrata dataset, Europe/Amsterdam's for the Dutch feed, any zone a source names.
///
/// The rule for readings that do not map to exactly one instant:
/// - **Autumn repeated hour** (e.g. Seattle's 2024-11-03 01:00–01:59, Amsterdam's 2024-10-27 02:00–02:59, both
///   happen twice): an opening time takes the *first* occurrence (daylight time). A closing time takes the earliest
///   occurrence at or after its opening, so an opening at 01:55 PDT that closes at "01:02" closes at 01:02 PST,
///   seven minutes later. (Validation refines this with the reported duration, and with other records of the
///   batch.)
/// - **Spring gap** (e.g. Seattle's 2024-03-10 02:00–02:59 does not exist): the reading is taken with the offset in
///   force before the gap (standard time), so "02:30" is 10:30 UTC, which clocks showed as 03:30 PDT.
///
/// A clock reads its zone's offsets from Foundation once, when it is made (1990 to 2060, the span of the records and
/// forecasts Bridget deals in; outside it each reading asks the zone, as correct and slower): make one per zone and
/// keep it (`LocalClock.seattle` is made once per process, and every command that reads a time makes it). Each year
/// of the table costs about 10 µs to make, in every command.
public struct LocalClock: Sendable {
    /// The zone.
    public let zone: TimeZone
    private let transitions: OffsetTable

    /// Seattle's clock (America/Los_Angeles), made once.
    public static let seattle = LocalClock(zone: TimeZone(identifier: "America/Los_Angeles")
        ?? TimeZone(secondsFromGMT: -8 * 3600) ?? .current) // the identifier ships with Foundation's zone data

    /// A clock for `zone`.
    public init(zone: TimeZone) {
        self.zone = zone
        self.transitions = OffsetTable(zone: zone)
    }

    /// A clock for a zone identifier such as `Europe/Amsterdam`, or `nil` when this system does not know it.
    public init?(identifier: String) {
        guard let zone = TimeZone(identifier: identifier) else { return nil }
        self.init(zone: zone)
    }

    /// Every instant that shows this wall-clock reading in Seattle, earliest first: none in the spring gap,
    /// two in the autumn repeated hour, one otherwise.
    public func instants(for reading: FloatingTimestamp) -> [Date] {
        let wall = reading.wallClockSeconds
        let before = offset(atEpoch: wall - 86_400)
        let after = offset(atEpoch: wall + 86_400)
        let fraction = Double(reading.millisecond) / 1000
        // Every row converts two readings: no set, no sort, one small array.
        var result: [Date] = []
        result.reserveCapacity(2)
        let (earlier, later) = (max(before, after), min(before, after)) // the larger offset gives the earlier instant
        if offset(atEpoch: wall - earlier) == earlier {
            result.append(Date(timeIntervalSince1970: Double(wall - earlier) + fraction))
        }
        if later != earlier, offset(atEpoch: wall - later) == later {
            result.append(Date(timeIntervalSince1970: Double(wall - later) + fraction))
        }
        return result
    }

    /// The instant of an opening reading (first occurrence; spring-gap readings use the earlier offset).
    public func openingInstant(for reading: FloatingTimestamp) -> Date {
        if let first = instants(for: reading).first { return first }
        return gapInstant(for: reading)
    }

    /// The one instant a reading denotes when no offset change lies within a day of it, else `nil` (the reading
    /// may then be ambiguous or in the spring gap: ask `candidateInstants`). The cheap common case: one table
    /// lookup (two near a change) and no array.
    public func unambiguousInstant(for reading: FloatingTimestamp) -> Date? {
        let wall = reading.wallClockSeconds
        // Offsets change months apart, so equal offsets a day either side mean none changes in between. One lookup
        // answers when no transition lies between the two (nearly always); otherwise both offsets are compared.
        let offset: Int64
        if let constant = transitions.constantOffset(from: wall - 86_400, through: wall + 86_400) {
            offset = constant
        } else {
            offset = self.offset(atEpoch: wall - 86_400)
            guard offset == self.offset(atEpoch: wall + 86_400) else { return nil }
        }
        return Date(timeIntervalSince1970: Double(wall - offset) + Double(reading.millisecond) / 1000)
    }

    /// Every instant a reading may denote, earliest first: both occurrences in the repeated hour, the
    /// earlier-offset instant in the spring gap, otherwise the one instant.
    public func candidateInstants(for reading: FloatingTimestamp) -> [Date] {
        let found = instants(for: reading)
        return found.isEmpty ? [gapInstant(for: reading)] : found
    }

    /// The instant of a closing reading: the earliest occurrence at or after `opening`.
    public func closingInstant(for reading: FloatingTimestamp, after opening: Date) -> Date {
        let candidates = instants(for: reading)
        if let fitting = candidates.first(where: { $0 >= opening }) { return fitting }
        if let first = candidates.first { return first }
        return gapInstant(for: reading)
    }

    /// Whether a reading lies within a day of an offset change, where it may denote two instants or none (the
    /// autumn repeated hour, the spring gap): such readings are judged together with the records around them.
    public func nearOffsetChange(_ reading: FloatingTimestamp) -> Bool {
        let wall = reading.wallClockSeconds
        if transitions.constantOffset(from: wall - 86_400, through: wall + 86_400) != nil { return false }
        return offset(atEpoch: wall - 86_400) != offset(atEpoch: wall + 86_400)
    }

    /// The wall-clock reading of an instant in the zone.
    public func reading(for instant: Date) -> FloatingTimestamp {
        let seconds = Int64(instant.timeIntervalSince1970.rounded(.down))
        return FloatingTimestamp(wallClockSeconds: seconds + offset(atEpoch: seconds))
    }

    /// The UTC offset in seconds at an instant (e.g. -25200 for PDT).
    public func utcOffset(at instant: Date) -> Int {
        Int(offset(atEpoch: Int64(instant.timeIntervalSince1970.rounded(.down))))
    }

    /// The zone's abbreviation at an instant: "PDT" or "PST" in Seattle, "CET" or "CEST" in Amsterdam, else what
    /// the system calls it (Foundation on Linux knows only "GMT-7" forms, so the common ones are spelled here).
    public func abbreviation(at instant: Date) -> String {
        let offset = utcOffset(at: instant)
        if let known = Self.abbreviations[zone.identifier]?[offset] { return known }
        return zone.abbreviation(for: instant) ?? "UTC\(offset >= 0 ? "+" : "")\(offset / 3600)"
    }

    /// Abbreviations by zone and UTC offset (seconds).
    private static let abbreviations: [String: [Int: String]] = [
        "America/Los_Angeles": [-7 * 3600: "PDT", -8 * 3600: "PST"],
        "America/Vancouver": [-7 * 3600: "PDT", -8 * 3600: "PST"],
        "Europe/Amsterdam": [3600: "CET", 2 * 3600: "CEST"],
        "Europe/Brussels": [3600: "CET", 2 * 3600: "CEST"],
        "Europe/Berlin": [3600: "CET", 2 * 3600: "CEST"],
        "Europe/London": [0: "GMT", 3600: "BST"],
        "America/New_York": [-4 * 3600: "EDT", -5 * 3600: "EST"],
        "America/Chicago": [-5 * 3600: "CDT", -6 * 3600: "CST"],
        "America/Denver": [-6 * 3600: "MDT", -7 * 3600: "MST"],
        "UTC": [0: "UTC"], "GMT": [0: "GMT"],
    ]

    /// A display form: `2026-09-23 22:35 PDT`.
    public func display(_ instant: Date) -> String {
        let local = reading(for: instant)
        let text = local.description
        return String(text.prefix(10)) + " " + String(text.dropFirst(11).prefix(5)) + " " + abbreviation(at: instant)
    }

    private func gapInstant(for reading: FloatingTimestamp) -> Date {
        let wall = reading.wallClockSeconds
        let instant = wall - offset(atEpoch: wall - 86_400)
        return Date(timeIntervalSince1970: Double(instant) + Double(reading.millisecond) / 1000)
    }

    private func offset(atEpoch seconds: Int64) -> Int64 {
        if let offset = transitions.offset(atEpoch: seconds) { return offset }
        return Int64(zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(seconds))))
    }
}

/// A zone's UTC offsets as sorted transitions, looked up by binary search: every record of an import converts two
/// readings, and a zone lookup per candidate instant cost more than the rest of validation.
struct OffsetTable: Sendable {
    /// Instants (epoch seconds) where the offset changes, ascending.
    private let starts: [Int64]
    /// The offset in force from each start until the next.
    private let offsets: [Int64]
    /// The range the table covers; outside it callers ask the zone.
    private let covered: ClosedRange<Int64>

    init(zone: TimeZone, from: Int64 = 631_152_000, through: Int64 = 2_840_140_800) { // 1990 ... 2060
        var starts = [from]
        var offsets = [Int64(zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(from))))]
        var cursor = Date(timeIntervalSince1970: Double(from))
        while let next = zone.nextDaylightSavingTimeTransition(after: cursor), next.timeIntervalSince1970 <= Double(through),
              next > cursor {
            let instant = Int64(next.timeIntervalSince1970.rounded(.down))
            let offset = Int64(zone.secondsFromGMT(for: next))
            if offset != offsets[offsets.count - 1] {
                starts.append(instant)
                offsets.append(offset)
            }
            cursor = next
        }
        self.starts = starts
        self.offsets = offsets
        self.covered = from...through
    }

    /// The offset at an instant, or `nil` outside the table's range.
    func offset(atEpoch seconds: Int64) -> Int64? {
        guard covered.contains(seconds) else { return nil }
        return offsets[interval(containing: seconds)]
    }

    /// The offset in force from `from` through `through`, when no transition lies between them and the table
    /// covers both; otherwise `nil`.
    func constantOffset(from: Int64, through: Int64) -> Int64? {
        guard covered.contains(from), covered.contains(through) else { return nil }
        let index = interval(containing: from)
        guard index + 1 == starts.count || starts[index + 1] > through else { return nil }
        return offsets[index]
    }

    /// The index of the last start at or before `seconds`.
    private func interval(containing seconds: Int64) -> Int {
        var low = 0
        var high = starts.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if starts[middle] <= seconds { low = middle } else { high = middle - 1 }
        }
        return low
    }
}
