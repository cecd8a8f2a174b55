import Foundation

/// A US federal holiday on one day (its observed day when the date falls on a weekend).
public struct FederalHoliday: Sendable, Codable, Equatable, Hashable {
    /// The holiday's name, e.g. "Thanksgiving Day".
    public let name: String
    /// The local date it is observed on (`YYYY-MM-DD`).
    public let date: String

    /// Creates a holiday.
    public init(name: String, date: String) {
        self.name = name
        self.date = date
    }

    /// The day number of `date`.
    public var dayNumber: Int { FloatingTimestamp(date + "T00:00:00.000")?.dayNumber ?? 0 }

    /// The eleven federal holidays of `year` (5 U.S.C. 6103) on their observed days: a Saturday's on the Friday
    /// before, a Sunday's on the Monday after. New Year's Day of the next year observed on this year's 31 December is
    /// listed in this year.
    public static func observed(in year: Int) -> [FederalHoliday] {
        observedDays(in: year).map { FederalHoliday(name: $0.name, dayNumber: $0.day) }
    }

    /// The holiday `name` on day `dayNumber`.
    init(name: String, dayNumber: Int) {
        self.init(name: name, date: FloatingTimestamp(wallClockSeconds: Int64(dayNumber) * 86_400).dateString)
    }

    /// `observed(in:)` as names and day numbers.
    static func observedDays(in year: Int) -> [(name: String, day: Int)] {
        func date(_ month: Int, _ day: Int) -> Int { CivilCalendar.daysFromCivil(year: year, month: month, day: day) }
        /// Weekday of a day number, Monday = 0.
        func mondayFirst(_ day: Int) -> Int { (day + 3).floorModulo(7) }
        func nth(_ n: Int, weekday: Int, month: Int) -> Int {
            let first = date(month, 1)
            return first + (weekday - mondayFirst(first)).floorModulo(7) + 7 * (n - 1)
        }
        func last(weekday: Int, month: Int) -> Int {
            let end = date(month, CivilCalendar.daysInMonth(year: year, month: month))
            return end - (mondayFirst(end) - weekday).floorModulo(7)
        }
        func observed(_ day: Int) -> Int {
            switch mondayFirst(day) {
            case 5: day - 1 // Saturday → Friday
            case 6: day + 1 // Sunday → Monday
            default: day
            }
        }
        let fixed: [(String, Int)] = [
            ("New Year's Day", observed(date(1, 1))),
            ("Birthday of Martin Luther King, Jr.", nth(3, weekday: 0, month: 1)),
            ("Washington's Birthday", nth(3, weekday: 0, month: 2)),
            ("Memorial Day", last(weekday: 0, month: 5)),
            ("Juneteenth National Independence Day", observed(date(6, 19))),
            ("Independence Day", observed(date(7, 4))),
            ("Labor Day", nth(1, weekday: 0, month: 9)),
            ("Columbus Day", nth(2, weekday: 0, month: 10)),
            ("Veterans Day", observed(date(11, 11))),
            ("Thanksgiving Day", nth(4, weekday: 3, month: 11)),
            ("Christmas Day", observed(date(12, 25))),
        ]
        var result = fixed.filter { $0.1 >= date(1, 1) } // a Saturday New Year's Day is observed in the year before
        let nextNewYear = CivilCalendar.daysFromCivil(year: year + 1, month: 1, day: 1)
        if observed(nextNewYear) < nextNewYear { result.append(("New Year's Day", observed(nextNewYear))) }
        return result.map { (name: $0.0, day: $0.1) }
    }
}

/// A bridge's standing rule: it need not open to small vessels in these windows of these weekdays.
public struct CurfewRule: Sendable, Codable, Equatable {
    /// The bridges the rule covers.
    public let bridgeIDs: [String]
    /// Weekdays it applies on, Monday = 1 … Sunday = 7.
    public let weekdays: [Int]
    /// Local windows, as minutes of the day `[start, end)`.
    public let windows: [ClosedWindow]
    /// Federal holidays are exempt (the rule does not hold on them), except those named here.
    public let holidaysExempt: Bool
    public let exceptHolidays: [String]
    /// Who is passed anyway, and where the rule comes from.
    public let exemptVessels: String
    public let source: String

    /// A window of the day, in minutes from midnight.
    public struct ClosedWindow: Sendable, Codable, Equatable {
        public let fromMinute: Int
        public let untilMinute: Int

        public init(fromMinute: Int, untilMinute: Int) {
            self.fromMinute = fromMinute
            self.untilMinute = untilMinute
        }

        /// `HH:MM–HH:MM`.
        public var text: String {
            String(format: "%02d:%02d–%02d:%02d", fromMinute / 60, fromMinute % 60, untilMinute / 60, untilMinute % 60)
        }
    }

    /// Creates a rule.
    public init(bridgeIDs: [String], weekdays: [Int], windows: [ClosedWindow], holidaysExempt: Bool,
                exceptHolidays: [String] = [], exemptVessels: String, source: String) {
        self.bridgeIDs = bridgeIDs
        self.weekdays = weekdays
        self.windows = windows
        self.holidaysExempt = holidaysExempt
        self.exceptHolidays = exceptHolidays
        self.exemptVessels = exemptVessels
        self.source = source
    }
}

/// A dated exception to a bridge's usual operation, published in advance (the Coast Guard's temporary deviations,
/// a lock stoppage): between `from` and `until` (the source's local time) the bridge stays closed to vessels.
public struct RuleDeviationDTO: Sendable, Codable, Equatable, Hashable {
    /// A short stable id (`bridget rules remove ID`).
    public let id: String
    /// The bridges it keeps closed.
    public let bridgeIDs: [String]
    /// Local wall-clock start and end, `YYYY-MM-DDTHH:MM:SS`.
    public let from: String
    public let until: String
    /// Why, for people ("Beat the Bridge run").
    public let reason: String
    /// Where it was published (a Federal Register citation, a URL), if known.
    public let source: String?

    /// Creates a deviation.
    public init(id: String, bridgeIDs: [String], from: String, until: String, reason: String, source: String? = nil) {
        self.id = id
        self.bridgeIDs = bridgeIDs
        self.from = from
        self.until = until
        self.reason = reason
        self.source = source
    }

    /// Start and end as readings (`nil` when unreadable: a deviation is checked on entry, so only a corrupt document
    /// gives one).
    public var fromReading: FloatingTimestamp? { FloatingTimestamp(from + ".000") }
    public var untilReading: FloatingTimestamp? { FloatingTimestamp(until + ".000") }

    /// Whether it keeps `bridgeID` closed at `reading`.
    public func closes(_ bridgeID: String, at reading: FloatingTimestamp) -> Bool {
        guard bridgeIDs.contains(bridgeID), let start = fromReading, let end = untilReading else { return false }
        return start <= reading && reading < end
    }
}

/// The rules that decide when a bridge may open: standing curfews, the federal holidays that lift them, and dated
/// deviations. Data, not code: forecasts read it, the bridge page shows it, `bridget rules` edits the deviations.
public struct RuleCalendar: Sendable, Codable, Equatable {
    public let curfews: [CurfewRule]
    public let deviations: [RuleDeviationDTO]
    /// Each bridge's deviations as wall-clock spans `[from, until)`, by start: what a forecast asks minute by minute,
    /// read once (not kept: it is made from `deviations`).
    private let closures: [String: [Closure]]

    /// A deviation's span on the wall clock.
    public struct Closure: Sendable, Equatable {
        public let from: Int64
        public let until: Int64
        public let deviation: RuleDeviationDTO
    }

    private enum CodingKeys: String, CodingKey { case curfews, deviations }

    /// Creates a calendar.
    public init(curfews: [CurfewRule], deviations: [RuleDeviationDTO] = []) {
        self.curfews = curfews
        self.deviations = deviations.sorted { ($0.from, $0.id) < ($1.from, $1.id) }
        var closures: [String: [Closure]] = [:]
        for deviation in self.deviations {
            guard let from = deviation.fromReading, let until = deviation.untilReading else { continue }
            for bridge in deviation.bridgeIDs {
                closures[bridge, default: []].append(
                    Closure(from: from.wallClockSeconds, until: until.wallClockSeconds, deviation: deviation))
            }
        }
        self.closures = closures
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(curfews: try container.decode([CurfewRule].self, forKey: .curfews),
                  deviations: try container.decode([RuleDeviationDTO].self, forKey: .deviations))
    }

    /// `bridgeID`'s closures overlapping the wall-clock span `[from, until)`.
    public func closures(of bridgeID: String, from: Int64, until: Int64) -> [Closure] {
        (closures[bridgeID] ?? []).filter { $0.from < until && $0.until > from }
    }

    /// Seattle's standing rules: 33 CFR 117.1051 for the four Ship Canal bridges (weekdays 07:00–09:00 and
    /// 16:00–18:00, federal holidays exempt, vessels of 1,000 gross tons and more and public vessels passed).
    public static let seattle = RuleCalendar(curfews: [
        CurfewRule(bridgeIDs: ["2", "3", "21", "4"], weekdays: [1, 2, 3, 4, 5],
                   windows: [ClosedWindow(fromMinute: 7 * 60, untilMinute: 9 * 60),
                             ClosedWindow(fromMinute: 16 * 60, untilMinute: 18 * 60)],
                   holidaysExempt: true,
                   exemptVessels: "vessels of 1,000 gross tons and more, public vessels",
                   source: "33 CFR 117.1051"),
    ])

    /// The same rules with other deviations.
    public func with(deviations: [RuleDeviationDTO]) -> RuleCalendar {
        RuleCalendar(curfews: curfews, deviations: deviations)
    }

    /// The federal holiday observed on day `dayNumber`, if any.
    public func holiday(onDay dayNumber: Int) -> FederalHoliday? { Self.holidayOn(dayNumber) }

    /// The curfew rule of `bridgeID`, if it has one.
    public func curfew(of bridgeID: String) -> CurfewRule? { curfews.first { $0.bridgeIDs.contains(bridgeID) } }

    /// Whether `bridgeID`'s curfew is lifted on day `dayNumber` because it is a federal holiday (the holiday then).
    public func liftedCurfew(_ bridgeID: String, onDay dayNumber: Int) -> FederalHoliday? {
        guard let rule = curfew(of: bridgeID), rule.holidaysExempt, let holiday = holiday(onDay: dayNumber),
              !rule.exceptHolidays.contains(holiday.name) else { return nil }
        let weekday = FloatingTimestamp(wallClockSeconds: Int64(dayNumber) * 86_400).mondayFirstWeekday + 1
        return rule.weekdays.contains(weekday) ? holiday : nil
    }

    /// The day numbers of `year` on which a federal holiday lifts `bridgeID`'s curfew.
    public func liftedDays(_ bridgeID: String, inYear year: Int) -> [Int] {
        Self.holidays(year).map(\.dayNumber).filter { liftedCurfew(bridgeID, onDay: $0) != nil }
    }

    /// Whether the curfew holds `bridgeID` closed to small vessels at `reading` (holidays honoured).
    public func curfewHolds(_ bridgeID: String, at reading: FloatingTimestamp) -> Bool {
        guard let rule = curfew(of: bridgeID), rule.weekdays.contains(reading.mondayFirstWeekday + 1) else { return false }
        let minute = reading.hour * 60 + reading.minute
        guard rule.windows.contains(where: { $0.fromMinute <= minute && minute < $0.untilMinute }) else { return false }
        return liftedCurfew(bridgeID, onDay: reading.dayNumber) == nil
    }

    /// The deviation keeping `bridgeID` closed at `reading`, if any.
    public func deviation(closing bridgeID: String, at reading: FloatingTimestamp) -> RuleDeviationDTO? {
        let wall = reading.wallClockSeconds
        return closures[bridgeID]?.first { $0.from <= wall && wall < $0.until }?.deviation
    }

    /// Memoised holiday lists: a forecast asks for the same year again and again.
    private static let cache = HolidayCache()
    static func holidays(_ year: Int) -> [FederalHoliday] { cache.holidays(year) }

    /// The names of the holidays of 1970–2199 by day number, made once: what a forecast asks minute by minute,
    /// without a lock. (Names and numbers only: made with their dates written out, the table took 2 ms of every
    /// `predict`.)
    private static let holidayByDay: [Int: String] = {
        var table: [Int: String] = [:]
        table.reserveCapacity(230 * 12)
        for year in 1970...2199 {
            for holiday in FederalHoliday.observedDays(in: year) { table[holiday.day] = holiday.name }
        }
        return table
    }()
    private static let tabled = CivilCalendar.daysFromCivil(year: 1970, month: 1, day: 1)...CivilCalendar.daysFromCivil(
        year: 2199, month: 12, day: 30)

    /// The federal holiday observed on day `dayNumber` (the table's, or computed outside its years).
    static func holidayOn(_ dayNumber: Int) -> FederalHoliday? {
        if tabled.contains(dayNumber) {
            return holidayByDay[dayNumber].map { FederalHoliday(name: $0, dayNumber: dayNumber) }
        }
        let year = CivilCalendar.civilFromDays(dayNumber).year
        return holidays(year).first { $0.dayNumber == dayNumber } ?? holidays(year + 1).first { $0.dayNumber == dayNumber }
    }
}

/// Holiday lists by year, computed once each.
private final class HolidayCache: @unchecked Sendable {
    // Guarded by `lock`: a plain lock keeps this file free of the Synchronization module for older platforms.
    private let lock = NSLock()
    private var byYear: [Int: [FederalHoliday]] = [:]

    func holidays(_ year: Int) -> [FederalHoliday] {
        lock.lock()
        defer { lock.unlock() }
        if let known = byYear[year] { return known }
        let computed = FederalHoliday.observed(in: year)
        byYear[year] = computed
        return computed
    }
}

extension Int {
    /// The remainder toward negative infinity (always in `0..<divisor` for a positive divisor).
    func floorModulo(_ divisor: Int) -> Int { ((self % divisor) + divisor) % divisor }
}

public typealias ClosedWindow = CurfewRule.ClosedWindow
