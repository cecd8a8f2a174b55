import Foundation

/// Opening figures for one bridge over the stored history.
///
/// Every figure counts physical openings: stored rows of one bridge less than the merge gap apart
/// (`StatisticsDTO.mergeGapMinutes`) are one opening, from the first row's opening to the last row's closing.
/// Durations are close − open in minutes over openings that have a closing time. Percentiles use the nearest-rank
/// rule: the p-th percentile of n sorted values is the value at 1-based rank ⌈p·n⌉ (so the median of 4 values is
/// the 2nd). `openingsPerDay` divides by the days of the whole history (`StatisticsDTO.days`), so bridges compare.
/// Local times are the source's wall-clock readings (Seattle's, or Amsterdam's for NDW); weeks start on Monday.
public struct BridgeStatisticsDTO: Sendable, Codable, Equatable {
    public let bridgeID: String
    public let bridgeName: String
    /// Number of stored openings.
    public let openings: Int
    /// Openings divided by the history's days.
    public let openingsPerDay: Double
    /// Openings that have a closing time (the durations' sample size).
    public let timedOpenings: Int
    public let meanMinutes: Double?
    public let medianMinutes: Double?
    public let p90Minutes: Double?
    public let maxMinutes: Double?
    /// The source's local hour (0–23) in which most openings start; ties go to the earlier hour.
    public let busiestHour: Int?
    /// Openings that started in `busiestHour`.
    public let busiestHourOpenings: Int
    /// First and last opening.
    public let firstOpening: Date?
    public let lastOpening: Date?
    /// Stored rows behind `openings` (more when fragments were merged).
    public let rows: Int
    /// Openings per day for each month of the year (January first), over the days of that month in the history;
    /// `nil` for a month the history does not cover.
    public let openingsPerDayByMonth: [Double?]
    /// Openings by the source's local weekday (Monday first) and hour: 7 rows of 24.
    public let hourOfWeek: [[Int]]
    /// Openings per calendar month, keyed `YYYY-MM`.
    public let monthlyTrend: [String: Int]
    /// Openings per calendar year, keyed `YYYY`.
    public let yearlyTrend: [String: Int]

    /// Creates bridge statistics.
    public init(
        bridgeID: String, bridgeName: String, openings: Int, openingsPerDay: Double, timedOpenings: Int,
        meanMinutes: Double?, medianMinutes: Double?, p90Minutes: Double?, maxMinutes: Double?,
        busiestHour: Int?, busiestHourOpenings: Int, firstOpening: Date?, lastOpening: Date?, rows: Int,
        openingsPerDayByMonth: [Double?], hourOfWeek: [[Int]], monthlyTrend: [String: Int], yearlyTrend: [String: Int]
    ) {
        self.bridgeID = bridgeID
        self.bridgeName = bridgeName
        self.openings = openings
        self.openingsPerDay = openingsPerDay
        self.timedOpenings = timedOpenings
        self.meanMinutes = meanMinutes
        self.medianMinutes = medianMinutes
        self.p90Minutes = p90Minutes
        self.maxMinutes = maxMinutes
        self.busiestHour = busiestHour
        self.busiestHourOpenings = busiestHourOpenings
        self.firstOpening = firstOpening
        self.lastOpening = lastOpening
        self.rows = rows
        self.openingsPerDayByMonth = openingsPerDayByMonth
        self.hourOfWeek = hourOfWeek
        self.monthlyTrend = monthlyTrend
        self.yearlyTrend = yearlyTrend
    }
}

/// Network-wide opening statistics, one entry per catalog bridge (bridges without events included).
public struct StatisticsDTO: Sendable, Codable, Equatable {
    /// When the figures were computed.
    public let generatedAt: Date
    /// The source's local date of the first stored opening (`YYYY-MM-DD`), if any.
    public let firstDay: String?
    /// The source's local date of the last stored opening, if any.
    public let lastDay: String?
    /// Calendar days from `firstDay` to `lastDay` inclusive (0 with no history).
    public let days: Int
    /// All openings, fragments merged.
    public let totalOpenings: Int
    /// All stored rows.
    public let totalRows: Int
    /// Rows of one bridge closer than this are one opening (0: no merging).
    public let mergeGapMinutes: Double
    /// Network-wide openings by weekday (Monday first) and hour.
    public let hourOfWeek: [[Int]]
    /// Per bridge, in catalog order.
    public let bridges: [BridgeStatisticsDTO]

    /// Creates statistics.
    public init(
        generatedAt: Date, firstDay: String?, lastDay: String?, days: Int, totalOpenings: Int, totalRows: Int,
        mergeGapMinutes: Double, hourOfWeek: [[Int]], bridges: [BridgeStatisticsDTO]
    ) {
        self.generatedAt = generatedAt
        self.firstDay = firstDay
        self.lastDay = lastDay
        self.days = days
        self.totalOpenings = totalOpenings
        self.totalRows = totalRows
        self.mergeGapMinutes = mergeGapMinutes
        self.hourOfWeek = hourOfWeek
        self.bridges = bridges
    }
}
