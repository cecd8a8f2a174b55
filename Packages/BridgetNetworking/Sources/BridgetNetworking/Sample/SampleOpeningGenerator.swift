import BridgetDTOs
import Foundation

/// Generates realistic Socrata-shaped opening rows, deterministically: a day's rows depend only on the seed and the
/// day, so any date range gives the same rows for the days it shares with another.
///
/// Why bridges open comes from `SampleVesselWorld`: vessels pass the bridges of a waterway in order (an opening at
/// Ballard is followed by one at Fremont some minutes later), the Locks bunch them, the rush-hour curfew holds small
/// vessels (not on federal holidays), dated deviations close a bridge for an event; more traffic in summer and at
/// weekends. This type adds what the record shows of each opening: durations with a median near 5 minutes and a long
/// tail; a few percent of openings recorded as two fragments a minute apart; and, at `invalidRowRate`, rows that
/// break one validation rule. Given `profiles`, bridges open independently instead (a Poisson process per bridge
/// with an hour-of-day profile): what a test of rates alone wants.
public struct SampleOpeningGenerator: Sendable {
    /// The seed; the same seed and days give byte-identical rows.
    public let seed: UInt64
    /// The bridges to generate for.
    public let catalog: BridgeCatalog
    /// Share of openings written as an invalid row (0…1).
    public let invalidRowRate: Double
    /// Share of openings recorded as two fragments.
    public let fragmentRate: Double
    /// The vessels behind the openings.
    public let world: SampleVesselWorld
    private let profiles: [String: SampleBridgeProfile]?
    private let time = LocalClock.seattle

    /// Creates a generator.
    public init(
        seed: UInt64, catalog: BridgeCatalog = .seattle, invalidRowRate: Double = 0.002, fragmentRate: Double = 0.03,
        world: SampleVesselWorld = .seattle(), profiles: [String: SampleBridgeProfile]? = nil
    ) {
        self.seed = seed
        self.catalog = catalog
        self.invalidRowRate = min(max(invalidRowRate, 0), 1)
        self.fragmentRate = min(max(fragmentRate, 0), 1)
        self.world = world
        self.profiles = profiles
    }

    /// All rows of one Seattle local day (days since 1970-01-01), bridges in catalog order, each by opening time.
    public func rows(forDay day: Int) -> [SocrataRow] {
        let requests = profiles == nil ? world.requests(forDay: day, seed: seed) : [:]
        return catalog.bridges.flatMap { rows(forDay: day, bridge: $0, requests: requests[$0.id]) }
    }

    /// One bridge's rows for one day.
    public func rows(forDay day: Int, bridge: BridgeInfoDTO) -> [SocrataRow] {
        rows(forDay: day, bridge: bridge,
             requests: profiles == nil ? world.requests(forDay: day, seed: seed)[bridge.id] : nil)
    }

    /// One bridge's rows for one day, from the minutes vessels asked it to open (or, without them, its profile).
    private func rows(forDay day: Int, bridge: BridgeInfoDTO, requests: [Int]?) -> [SocrataRow] {
        var random = SeededGenerator(mixing: seed, SeededGenerator.digest(bridge.id), UInt64(bitPattern: Int64(day)))
        let (year, month, dayOfMonth) = CivilCalendar.civilFromDays(day)
        guard let midnight = FloatingTimestamp(year: year, month: month, day: dayOfMonth, hour: 0, minute: 0) else {
            return []
        }
        let starts: [Int] // minute of day
        if let requests {
            starts = requests
        } else if let profile = profiles?[bridge.id]
                    ?? (world.bridgeIDs.contains(bridge.id) ? nil : SampleBridgeProfile.seattleDefault(for: bridge)) {
            starts = independentStarts(profile: profile, midnight: midnight, dayOfYear: day
                - CivilCalendar.daysFromCivil(year: year, month: 1, day: 1), using: &random)
        } else {
            starts = []
        }
        let curfew = { (reading: FloatingTimestamp) in
            self.profiles?[bridge.id].map { $0.isCurfew(weekday: reading.weekday, hour: reading.hour) } ?? false
        }

        var rows: [SocrataRow] = []
        var busyUntil = -1_000
        for start in starts where start > busyUntil {
            let minutes = duration(using: &random)
            busyUntil = start + minutes + 2
            let readingWall = midnight.wallClockSeconds + Int64(start * 60)
            guard let opening = openingInstant(wall: readingWall) else { continue }
            let fragment = random.nextUnit() < fragmentRate && minutes >= 4
            let invalid = random.nextUnit() < invalidRowRate
            let corruption = random.next()
            var pieces: [(Date, Int)] = [(opening, minutes)]
            if fragment {
                let first = 1 + Int(random.next() % UInt64(minutes - 2))
                let secondStart = opening.addingTimeInterval(Double(first + 1) * 60)
                // A fragment's row must not start inside a curfew either: such a row reads as a forbidden opening.
                let secondReading = time.reading(for: secondStart)
                if !curfew(secondReading) && !world.rules.curfewHolds(bridge.id, at: secondReading) {
                    pieces = [(opening, first), (secondStart, minutes - first - 1)]
                }
            }
            for (index, piece) in pieces.enumerated() {
                let row = makeRow(bridge: bridge, opening: piece.0, minutes: piece.1)
                if invalid && index == 0 {
                    rows += corrupt(row, bridge: bridge, choice: corruption)
                } else {
                    rows.append(row)
                }
            }
        }
        return rows
    }

    /// Starts of a bridge opening on its own: a Poisson number a day, hours drawn from its profile, none in its curfew.
    private func independentStarts(profile: SampleBridgeProfile, midnight: FloatingTimestamp, dayOfYear: Int,
                                   using random: inout SeededGenerator) -> [Int] {
        let weekday = midnight.weekday
        // Summer peak in mid-July, winter trough in mid-January; weekends busier (weights average to 1).
        let season = 1 + 0.4 * cos(2 * Double.pi * Double(dayOfYear - 196) / 365.25)
        let weekFactor = (weekday == 1 || weekday == 7) ? 1.25 : 0.9
        let expected = profile.openingsPerYear / 365.25 * season * weekFactor
        var hourWeights = profile.hourWeights
        for hour in 0..<24 where profile.isCurfew(weekday: weekday, hour: hour) { hourWeights[hour] = 0 }
        var starts: [Int] = []
        for _ in 0..<SampleVesselWorld.poisson(mean: expected, using: &random) {
            let hour = SampleVesselWorld.pick(hourWeights, using: &random)
            starts.append(hour * 60 + Int(random.next() % 60))
        }
        return starts.sorted()
    }

    private func openingInstant(wall: Int64) -> Date? {
        guard let instant = time.instants(for: FloatingTimestamp(wallClockSeconds: wall)).first else {
            return nil // a sensor never records a reading inside the spring-forward gap
        }
        return instant
    }

    private func makeRow(bridge: BridgeInfoDTO, opening: Date, minutes: Int) -> SocrataRow {
        let closing = opening.addingTimeInterval(Double(minutes) * 60)
        return SocrataRow(
            entityname: bridge.name, entityid: bridge.id,
            opendatetime: time.reading(for: opening).description,
            closedatetime: time.reading(for: closing).description,
            minutesopen: String(minutes),
            latitude: "\(bridge.latitude)", longitude: "\(bridge.longitude)")
    }

    /// Breaks exactly one validation rule (or duplicates the row), chosen by `choice`.
    private func corrupt(_ row: SocrataRow, bridge: BridgeInfoDTO, choice: UInt64) -> [SocrataRow] {
        var bad = row
        switch choice % 10 {
        case 0: bad.entityid = "99"
        case 1: bad.entityname = " "
        case 2: bad.opendatetime = "not a time"
        case 3: bad.closedatetime = "2099-99-99T99:99:99.999"
        case 4: (bad.opendatetime, bad.closedatetime) = (row.closedatetime, row.opendatetime)
        case 5: bad.opendatetime = "1999-" + String((row.opendatetime ?? "").dropFirst(5))
        case 6: bad.minutesopen = "-" + (row.minutesopen ?? "1")
        case 7: bad.minutesopen = String((Int(row.minutesopen ?? "0") ?? 0) + 7)
        case 8: bad.latitude = "\(bridge.latitude + 0.25)"
        default: return [row, row]
        }
        return [bad]
    }

    /// Minutes open: log-normal around 5 minutes, with a tail of long holds.
    private func duration(using random: inout SeededGenerator) -> Int {
        if random.nextUnit() < 0.04 { return 12 + Int(random.next() % 34) }
        let u1 = max(random.nextUnit(), 1e-12)
        let u2 = random.nextUnit()
        let normal = (-2 * log(u1)).squareRoot() * cos(2 * Double.pi * u2)
        return max(1, Int((5 * exp(0.35 * normal)).rounded()))
    }
}
