import BridgetDTOs
import Foundation

/// What analysis keeps of one bridge's openings: counts and sums, never the openings, so its size does not grow
/// with the history. Statistics, models and anomalies are computed from tallies (`OpeningStatistics.statistics`,
/// `OpeningModelBuilder.build`), with the same answers as from the openings themselves.
public struct OpeningTally: Sendable, Equatable, Codable {
    public let bridgeID: String
    /// Stored rows (fragments) of the bridge.
    public internal(set) var rows = 0
    /// Merged openings.
    public internal(set) var openings = 0
    /// The earliest and the latest opening start, seconds since 1970.
    public internal(set) var firstStart: Int64?
    public internal(set) var lastStart: Int64?
    /// The local days (day numbers) of the bridge's first and last row: its own span.
    public internal(set) var firstDay: Int?
    public internal(set) var lastDay: Int?
    /// Openings starting in each quarter hour of the week (`OpeningModelDTO.slot`: Monday 00:00 first).
    public internal(set) var startsBySlot = [Int](repeating: 0, count: OpeningModelDTO.slotsPerWeek)
    /// Openings starting in each month of the year (index 1…12).
    public internal(set) var startsByMonthOfYear = [Int](repeating: 0, count: 13)
    /// Openings starting in each calendar month, keyed year × 12 + month − 1.
    public internal(set) var startsByMonth: [Int: Int] = [:]
    /// Durations of the openings whose end is known.
    public internal(set) var durations = DurationCounts()
    /// Whole minutes open in each slot, and the minutes then left until the bridge closed (for models; empty
    /// unless tallied with `occupancy`).
    public internal(set) var openMinutes: [Double]
    public internal(set) var remainingMinutes: [Double]
    /// The rules whose lifted holidays this tally counted as Sundays (set by the model builder from the tallies'
    /// rules; not kept).
    var countedHolidaysAsSundays: RuleCalendar?

    private enum CodingKeys: String, CodingKey {
        case bridgeID, rows, openings, firstStart, lastStart, firstDay, lastDay, startsBySlot, startsByMonthOfYear,
             startsByMonth, durations, openMinutes, remainingMinutes
    }

    /// An empty tally; `occupancy` adds the per-minute sums a model needs (a loop over each opening's minutes).
    public init(bridgeID: String, occupancy: Bool = true) {
        self.bridgeID = bridgeID
        openMinutes = occupancy ? [Double](repeating: 0, count: OpeningModelDTO.slotsPerWeek) : []
        remainingMinutes = openMinutes
    }

    /// The tally of openings (in start order, as the history holds them).
    public init(bridgeID: String, openings: [MergedOpening], rows: Int, occupancy: Bool = true) {
        self.init(bridgeID: bridgeID, occupancy: occupancy)
        self.rows = rows
        for opening in openings { add(opening) }
    }

    /// Counts one merged opening; `asSunday`: its day is counted as a Sunday in the slots (a holiday that lifts the
    /// bridge's curfew, for models).
    public mutating func add(_ opening: MergedOpening, asSunday: Bool = false) {
        let local = opening.startLocal
        let seconds = Int64(opening.start.timeIntervalSince1970)
        openings += 1
        if firstStart.map({ seconds < $0 }) ?? true { firstStart = seconds }
        if lastStart.map({ seconds > $0 }) ?? true { lastStart = seconds }
        let firstMinute = (asSunday ? 6 : local.mondayFirstWeekday) * 1_440 + local.hour * 60 + local.minute
        startsBySlot[firstMinute / OpeningModelDTO.slotMinutes] += 1
        startsByMonthOfYear[local.month] += 1
        startsByMonth[local.year * 12 + local.month - 1, default: 0] += 1
        guard let end = opening.end else { return }
        durations.add(seconds: Int64(end.timeIntervalSince(opening.start)))
        guard !openMinutes.isEmpty, let duration = opening.durationMinutes, duration > 0 else { return }
        // Each whole minute the bridge was open, capped at a day so a bad row cannot run away; slots by arithmetic
        // on the minute of the week (no calendar work per minute).
        for minute in 0..<min(Int(duration.rounded(.up)), 1_440) {
            let slot = (firstMinute + minute) % 10_080 / OpeningModelDTO.slotMinutes
            openMinutes[slot] += 1
            remainingMinutes[slot] += duration - Double(minute)
        }
    }

    /// The local days from the bridge's first row to its last.
    public var span: HistorySpan { HistorySpan(firstDayNumber: firstDay, lastDayNumber: lastDay) }

    /// Counts one row of the bridge (the openings are counted from what they merge into).
    mutating func add(row record: OpeningRecordDTO) {
        rows += 1
        let day = Int(record.openWall.floorDivided(by: 86_400))
        if firstDay.map({ day < $0 }) ?? true { firstDay = day }
        if lastDay.map({ day > $0 }) ?? true { lastDay = day }
    }

    /// Openings by local weekday (Monday first) and hour.
    public var hourOfWeek: [[Int]] {
        (0..<7).map { day in
            (0..<24).map { hour in (0..<4).reduce(0) { $0 + startsBySlot[day * 96 + hour * 4 + $1] } }
        }
    }

    /// Openings per calendar month, keyed "YYYY-MM".
    public var monthlyTrend: [String: Int] {
        var result: [String: Int] = [:]
        for (key, count) in startsByMonth { result[Self.monthFirstDay(key).dateString.prefix(7).description] = count }
        return result
    }

    /// Openings per calendar year, keyed "YYYY".
    public var yearlyTrend: [String: Int] {
        var result: [String: Int] = [:]
        for (key, count) in startsByMonth {
            result[Self.monthFirstDay(key).dateString.prefix(4).description, default: 0] += count
        }
        return result
    }

    private static func monthFirstDay(_ key: Int) -> FloatingTimestamp {
        let year = key.floorDivided(by: 12)
        let days = CivilCalendar.daysFromCivil(year: year, month: key - year * 12 + 1, day: 1)
        return FloatingTimestamp(wallClockSeconds: Int64(days) * 86_400)
    }
}

/// Durations counted by their exact value in whole seconds: exact means, percentiles and maxima in memory that
/// grows with the number of distinct durations (bounded by the longest one), not with the number of openings.
public struct DurationCounts: Sendable, Equatable, Codable {
    /// Openings per duration, in seconds.
    public private(set) var counts: [Int64: Int] = [:]
    /// Durations counted.
    public private(set) var total = 0

    public init() {}

    /// Counts one duration.
    public mutating func add(seconds: Int64) {
        counts[seconds, default: 0] += 1
        total += 1
    }

    /// The durations in minutes, ascending, each with its count.
    public var ascendingMinutes: [(minutes: Double, count: Int)] {
        counts.keys.sorted().map { (Double($0) / 60, counts[$0] ?? 0) }
    }

    /// The mean in minutes, summed in ascending order as a sorted list of every duration would be (the same figure
    /// to the last bit).
    public var meanMinutes: Double? {
        guard total > 0 else { return nil }
        var sum = 0.0
        for (minutes, count) in ascendingMinutes { for _ in 0..<count { sum += minutes } }
        return sum / Double(total)
    }

    /// The nearest-rank percentile in minutes (as `OpeningStatistics.nearestRank` of the sorted durations).
    public func percentileMinutes(_ percentile: Double) -> Double? {
        guard total > 0 else { return nil }
        let rank = min(max(Int((percentile * Double(total)).rounded(.up)), 1), total)
        var seen = 0
        for (minutes, count) in ascendingMinutes {
            seen += count
            if seen >= rank { return minutes }
        }
        return nil
    }

    /// The longest duration in minutes.
    public var maxMinutes: Double? { counts.keys.max().map { Double($0) / 60 } }

    /// The durations counted in bins `binMinutes` wide from zero, at most `maximumBins` of them: the last bin takes
    /// every longer duration too (`isOpenEnded`). Empty when nothing is counted.
    public func histogram(binMinutes: Double, maximumBins: Int) -> [DurationBin] {
        guard let longest = maxMinutes, binMinutes > 0, maximumBins > 0 else { return [] }
        let count = min(Int((longest / binMinutes).rounded(.down)) + 1, maximumBins)
        var bins = (0..<count).map { DurationBin(fromMinutes: Double($0) * binMinutes, count: 0, isOpenEnded: false) }
        for (minutes, openings) in ascendingMinutes {
            bins[min(Int(minutes / binMinutes), count - 1)].count += openings
        }
        if let last = bins.indices.last, longest >= Double(count) * binMinutes {
            bins[last].isOpenEnded = true
        }
        return bins
    }
}

/// Openings whose duration falls in one bin of a histogram.
public struct DurationBin: Sendable, Equatable {
    /// The bin's lower end in minutes (inclusive).
    public let fromMinutes: Double
    /// Openings in the bin.
    public var count: Int
    /// Whether the bin also holds every longer duration (the histogram's last, cut at its number of bins).
    public var isOpenEnded: Bool
}

/// A pass's tallies: every bridge's, with the history's span, rows and latest opening (what models are stamped
/// with).
struct TallySink: OpeningSink {
    let occupancy: Bool
    /// For models: the rules whose holidays count as Sundays, and every opening's start (the source's wall clock,
    /// minutes since 1970) for the river model's links (`RiverLearner`).
    private var holidays: HolidaySundays?
    private(set) var startMinutes: [String: [Int32]] = [:]
    private(set) var tallies: [String: OpeningTally] = [:]
    private(set) var rows = 0
    private(set) var firstDay: Int?
    private(set) var lastDay: Int?
    private(set) var latestOpenedAt: Int64?
    private var current: OpeningTally?

    init(occupancy: Bool, rules: RuleCalendar? = nil) {
        self.occupancy = occupancy
        holidays = occupancy ? rules.map(HolidaySundays.init) : nil
    }

    mutating func begin(bridgeID: String) {
        park()
        current = tallies.removeValue(forKey: bridgeID) ?? OpeningTally(bridgeID: bridgeID, occupancy: occupancy)
    }

    mutating func take(record: OpeningRecordDTO) {
        rows += 1
        current?.add(row: record)
        let day = Int(record.openWall.floorDivided(by: 86_400))
        if firstDay.map({ day < $0 }) ?? true { firstDay = day }
        if lastDay.map({ day > $0 }) ?? true { lastDay = day }
        if latestOpenedAt.map({ record.openedAt > $0 }) ?? true { latestOpenedAt = record.openedAt }
    }

    mutating func take(opening: MergedOpening) {
        guard occupancy else { return current?.add(opening) ?? () }
        let sunday = holidays?.countsAsSunday(opening.bridgeID, day: opening.startLocal) ?? false
        current?.add(opening, asSunday: sunday)
        startMinutes[opening.bridgeID, default: []].append(
            Int32(truncatingIfNeeded: opening.startLocal.wallClockSeconds.floorDivided(by: 60)))
    }

    private mutating func park() {
        if let current { tallies[current.bridgeID] = current }
        current = nil
    }

    /// The tallies, the current one included.
    func finished() -> Tallies {
        var copy = self
        copy.park()
        return Tallies(byBridge: copy.tallies, rows: rows, span: HistorySpan(firstDayNumber: firstDay, lastDayNumber: lastDay),
                       latestOpening: latestOpenedAt.map { Date(timeIntervalSince1970: Double($0)) },
                       startMinutes: startMinutes.mapValues { starts in
                           // In history order already but for a fall-back hour: a copy only then.
                           zip(starts, starts.dropFirst()).allSatisfy { $0 <= $1 } ? starts : starts.sorted()
                       }, rules: holidays?.rules)
    }
}

/// Which days of a bridge count as Sundays in its model: the federal holidays that lift its curfew. Holiday lists
/// are kept by year here, so an opening costs a dictionary look-up, not a calendar computation.
struct HolidaySundays: Sendable {
    let rules: RuleCalendar
    private var liftedByBridgeYear: [String: Set<Int>] = [:]

    init(rules: RuleCalendar) { self.rules = rules }

    mutating func countsAsSunday(_ bridgeID: String, day reading: FloatingTimestamp) -> Bool {
        guard rules.curfew(of: bridgeID) != nil else { return false }
        let key = "\(bridgeID) \(reading.year)"
        if liftedByBridgeYear[key] == nil {
            liftedByBridgeYear[key] = Set(rules.liftedDays(bridgeID, inYear: reading.year))
        }
        return liftedByBridgeYear[key]?.contains(reading.dayNumber) ?? false
    }
}

/// Every bridge's tally over a scope, with what the whole scope says.
public struct Tallies: Sendable, Equatable, Codable {
    public var byBridge: [String: OpeningTally]
    /// Rows of the scope.
    public var rows: Int
    /// The local days from the scope's first row to its last.
    public var span: HistorySpan
    /// The latest opening instant of the scope.
    public var latestOpening: Date?
    /// Every bridge's merged opening starts on the source's wall clock, in minutes since 1970, sorted (tallies with
    /// occupancy only: what models learn followers from; not kept with the tallies).
    public var startMinutes: [String: [Int32]] = [:]
    /// The rules whose holidays counted as Sundays (tallies with occupancy only).
    public var rules: RuleCalendar?

    private enum CodingKeys: String, CodingKey { case byBridge, rows, span, latestOpening }

    /// Tallies of records in memory (any order).
    public init(records: [OpeningRecordDTO], mergeGap: TimeInterval, occupancy: Bool = true, rules: RuleCalendar? = nil) {
        self = TallySink(occupancy: occupancy, rules: rules).fed(records, mergeGap: mergeGap).finished()
    }

    init(byBridge: [String: OpeningTally], rows: Int, span: HistorySpan, latestOpening: Date?,
         startMinutes: [String: [Int32]] = [:], rules: RuleCalendar? = nil) {
        self.byBridge = byBridge
        self.rows = rows
        self.span = span
        self.latestOpening = latestOpening
        self.startMinutes = startMinutes
        self.rules = rules
    }

    /// One bridge's tally (an empty one when it has no records).
    public subscript(bridgeID: String) -> OpeningTally {
        byBridge[bridgeID] ?? OpeningTally(bridgeID: bridgeID)
    }

    /// Tallies of several parts of a history (disjoint sets of bridges) as one.
    static func merged(_ parts: [Tallies]) -> Tallies {
        var byBridge: [String: OpeningTally] = [:]
        for part in parts { byBridge.merge(part.byBridge) { first, _ in first } }
        let firsts = parts.compactMap(\.span.firstDay?.dayNumber)
        let lasts = parts.compactMap(\.span.lastDay?.dayNumber)
        var starts: [String: [Int32]] = [:]
        for part in parts { starts.merge(part.startMinutes) { first, _ in first } }
        return Tallies(byBridge: byBridge, rows: parts.reduce(0) { $0 + $1.rows },
                       span: HistorySpan(firstDayNumber: firsts.min(), lastDayNumber: lasts.max()),
                       latestOpening: parts.compactMap(\.latestOpening).max(), startMinutes: starts,
                       rules: parts.compactMap(\.rules).first)
    }
}

extension EventHistory {
    /// Every bridge's tally over `scope`, in one read.
    func tallies(_ scope: HistoryScope, mergeGap: TimeInterval, occupancy: Bool, rules: RuleCalendar? = nil) async throws
        -> Tallies
    {
        try await pass(TallySink(occupancy: occupancy, rules: rules), scope: scope, mergeGap: mergeGap).finished()
    }
}

extension Int {
    /// Division rounding toward negative infinity.
    func floorDivided(by divisor: Int) -> Int {
        let quotient = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }
}

