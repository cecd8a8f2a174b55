import BridgetDTOs
import Foundation

/// Why the sample's bridges open: vessels moving through Seattle's waterways, each raising the bridges it passes, in
/// order, at the times its speed brings it there (`../shared/DOMAIN.md`, "Why bridges open").
///
/// Every parameter, and where it comes from:
/// - **Waterways and positions** (statute miles from the Sound). Ship Canal: the Locks 0.5, Ballard 1.1, Salmon Bay's
///   moorings (Fishermen's Terminal) 1.6, Fremont 2.6, Lake Union 3.4, University 4.3, Portage Bay 4.8, Montlake
///   5.2, Lake Washington 5.9. Duwamish: Elliott Bay 0, 1st Ave South 2.0, the terminals between 2.6, South Park
///   3.8, the upper river 4.6. The West Waterway's swing bridge (Lower Spokane St) is its own waterway. Bridge miles
///   from DOMAIN.md; the places between are assumed.
/// - **Routes** and their transits a year (both directions, half each way), chosen so the yearly openings come near
///   the observed ones (Fremont about 3,600, Ballard 2,800, University 2,400, Montlake 1,750, Lower Spokane St
///   1,650, 1st Ave South 1,350, South Park 950): see `seattle`.
/// - **Which bridges a vessel needs**: Fremont and University (about 30 ft of clearance) open for every transit that
///   needs any opening; Ballard (44 ft) for 70% of those that pass it, Montlake (46 ft) for 75% (assumed shares:
///   lower masts pass under the higher spans).
/// - **Speed**: 5 to 7.5 knots, uniform per vessel (a 7-knot limit is commonly cited), so Ballard → Fremont takes
///   10–16 minutes; crossing Lake Union adds 0–8 minutes of manoeuvring.
/// - **Vessels**: 3% large (1,000 gross tons and more, or public: never held, any hour, the industrial hour
///   profile), the rest recreational (the daytime profile); on the Duwamish every vessel is commercial.
/// - **The Locks** pass eastbound vessels from the Sound in lockages every 40 minutes (the day's first at a seeded
///   minute), so those vessels reach Ballard together and share its opening.
/// - **The curfew** (`RuleCalendar.seattle`): a recreational vessel reaching a Ship Canal bridge on a weekday
///   07:00–09:00 or 16:00–18:00 waits there until the window ends (then 0–6 minutes more); federal holidays lift it.
/// - **Dated deviations** (`deviations(inYear:)`): a bridge closed for an event holds every vessel until it ends.
/// - **Calendar**: more traffic in summer (×1.4 in mid-July, ×0.6 in mid-January), at weekends and on federal
///   holidays (×1.25, against ×0.9 on working days).
/// - **Openings**: a vessel reaching a bridge that is open, or was raised in the last 2 minutes, passes with it; a
///   held vessel waits 0–3 minutes more for the span. Durations, fragments and invalid rows: `SampleOpeningGenerator`.
public struct SampleVesselWorld: Sendable {
    /// One waterway: its bridges (id and mile) and the routes vessels take along it.
    public struct Waterway: Sendable {
        public let name: String
        /// Bridge id, mile and the share of passing vessels that need it raised.
        public let bridges: [(id: String, mile: Double, needShare: Double)]
        public let routes: [Route]
        /// Whether every vessel is commercial (the industrial hour profile, never held by a curfew).
        public let commercial: Bool
        /// The mile of the Locks, if vessels from below it are passed in lockages; and of a lake crossed mid-way.
        public let locksMile: Double?
        public let lakeMile: Double?
    }

    /// Transits between two places, both directions.
    public struct Route: Sendable {
        public let fromMile: Double
        public let toMile: Double
        public let transitsPerYear: Double
    }

    public let waterways: [Waterway]
    /// Scales every route's transits (`sample.rate_scale`).
    public let rateScale: Double
    /// Share of canal vessels that are large (never held by the curfew).
    public let largeShare = 0.03
    /// Minutes between lockages at the Locks.
    public let lockageMinutes = 40
    /// The rules vessels meet.
    public let rules: RuleCalendar

    /// Seattle's waterways with the routes above, each route's transits scaled by `rateScale`.
    public static func seattle(rateScale: Double = 1) -> SampleVesselWorld {
        let canal = Waterway(
            name: "Lake Washington Ship Canal",
            bridges: [("2", 1.1, 0.7), ("3", 2.6, 1), ("21", 4.3, 1), ("4", 5.2, 0.75)],
            routes: [
                Route(fromMile: 0, toMile: 1.6, transitsPerYear: 500), // the Sound ↔ Salmon Bay
                Route(fromMile: 0, toMile: 3.4, transitsPerYear: 1_500), // the Sound ↔ Lake Union
                Route(fromMile: 0, toMile: 5.9, transitsPerYear: 2_100), // the Sound ↔ Lake Washington
                Route(fromMile: 1.6, toMile: 3.4, transitsPerYear: 300), // Salmon Bay ↔ Lake Union
                Route(fromMile: 3.4, toMile: 5.9, transitsPerYear: 250), // Lake Union ↔ Lake Washington
                Route(fromMile: 3.4, toMile: 4.8, transitsPerYear: 250), // Lake Union ↔ Portage Bay
                Route(fromMile: 4.8, toMile: 5.9, transitsPerYear: 200), // Portage Bay ↔ Lake Washington
            ],
            commercial: false, locksMile: 0.5, lakeMile: 3.4)
        let duwamish = Waterway(
            name: "Duwamish Waterway",
            bridges: [("1", 2.0, 1), ("29", 3.8, 1)],
            routes: [
                Route(fromMile: 0, toMile: 4.6, transitsPerYear: 900), // Elliott Bay ↔ the upper river
                Route(fromMile: 0, toMile: 2.6, transitsPerYear: 470), // Elliott Bay ↔ the terminals
                Route(fromMile: 2.6, toMile: 4.6, transitsPerYear: 60), // the terminals ↔ the upper river
            ],
            commercial: true, locksMile: nil, lakeMile: nil)
        let westWaterway = Waterway(
            name: "Duwamish West Waterway", bridges: [("6", 1.0, 1)],
            routes: [Route(fromMile: 0, toMile: 2, transitsPerYear: 1_700)],
            commercial: true, locksMile: nil, lakeMile: nil)
        return SampleVesselWorld(waterways: [canal, duwamish, westWaterway], rateScale: rateScale, rules: .seattle)
    }

    /// Creates a world.
    public init(waterways: [Waterway], rateScale: Double, rules: RuleCalendar) {
        self.waterways = waterways
        self.rateScale = max(rateScale, 0)
        self.rules = rules
    }

    /// The bridges the world moves vessels through.
    public var bridgeIDs: Set<String> { Set(waterways.flatMap { $0.bridges.map(\.id) }) }

    /// The sample's dated deviations of `year`: Montlake closed for the "Beat the Bridge" run on the third Sunday of
    /// May, 08:00–10:30; Fremont and University closed for a 10K on the first Sunday of October, 07:30–10:00.
    public static func deviations(inYear year: Int) -> [RuleDeviationDTO] {
        func sunday(_ n: Int, of month: Int) -> String {
            let first = CivilCalendar.daysFromCivil(year: year, month: month, day: 1)
            let firstSunday = first + (6 - (first + 3) % 7 + 7) % 7
            return FloatingTimestamp(wallClockSeconds: Int64(firstSunday + 7 * (n - 1)) * 86_400).dateString
        }
        let may = sunday(3, of: 5)
        let october = sunday(1, of: 10)
        return [
            RuleDeviationDTO(id: "sample-\(may)-montlake", bridgeIDs: ["4"], from: may + "T08:00:00",
                             until: may + "T10:30:00", reason: "Beat the Bridge run (sample)",
                             source: "sample calendar"),
            RuleDeviationDTO(id: "sample-\(october)-10k", bridgeIDs: ["3", "21"], from: october + "T07:30:00",
                             until: october + "T10:00:00", reason: "a 10K run (sample)", source: "sample calendar"),
        ]
    }

    /// The minutes of day `day` (a Seattle local day number) at which each bridge is asked to open, by bridge id,
    /// sorted. Deterministic in (seed, waterway, day); a transit that would reach a bridge after midnight is not
    /// generated.
    func requests(forDay day: Int, seed: UInt64) -> [String: [Int]] {
        let (year, _, _) = CivilCalendar.civilFromDays(day)
        let midnight = FloatingTimestamp(wallClockSeconds: Int64(day) * 86_400)
        let holiday = rules.holiday(onDay: day)
        let weekend = midnight.weekday == 1 || midnight.weekday == 7 || holiday != nil
        let dayOfYear = day - CivilCalendar.daysFromCivil(year: year, month: 1, day: 1)
        let season = 1 + 0.4 * cos(2 * Double.pi * Double(dayOfYear - 196) / 365.25)
        let dayFactor = (weekend ? 1.25 : 0.9) * season * rateScale
        let deviations = rules.deviations + Self.deviations(inYear: year)
        var requests: [String: [Int]] = [:]
        for waterway in waterways {
            var random = SeededGenerator(mixing: seed, SeededGenerator.digest("vessels " + waterway.name),
                                         UInt64(bitPattern: Int64(day)))
            let firstLockage = Int(random.next() % UInt64(lockageMinutes))
            for route in waterway.routes {
                for upstream in [true, false] {
                    let mean = route.transitsPerYear / 2 / 365.25 * dayFactor
                    for _ in 0..<Self.poisson(mean: mean, using: &random) {
                        let large = waterway.commercial || random.nextUnit() < largeShare
                        let profile = large ? SampleBridgeProfile.industrial : SampleBridgeProfile.daytime
                        var minute = Double(Self.pick(profile, using: &random) * 60) + random.nextUnit() * 60
                        let from = upstream ? route.fromMile : route.toMile
                        let to = upstream ? route.toMile : route.fromMile
                        if let locks = waterway.locksMile, from < locks, to > locks {
                            // Through the Locks eastbound: out with the next lockage.
                            let since = (Int(minute) - firstLockage).floorModulo(lockageMinutes)
                            minute += Double((lockageMinutes - since) % lockageMinutes)
                        }
                        let minutesPerMile = 60 / ((5 + 2.5 * random.nextUnit()) * 1.15)
                        var mile = from
                        let passed = waterway.bridges.filter { min(from, to) < $0.mile && $0.mile < max(from, to) }
                        for bridge in (upstream ? passed : passed.reversed()) {
                            minute += abs(bridge.mile - mile) * minutesPerMile
                            if let lake = waterway.lakeMile, (mile - lake) * (bridge.mile - lake) < 0 {
                                minute += random.nextUnit() * 8
                            }
                            mile = bridge.mile
                            let needs = random.nextUnit() < bridge.needShare
                            guard needs else { continue }
                            // Held by the curfew (small vessels) or a deviation (every vessel) until it ends.
                            while minute < 1_440 {
                                let reading = FloatingTimestamp(wallClockSeconds: Int64(day) * 86_400 + Int64(minute) * 60)
                                if let closed = deviations.first(where: { $0.closes(bridge.id, at: reading) }),
                                   let end = closed.untilReading {
                                    minute = Double((end.wallClockSeconds - Int64(day) * 86_400) / 60) + random.nextUnit() * 6
                                } else if !large, rules.curfewHolds(bridge.id, at: reading),
                                          let window = rules.curfew(of: bridge.id)?.windows.first(where: {
                                              $0.fromMinute <= reading.hour * 60 + reading.minute
                                                  && reading.hour * 60 + reading.minute < $0.untilMinute }) {
                                    minute = Double(window.untilMinute) + random.nextUnit() * 6
                                } else {
                                    break
                                }
                            }
                            minute += random.nextUnit() * 3
                            guard minute < 1_440 else { break }
                            requests[bridge.id, default: []].append(Int(minute))
                        }
                    }
                }
            }
        }
        return requests.mapValues { $0.sorted() }
    }

    /// An hour of the day drawn from `weights`.
    static func pick(_ weights: [Double], using random: inout SeededGenerator) -> Int {
        var pick = random.nextUnit() * weights.reduce(0, +)
        var hour = 0
        while hour < 23 && pick >= weights[hour] {
            pick -= weights[hour]
            hour += 1
        }
        return hour
    }

    static func poisson(mean: Double, using random: inout SeededGenerator) -> Int {
        let limit = exp(-mean)
        var count = 0
        var product = random.nextUnit()
        while product > limit {
            count += 1
            product *= random.nextUnit()
        }
        return count
    }
}

extension Int {
    func floorModulo(_ divisor: Int) -> Int { ((self % divisor) + divisor) % divisor }
}
