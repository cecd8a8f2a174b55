import BridgetDTOs
import BridgetNetworking
import Foundation

/// A Socrata-shaped dataset for tests and drills: realistic rows plus the awkward ones a real client meets.
///
/// Besides generated openings it holds clusters of rows that share one `opendatetime` (so paging must break ties by
/// `:id`), rows with omitted fields, and rows on both DST transition days. Each row has a hidden `:id`, assigned in
/// a shuffled order as a real store would, so ordering by `opendatetime` alone is not a total order.
public struct FixtureDataset: Sendable {
    /// A row and its hidden `:id`.
    public struct Record: Sendable {
        public let id: Int
        public let row: SocrataRow
    }

    /// The records in storage order.
    public private(set) var records: [Record] {
        didSet { ordered = Self.order(records) }
    }
    /// The records in `$order=opendatetime,:id` order, kept sorted so a page costs no sort.
    public private(set) var ordered: [Record]

    /// Creates a dataset from rows, ids assigned in order.
    public init(rows: [SocrataRow]) {
        records = rows.enumerated().map { Record(id: $0.offset, row: $0.element) }
        ordered = Self.order(records)
    }

    private static func order(_ records: [Record]) -> [Record] {
        records.sorted { ($0.row.opendatetime ?? "", $0.id) < ($1.row.opendatetime ?? "", $1.id) }
    }

    /// `count` rows: generated days from 2024-01-01 on (seeded), with the special rows mixed in.
    public static func generate(rows count: Int, seed: UInt64 = 1) -> FixtureDataset {
        let generator = SampleOpeningGenerator(seed: seed, invalidRowRate: 0.002)
        var rows = specialRows
        // From 2024 for the tests' sizes; a large dataset starts early enough (about 38 rows a day) to end before
        // 2026-11, so its rows are not rejected as future openings.
        var day = min(CivilCalendar.daysFromCivil(year: 2024, month: 1, day: 1),
                      CivilCalendar.daysFromCivil(year: 2026, month: 11, day: 1) - count / 30)
        while rows.count < count {
            rows += generator.rows(forDay: day)
            day += 1
        }
        rows = Array(rows.prefix(max(count, 0)))
        var random = SeededGenerator(seed: seed)
        rows.shuffle(using: &random)
        return FixtureDataset(rows: rows)
    }

    /// Appends rows (a dataset update), giving them new ids.
    public mutating func append(_ rows: [SocrataRow]) {
        let start = (records.map(\.id).max() ?? -1) + 1
        records += rows.enumerated().map { Record(id: start + $0.offset, row: $0.element) }
    }

    /// The awkward rows: same-minute clusters, omitted fields, DST days.
    public static let specialRows: [SocrataRow] = {
        var rows: [SocrataRow] = []
        let bridges = BridgeCatalog.seattle.bridges
        for (open, close) in [("2024-01-02T09:00:00.000", "2024-01-02T09:04:00.000"),
                              ("2024-01-02T09:05:00.000", "2024-01-02T09:09:00.000")] {
            for bridge in bridges { rows.append(row(bridge, open: open, close: close, minutes: "4")) }
        }
        let fremont = bridges[2]
        rows.append(row(fremont, open: "2024-01-03T10:00:00.000", close: "2024-01-03T10:06:00.000", minutes: nil))
        rows.append(row(bridges[1], open: "2024-01-03T11:00:00.000", close: nil, minutes: nil))
        var noCoordinates = row(bridges[3], open: "2024-01-03T12:00:00.000", close: "2024-01-03T12:05:00.000", minutes: "5")
        noCoordinates.latitude = nil
        noCoordinates.longitude = nil
        rows.append(noCoordinates)
        rows.append(row(fremont, open: "2024-03-10T01:55:00.000", close: "2024-03-10T03:02:00.000", minutes: "7"))
        rows.append(row(fremont, open: "2024-11-03T01:30:00.000", close: "2024-11-03T01:36:00.000", minutes: "6"))
        rows.append(row(bridges[1], open: "2024-11-03T01:55:00.000", close: "2024-11-03T01:02:00.000", minutes: "7"))
        return rows
    }()

    /// A well-formed row for a catalog bridge.
    public static func row(_ bridge: BridgeInfoDTO, open: String, close: String?, minutes: String?) -> SocrataRow {
        SocrataRow(entityname: bridge.name, entityid: bridge.id, opendatetime: open, closedatetime: close,
                   minutesopen: minutes, latitude: "\(bridge.latitude)", longitude: "\(bridge.longitude)")
    }
}
