import Foundation

/// Converts between Seattle wall-clock readings and instants, with America/Los_Angeles DST rules.
///
/// The rule for readings that do not map to exactly one instant:
/// - **Autumn repeated hour** (e.g. 2024-11-03 01:00–01:59 happens twice): an opening time takes the *first*
///   occurrence (daylight time). A closing time takes the earliest occurrence at or after its opening, so an
///   opening at 01:55 PDT that closes at "01:02" closes at 01:02 PST, seven minutes later. (`EventValidator` refines
///   this with the row's `minutesopen`, and with other rows of the batch: see there.)
/// - **Spring gap** (e.g. 2024-03-10 02:00–02:59 does not exist): the reading is taken with the offset in force
///   before the gap (standard time), so "02:30" is 10:30 UTC, which clocks showed as 03:30 PDT.
public struct SeattleTime: Sendable {
    /// The America/Los_Angeles zone.
    public let zone: TimeZone

    /// Creates a converter for America/Los_Angeles.
    public init() {
        // The identifier ships with Foundation's zone data; a test proves it resolves on this platform.
        self.zone = TimeZone(identifier: "America/Los_Angeles") ?? TimeZone(secondsFromGMT: -8 * 3600) ?? .current
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
        if let constant = Self.transitions.constantOffset(from: wall - 86_400, through: wall + 86_400) {
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

    /// The wall-clock reading of an instant in Seattle.
    public func reading(for instant: Date) -> FloatingTimestamp {
        let seconds = Int64(instant.timeIntervalSince1970.rounded(.down))
        return FloatingTimestamp(wallClockSeconds: seconds + offset(atEpoch: seconds))
    }

    /// The UTC offset in seconds at an instant (e.g. -25200 for PDT).
    public func utcOffset(at instant: Date) -> Int {
        Int(offset(atEpoch: Int64(instant.timeIntervalSince1970.rounded(.down))))
    }

    /// "PDT" or "PST" for an instant.
    public func abbreviation(at instant: Date) -> String {
        let offset = utcOffset(at: instant)
        switch offset {
        case -7 * 3600: return "PDT"
        case -8 * 3600: return "PST"
        default: return zone.abbreviation(for: instant) ?? "UTC\(offset / 3600)"
        }
    }

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
        if let offset = Self.transitions.offset(atEpoch: seconds) { return offset }
        return Int64(zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(seconds))))
    }

    /// The zone's offsets between 1900 and 2200, read from Foundation once per process: every row of an import
    /// converts two readings, and a zone lookup per candidate instant cost more than the rest of validation.
    private static let transitions = OffsetTable(zone: SeattleTime().zone)
}

/// A zone's UTC offsets as sorted transitions, looked up by binary search.
struct OffsetTable: Sendable {
    /// Instants (epoch seconds) where the offset changes, ascending.
    private let starts: [Int64]
    /// The offset in force from each start until the next.
    private let offsets: [Int64]
    /// The range the table covers; outside it callers ask the zone.
    private let covered: ClosedRange<Int64>

    init(zone: TimeZone, from: Int64 = -2_208_988_800, through: Int64 = 7_258_118_400) { // 1900 ... 2200
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
