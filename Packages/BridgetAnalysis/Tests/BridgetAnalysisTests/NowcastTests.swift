@testable import BridgetAnalysis
import BridgetDTOs
@testable import BridgetRiver
import Foundation
import Testing

/// The river model: links learnt and earned, the arithmetic of every vessel, and the now-cast's rules.
@Suite("The river model and the now-cast")
struct NowcastTests {
    /// The world's openings as the learner reads them, and slot models built from them.
    static func learnt(_ world: PlantedWorld, learner: RiverLearner = RiverLearner())
        -> (starts: [String: [Int32]], learnt: [String: RiverLearner.Learnt])
    {
        let records = world.simulate().map {
            OpeningRecordDTO(bridgeID: $0.bridgeID, openedAt: $0.minute * 60, closedAt: $0.minute * 60 + 120,
                             openWall: $0.minute * 60)
        }
        let bridges = world.bridgeIDs.map {
            BridgeInfoDTO(id: $0, name: $0, displayName: $0, latitude: 0, longitude: 0, waterway: "w", kind: "bascule")
        }
        let tallies = Tallies(records: records, mergeGap: 60, rules: world.rules)
        let models = OpeningModelBuilder().buildAll(bridges: bridges, tallies: tallies, builtAt: Date())
        let learnt = learner.learn(startMinutes: tallies.startMinutes,
                                          models: Dictionary(uniqueKeysWithValues: models.map { ($0.bridgeID, $0) }),
                                          rules: world.rules)
        return (tallies.startMinutes, learnt)
    }

    @Test("a planted link is learnt by maximum likelihood: its share near 0.7, its lag 10–16 min, its origins apart")
    func learnsPlantedLinks() throws {
        let worlds = PlantedWorld.all(days: 400)
        let single = Self.learnt(worlds[0]).learnt
        let follow = try #require(single["B"]?.followers.first { $0.fromBridgeID == "A" })
        #expect(abs(follow.share - 0.7) < 0.06, "share \(follow.share)")
        #expect(follow.lagRange.lowerBound >= 9 && follow.lagRange.upperBound <= 17, "lag \(follow.lagRange)")
        #expect(single["A"]?.followers.isEmpty == true, "B's openings come after A's: they bring none at A")
        // The chain: B's vessels from A go on to C at 80%, B's own at 3%: told apart by the learnt lag.
        let chain = Self.learnt(worlds[2]).learnt
        let onward = try #require(chain["C"]?.followers.first { $0.fromBridgeID == "B" })
        #expect(onward.share(origin: "A") > 0.65 && onward.share(origin: "") < 0.1, "\(onward.originShares)")
        #expect(chain["C"]?.followers.contains { $0.fromBridgeID == "A" } != true, "A reaches C through B only")
        // Both ways: a vessel going away from B brings none back.
        let reverse = Self.learnt(worlds[3]).learnt
        let back = try #require(reverse["B"]?.followers.first { $0.fromBridgeID == "A" })
        #expect(back.share(origin: "B") < 0.1 && back.share(origin: "") > 0.5, "\(back.originShares)")
    }

    @Test("a long history is fitted on its newest openings: the cut keeps at most that many, the newest, and the link is the same")
    func fitsTheNewestOpenings() throws {
        let world = PlantedWorld.all(days: 400)[0]
        let (starts, full) = Self.learnt(world)
        let ids = starts.keys.sorted()
        let total = starts.values.reduce(0) { $0 + $1.count }
        let kept = RiverLearner.newest(starts, ids: ids, count: total / 3)
        let keptCount = kept.values.reduce(0) { $0 + $1.count }
        #expect(keptCount <= total / 3 && keptCount > total / 3 - 10, "\(keptCount) of \(total)")
        // The newest: every kept start is at or after every dropped one.
        let cut = kept.values.compactMap(\.first).min() ?? 0
        #expect(ids.allSatisfy { id in (starts[id] ?? []).filter { $0 >= cut } == kept[id] ?? [] })
        #expect(RiverLearner.newest(starts, ids: ids, count: total) == starts)
        // Fitted on a third of the history, the planted link comes out the same (within the third's noise), and
        // says how many openings of the whole history its source had.
        let third = Self.learnt(world, learner: RiverLearner(fitOpenings: total / 3)).learnt
        let whole = try #require(full["B"]?.followers.first { $0.fromBridgeID == "A" })
        let part = try #require(third["B"]?.followers.first { $0.fromBridgeID == "A" })
        #expect(abs(part.share - whole.share) < 0.08 && abs(part.share - 0.7) < 0.1, "\(part.share) \(whole.share)")
        #expect(part.sourceOpenings == whole.sourceOpenings && part.sourceOpenings == starts["A"]?.count)
    }

    @Test("links are earned: on independent bridges none is kept and the test's scores are centred, spread about 1",
          arguments: [(days: 300, seeds: UInt64(6)), (days: 30, seeds: 12)])
    func independentBridges(days: Int, seeds: UInt64) {
        var scores: [Double] = []
        var kept = 0
        var pairs = 0
        for seed in UInt64(1)...seeds {
            let world = PlantedWorld(
                name: "independent", summary: "", bridgeIDs: ["A", "B", "C"], links: [:],
                hourlyRates: ["A": PlantedWorld.weekly(1, rush: 2), "B": PlantedWorld.weekly(0.8, rush: 2),
                              "C": PlantedWorld.weekly(0.6, rush: 2)], days: days, seed: seed * 101)
            let (starts, learnt) = Self.learnt(world)
            kept += learnt.values.reduce(0) { $0 + $1.followers.count }
            for to in world.bridgeIDs {
                for from in world.bridgeIDs {
                    pairs += 1
                    scores.append(RiverLearner().score(from: starts[from] ?? [], to: starts[to] ?? [], targetID: to,
                                                       rules: nil))
                }
            }
        }
        let mean = scores.reduce(0, +) / Double(scores.count)
        let spread = (scores.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(scores.count - 1)).squareRoot()
        #expect(kept == 0, "\(kept) of \(pairs) pairs kept at a false-link rate of 0.1%: \(scores.sorted().suffix(5))")
        #expect(abs(mean) < 0.4 && spread > 0.6 && spread < 1.5, "scores: mean \(mean), spread \(spread): \(scores)")
    }

    @Test("a month of history earns a strong link: its null shuffles days of the same weekday, 24 times")
    func shortHistory() throws {
        let learnt = Self.learnt(PlantedWorld.all(days: 30)[0]).learnt
        let follow = try #require(learnt["B"]?.followers.first { $0.fromBridgeID == "A" })
        #expect(abs(follow.share - 0.7) < 0.15, "share \(follow.share)")
        // Day d opens at 10:00 + d minutes: a moved opening says which day it came from.
        let target = (Int32(0)..<30).map { $0 * 1_440 + 600 + $0 }
        let nulls = RiverLearner.nullTargets(target)
        #expect(nulls.count == 24)
        for null in nulls {
            #expect(null.minutes.count == target.count)
            for minute in null.minutes {
                let (day, from) = (minute / 1_440, minute % 1_440 - 600)
                #expect(from != day && (from - day) % 7 == 0, "day \(day) took day \(from)'s openings")
            }
        }
        #expect(RiverLearner.nullTargets(Array(target.prefix(20))).isEmpty, "20 days: too few to shuffle")
        #expect(RiverLearner.nullTargets(target.map { $0 * 5 }).count == 12, "150 days: moved by whole weeks")
        #expect(abs(RiverLearner.threshold(df: 12) - 3.930) < 0.01 && abs(RiverLearner.threshold(df: 30) - 3.385) < 0.01)
    }

    // MARK: The arithmetic of every vessel

    static let link = PlantedWorld.link(from: "A", share: 0.7, lags: 10...16)
    static let engine = RiverEngine(into: ["B": [link]], clock: PassageClock(rules: nil))
    static let moment: Int64 = 29_000_000

    @Test("two vessels count as more than one; a vessel that raised B already brings nothing more")
    func everyVesselCounts() {
        let one = Self.engine.chance(target: "B", moment: Self.moment, window: 20,
                                     vessels: [RiverVessel(bridgeID: "A", minute: Self.moment - 2)],
                                     background: { _, _ in 0 }).chance
        #expect(abs(one - 0.7) < 1e-9, "the whole lag in the window: the link's share")
        let two = Self.engine.chance(target: "B", moment: Self.moment, window: 20,
                                     vessels: [RiverVessel(bridgeID: "A", minute: Self.moment - 2),
                                               RiverVessel(bridgeID: "A", minute: Self.moment - 5)],
                                     background: { _, _ in 0 }).chance
        #expect(abs(two - (1 - 0.3 * 0.3)) < 1e-9)
        let passed = Self.engine.chance(target: "B", moment: Self.moment, window: 20,
                                        vessels: [RiverVessel(bridgeID: "A", minute: Self.moment - 14, passed: ["B": 1])],
                                        background: { _, _ in 0 }).chance
        #expect(passed == 0)
        // Half the lag gone without its follower: what is left, given it has not come.
        let half = Self.engine.chance(target: "B", moment: Self.moment, window: 20,
                                      vessels: [RiverVessel(bridgeID: "A", minute: Self.moment - 13)],
                                      background: { _, _ in 0 }).chance
        let expected = 0.7 * (4.0 / 7) / (1 - 0.7 + 0.7 * (4.0 / 7))
        #expect(abs(half - expected) < 1e-9, "\(half) against \(expected)")
    }

    @Test("a vessel is carried on through the bridges between: A → B → C, each hop's lag in its turn")
    func carriedOn() {
        let exactly = { (minutes: Int) in (1...60).map { $0 == minutes ? 1.0 : 0 } }
        let engine = RiverEngine(into: [
            "B": [FollowDTO(fromBridgeID: "A", maxLagMinutes: 60, sourceOpenings: 0, followed: 0, expectedByChance: 0,
                            chanceSpread: 0, share: 0.7, lagWeights: exactly(10))],
            "C": [FollowDTO(fromBridgeID: "B", maxLagMinutes: 60, sourceOpenings: 0, followed: 0, expectedByChance: 0,
                            chanceSpread: 0, share: 0.3, originShares: ["": 0.05, "A": 0.8], lagWeights: exactly(5))],
        ], clock: PassageClock(rules: nil))
        let vessel = [RiverVessel(bridgeID: "A", minute: Self.moment - 2)]
        // B at +8, C at +13: in a 20-minute window, not in a 10-minute one.
        let wide = engine.chance(target: "C", moment: Self.moment, window: 20, vessels: vessel, background: { _, _ in 0 })
        #expect(abs(wide.chance - 0.7 * 0.8) < 1e-12)
        let narrow = engine.chance(target: "C", moment: Self.moment, window: 10, vessels: vessel, background: { _, _ in 0 })
        #expect(narrow.chance == 0)
        // B has opened for it already: that opening carries the vessel on, come from A.
        let atB = engine.chance(target: "C", moment: Self.moment, window: 20,
                                vessels: [RiverVessel(bridgeID: "A", minute: Self.moment - 12, passed: ["B": 1]),
                                          RiverVessel(bridgeID: "B", minute: Self.moment - 2, origins: ["A": 1])],
                                background: { _, _ in 0 })
        #expect(abs(atB.chance - 0.8) < 1e-12)
        // B's own vessel (starting out there) rarely goes on.
        let own = engine.chance(target: "C", moment: Self.moment, window: 20,
                                vessels: [RiverVessel(bridgeID: "B", minute: Self.moment - 2)], background: { _, _ in 0 })
        #expect(abs(own.chance - 0.05) < 1e-12 && abs(own.plainVessels[0] - 0.05) < 1e-12)
    }

    @Test("the onward chances kept for open spans are those worked out minute by minute, windows past the kept length too")
    func keptOnwardChances() throws {
        let follow = { (from: String, share: Double, lags: ClosedRange<Int>) in
            FollowDTO(fromBridgeID: from, maxLagMinutes: 60, sourceOpenings: 0, followed: 0, expectedByChance: 0,
                      chanceSpread: 0, share: share, originShares: ["": share / 2], lagWeights: PlantedWorld.lags(lags))
        }
        let links = ["B": [follow("A", 0.7, 10...16)], "C": [follow("B", 0.6, 4...30)]]
        let moment = try #require(FloatingTimestamp("2026-11-18T10:00:00.000")).wallClockSeconds / 60
        // A minute of C held before the moment: its timeline is no longer open, so the chances are worked out minute
        // by minute, while what comes after the moment is the same.
        let held = RuleDeviationDTO(id: "held", bridgeIDs: ["C"], from: "2026-11-18T09:54:00", until: "2026-11-18T09:55:00",
                                    reason: "a minute held")
        let open = RiverEngine(into: links, clock: PassageClock(rules: nil))
        let minuteByMinute = RiverEngine(into: links, clock: PassageClock(rules: RuleCalendar(curfews: [], deviations: [held])))
        let vessels = [RiverVessel(bridgeID: "A", minute: moment - 5), RiverVessel(bridgeID: "B", minute: moment - 3)]
        let background = { (id: String, minute: Int64) in id == "A" ? 0.01 : id == "B" ? 0.004 + Double(minute % 7) * 1e-4 : 0 }
        for window in [20, 60, 200, 15] {
            let kept = open.chance(target: "C", moment: moment, window: window, vessels: vessels, background: background)
            let worked = minuteByMinute.chance(target: "C", moment: moment, window: window, vessels: vessels,
                                               background: background)
            #expect(abs(kept.chance - worked.chance) < 1e-12 && kept.chance > 0.1, "\(window) min: \(kept.chance), \(worked.chance)")
            #expect(zip(kept.fromVessels, worked.fromVessels).allSatisfy { abs($0 - $1) < 1e-12 })
        }
    }

    @Test("what a reused engine keeps (onward chances by held minutes, longer timelines) equals a fresh engine's, through curfews")
    func keptAcrossCurfews() throws {
        let world = try #require(PlantedWorld.all(days: 20).last)
        let openings = world.simulate()
        let reused = world.engine
        let clock = PassageClock(rules: world.rules)
        var compared = 0
        var differentPatterns = 0
        // Two weekdays, every 5 minutes: the same curfew minutes come back on the second day.
        let start = try #require(openings.first?.minute).floorDivided(by: 1_440) * 1_440 + 7 * 1_440
        for moment in stride(from: start + 6 * 60, to: start + 2 * 1_440, by: 5) {
            let vessels = openings.filter { $0.minute < moment && $0.minute >= moment - 240 }
                .map { RiverVessel(bridgeID: $0.bridgeID, minute: $0.minute) }
            for target in world.bridgeIDs {
                for window in [20, 60] {
                    let fresh = world.engine.chance(target: target, moment: moment, window: window, vessels: vessels,
                                                    background: world.background)
                    // A timeline reaching past the window, as one moment's forecasts share it.
                    var earliest = moment - 1
                    for vessel in vessels where vessel.minute < earliest { earliest = vessel.minute }
                    earliest -= 1
                    let last = moment + 90
                    let kept = reused.chance(target: target, moment: moment, window: window, vessels: vessels,
                                             background: world.background, timeline: { bridge in
                                                 Timeline(clock.prefix(bridge, first: earliest, last: last),
                                                          first: earliest, last: last)
                                             })
                    #expect(abs(kept.chance - fresh.chance) < 1e-12, "\(target) \(moment) \(window)")
                    #expect(zip(kept.fromVessels, fresh.fromVessels).allSatisfy { abs($0 - $1) < 1e-12 })
                    compared += 1
                    if (0..<window).contains(where: { !clock.passes(target, minute: moment + Int64($0)) }) {
                        differentPatterns += 1
                    }
                }
            }
        }
        #expect(compared > 1_000 && differentPatterns > 50, "\(compared) compared, \(differentPatterns) in a curfew")
    }

    @Test("the week's slot by arithmetic is the slot of the reading, before 1970 and after, at every quarter hour")
    func weekSlotByArithmetic() throws {
        for seconds in stride(from: Int64(-400 * 86_400), to: Int64(800 * 86_400), by: 86_400 * 3 + 899) {
            let reading = FloatingTimestamp(wallClockSeconds: seconds)
            #expect(Nowcaster.weekSlot(wallClockSeconds: seconds) == OpeningModelDTO.slot(of: reading), "\(seconds)")
        }
    }

    @Test("the passage clock laid out once counts what minute-by-minute counting does: curfews, a lifted holiday, deviations over them, inside its span and past it")
    func passageClockIndex() throws {
        let start = try #require(FloatingTimestamp("2026-11-16T00:00:00.000")).wallClockSeconds / 60
        // Deviations over a curfew window (07:00–09:00 on Tuesday the 17th), over each other, and across midnight.
        let deviations = [
            RuleDeviationDTO(id: "over-curfew", bridgeIDs: ["B"], from: "2026-11-17T08:30:00", until: "2026-11-17T10:15:00",
                             reason: "works"),
            RuleDeviationDTO(id: "overlapping", bridgeIDs: ["B"], from: "2026-11-17T10:00:00", until: "2026-11-17T11:00:00",
                             reason: "works"),
            RuleDeviationDTO(id: "midnight", bridgeIDs: ["B"], from: "2026-11-19T23:10:00", until: "2026-11-20T00:40:00",
                             reason: "works"),
        ]
        let rules = RuleCalendar(curfews: PlantedWorld.curfew(["B"]).curfews, deviations: deviations)
        let clock = PassageClock(rules: rules)
        let bridge = clock.bridge("B")
        // Thanksgiving (the 26th) lifts the curfew: its minutes pass.
        #expect(clock.passes("B", minute: start + 10 * 1_440 + 7 * 60 + 30))
        #expect(!clock.passes("B", minute: start + 9 * 1_440 + 7 * 60 + 30))
        #expect(!clock.passes("B", minute: start + 1 * 1_440 + 9 * 60 + 30), "the deviation after the curfew's end")
        // Minute by minute, over 14 days from the 16th.
        let days: Int64 = 14
        var passable = [Int64](repeating: 0, count: Int(days * 1_440) + 1)
        for minute in 1...(days * 1_440) {
            passable[Int(minute)] = passable[Int(minute - 1)] + (clock.passes("B", minute: start + minute) ? 1 : 0)
        }
        #expect(passable.last.map { $0 < days * 1_440 - 9 * 240 } == true, "the curfew holds most weekdays")
        // The index over days 2…11: questions inside it, across its ends and wholly outside.
        let index = bridge.indexed(first: start + 2 * 1_440, last: start + 11 * 1_440)
        var random = SplitMix64(seed: 46)
        for _ in 0..<2_000 {
            let from = Int64(random.next() % UInt64(days * 1_440))
            let to = from + Int64(random.next() % UInt64(days * 1_440 - from + 1))
            let truth = passable[Int(to)] - passable[Int(from)]
            #expect(index.passableMinutes(from: start + from, to: start + to) == truth, "(\(from), \(to)]")
            #expect(bridge.passableMinutes(from: start + from, to: start + to) == truth, "(\(from), \(to)]")
            #expect(index.clocked(start + to) - index.clocked(start + from) == truth, "(\(from), \(to)]")
        }
        // The prefix the engine's timelines use agrees too.
        let prefix = clock.prefix("B", first: start + 1, last: start + days * 1_440)
        #expect(prefix.counts.map(Int64.init) == Array(passable.dropFirst()))
    }

    @Test("a link that is not a link (shares out of 0…1 or not a number, no lags) brings nothing and breaks nothing")
    func unsoundLinks() {
        let broken = [
            FollowDTO(fromBridgeID: "A", maxLagMinutes: 60, sourceOpenings: 0, followed: 0, expectedByChance: 0,
                      chanceSpread: 0, share: .nan, lagWeights: PlantedWorld.lags(10...16)),
            FollowDTO(fromBridgeID: "A", maxLagMinutes: 60, sourceOpenings: 0, followed: 0, expectedByChance: 0,
                      chanceSpread: 0, share: 0.5, originShares: ["": 7], lagWeights: PlantedWorld.lags(10...16)),
            FollowDTO(fromBridgeID: "A", maxLagMinutes: 60, sourceOpenings: 0, followed: 0, expectedByChance: 0,
                      chanceSpread: 0, share: 0.5, lagWeights: []),
            FollowDTO(fromBridgeID: "A", maxLagMinutes: 60, sourceOpenings: 0, followed: 0, expectedByChance: 0,
                      chanceSpread: 0, share: 0.5, lagWeights: [.infinity, -1]),
        ]
        for link in broken {
            let engine = RiverEngine(into: ["B": [link]], clock: PassageClock(rules: nil))
            let outcome = engine.chance(target: "B", moment: Self.moment, window: 20,
                                        vessels: [RiverVessel(bridgeID: "A", minute: Self.moment - 2)],
                                        background: { _, _ in 0.001 })
            #expect(outcome.chance.isFinite && abs(outcome.chance - (1 - exp(-0.02))) < 1e-12, "\(link)")
        }
    }

    @Test("openings still to come count: A's vessels starting out in the window bring B inside it")
    func openingsToCome() {
        let rate = 0.01
        let outcome = Self.engine.chance(target: "B", moment: Self.moment, window: 60, vessels: [],
                                         background: { id, _ in id == "A" ? rate : 0 })
        // Minute k of the window: a vessel of A there reaches B in the window when its lag fits in 59 − k.
        var lambda = 0.0
        for k in 0..<60 {
            let room = 59 - k
            lambda += rate * 0.7 * Double((10...16).filter { $0 <= room }.count) / 7
        }
        #expect(abs(outcome.chance - (1 - exp(-lambda))) < 1e-9)
    }

    @Test("a curfew holds a follower: late, not gone")
    func curfewHolds() {
        let rules = PlantedWorld.curfew(["B"])
        let engine = RiverEngine(into: ["B": [Self.link]], clock: PassageClock(rules: rules))
        // Wednesday 2026-11-18 15:55: A opened; B's curfew holds vessels 16:00–18:00.
        let wednesday = FloatingTimestamp("2026-11-18T15:55:00.000")!.wallClockSeconds / 60
        let during = engine.chance(target: "B", moment: wednesday + 20, window: 60,
                                   vessels: [RiverVessel(bridgeID: "A", minute: wednesday)], background: { _, _ in 0 })
        #expect(during.chance == 0)
        let after = engine.chance(target: "B", moment: wednesday + 125, window: 20,
                                  vessels: [RiverVessel(bridgeID: "A", minute: wednesday)], background: { _, _ in 0 })
        #expect(abs(after.chance - 0.7) < 1e-9, "held since 16:00 with 5 of its 10–16 min gone: all of it after 18:00")
    }

    @Test("on every planted world the forecaster reaches 90% of the exact truth's skill, and every kind of moment is within 0.1")
    func plantedWorlds() {
        for world in PlantedWorld.all(days: 430) {
            let check = world.check(testDays: 30, stepMinutes: 30)
            for window in check.windows {
                #expect(window.shareOfTruth >= 0.9, "\(check.text)")
                for kind in window.classes where kind.points >= 20 {
                    #expect(abs(kind.meanForecast - kind.meanTruth) <= 0.1, "\(world.name) \(kind.name): \(check.text)")
                }
            }
            if world.name == "independent" { #expect(check.learntLinks.isEmpty) }
        }
    }

    // MARK: The now-cast's rules

    static let fremont = BridgeCatalog.seattle.bridge(id: "3")!
    static let follow = FollowDTO(fromBridgeID: "2", maxLagMinutes: 30, sourceOpenings: 1_000, followed: 700,
                                  expectedByChance: 100, chanceSpread: 10, share: 0.7,
                                  originShares: ["": 0.7, "3": 0.02],
                                  lagWeights: (1...30).map { (10...20).contains($0) ? 1.0 / 11 : 0 })
    static let ballardBack = FollowDTO(fromBridgeID: "3", maxLagMinutes: 30, sourceOpenings: 1_000, followed: 600,
                                       expectedByChance: 100, chanceSpread: 10, share: 0.6,
                                       originShares: ["": 0.6, "2": 0.02],
                                       lagWeights: (1...30).map { (10...20).contains($0) ? 1.0 / 11 : 0 })

    /// A model with a flat slot rate (`chance` a quarter hour) and Ballard as its follower.
    static func model(chance: Double = 0.04, followers: [FollowDTO] = [follow], brought: Double = 0.2) -> OpeningModelDTO {
        let slot = OpeningSlotDTO(starts: 10, occurrences: 100, startProbability: chance, openProbability: 0.02,
                                  meanRemainingMinutes: 3)
        return OpeningModelDTO(
            bridgeID: "3", builtAt: Date(), firstDay: "2026-01-01", lastDay: "2026-10-31", openings: 3_000,
            sourceEvents: 3_000, sourceLatestOpening: nil, baseStartProbability: chance, baseOpenProbability: 0.02,
            slots: Array(repeating: slot, count: OpeningModelDTO.slotsPerWeek),
            dynamics: OpeningDynamicsDTO(followers: followers, broughtShare: brought,
                                         durationCounts: [0, 0, 0, 0, 10, 30, 20, 10, 5], holidaysAsSundays: true))
    }

    static var ballard: OpeningModelDTO {
        let base = model(followers: [ballardBack])
        return OpeningModelDTO(bridgeID: "2", builtAt: base.builtAt, firstDay: base.firstDay, lastDay: base.lastDay,
                               openings: 3_000, sourceEvents: 3_000, sourceLatestOpening: nil,
                               baseStartProbability: 0.04, baseOpenProbability: 0.02, slots: base.slots,
                               dynamics: base.dynamics)
    }

    static let wednesday = FloatingTimestamp("2026-11-18T11:00:00.000")!
    let nowcaster = Nowcaster(rules: .seattle, catalog: .seattle, models: [NowcastTests.model(), NowcastTests.ballard])

    func chance(_ seen: [NowcastEvidence.Seen], window: Int = 20, at: FloatingTimestamp = wednesday) -> ForecastDTO {
        nowcaster.forecast(Self.model(), bridge: Self.fremont, at: at, windowMinutes: window,
                           evidence: NowcastEvidence(seen: seen, isComplete: true))
    }

    @Test("Ballard opened 2 min ago: its vessel is said as a reason; 6 min after Fremont's own, it is said to be going away")
    func reasons() throws {
        let coming = chance([.init(bridgeID: "2", minutesAgo: 2)], window: 30)
        let reason = try #require(coming.reasons.first { $0.kind == "follows" })
        #expect(reason.bridgeID == "2" && reason.text.hasPrefix("Ballard opened 2 min ago: "), "\(reason.text)")
        #expect(coming.chanceOfOpening > 0.7)
        let away = chance([.init(bridgeID: "2", minutesAgo: 2), .init(bridgeID: "3", minutesAgo: 15)], window: 30)
        #expect(away.chanceOfOpening < 0.3, "\(away.chanceOfOpening)")
        let discounted = try #require(away.reasons.first { $0.kind == "discounted" }, "\(away.reasons)")
        #expect(discounted.text.contains("going away"), "\(discounted.text)")
        #expect(!away.reasons.contains { $0.kind == "follows" && ($0.chance ?? 1) < 0.01 }, "no reason of nothing")
    }

    @Test("without complete evidence the answer is the slot model's; an announced opening makes it at least 95%; one under way gives the time still to go")
    func evidenceKinds() throws {
        let unknown = nowcaster.forecast(Self.model(), bridge: Self.fremont, at: Self.wednesday, windowMinutes: 20,
                                         evidence: NowcastEvidence(seen: [.init(bridgeID: "2", minutesAgo: 2)],
                                                                   isComplete: false))
        #expect(unknown.chanceOfOpening == unknown.slotChanceOfOpening)
        let announced = nowcaster.forecast(
            Self.model(), bridge: Self.fremont, at: Self.wednesday, windowMinutes: 20,
            evidence: NowcastEvidence(seen: [], announced: [("3", 12)], isComplete: true))
        #expect(announced.chanceOfOpening >= 0.95 && announced.reasons.first?.kind == "announced")
        let open = nowcaster.forecast(
            Self.model(), bridge: Self.fremont, at: Self.wednesday, windowMinutes: 20,
            evidence: NowcastEvidence(seen: [.init(bridgeID: "3", minutesAgo: 4)], openFor: ["3": 4], isComplete: true))
        #expect(open.chanceOpenOnArrival == 1)
        // Durations 4–8 min (counts 10, 30, 20, 10, 5): after 4 min, the mean of what is left.
        let remaining = try #require(Self.model().dynamics.meanRemaining(afterMinutes: 4))
        #expect(abs(open.expectedDelayMinutes - remaining) < 1e-9 && remaining > 1 && remaining < 4)
        #expect(open.reasons.first?.kind == "under-way")
    }

    @Test("the rules: a deviation closes the bridge (no opening, said why); a holiday reads as a Sunday; the curfew is said")
    func rules() throws {
        let closed = RuleDeviationDTO(id: "run", bridgeIDs: ["3"], from: "2026-11-18T10:00:00", until: "2026-11-18T11:30:00",
                                      reason: "a 10K run")
        let nowcaster = Nowcaster(rules: RuleCalendar.seattle.with(deviations: [closed]), catalog: .seattle)
        let during = nowcaster.forecast(Self.model(), bridge: Self.fremont, at: Self.wednesday, windowMinutes: 20,
                                        evidence: NowcastEvidence(seen: [.init(bridgeID: "2", minutesAgo: 12)],
                                                                  isComplete: true))
        #expect(during.chanceOfOpening == 0 && during.chanceOpenOnArrival == 0)
        #expect(during.reasons.contains { $0.kind == "deviation" && $0.text == "closed for a 10K run until 11:30" })
        // Half the window after the closure: only its minutes count.
        let edge = nowcaster.forecast(Self.model(), bridge: Self.fremont, at: FloatingTimestamp("2026-11-18T11:20:00.000")!,
                                      windowMinutes: 20, evidence: .unknown)
        #expect(abs(edge.chanceOfOpening - (1 - pow(1 - 0.04, 10.0 / 15))) < 1e-9)

        // A model whose Sundays open far more than its weekday rush hours.
        var slots = Self.model().slots
        for slot in 0..<OpeningModelDTO.slotsPerWeek {
            let rush = slot / 96 < 5 && [7, 8, 16, 17].contains(slot % 96 / 4)
            slots[slot] = OpeningSlotDTO(starts: 1, occurrences: 50, startProbability: rush ? 0.005 : (slot / 96 == 6 ? 0.2 : 0.1),
                                         openProbability: 0.02, meanRemainingMinutes: 3)
        }
        let base = Self.model()
        let model = OpeningModelDTO(bridgeID: "3", builtAt: base.builtAt, firstDay: nil, lastDay: nil, openings: 10,
                                    sourceEvents: 10, sourceLatestOpening: nil, baseStartProbability: 0.1,
                                    baseOpenProbability: 0.02, slots: slots, dynamics: base.dynamics)
        let thanksgiving = self.nowcaster.forecast(model, bridge: Self.fremont, at: FloatingTimestamp("2026-11-26T17:00:00.000")!,
                                                   windowMinutes: 15, evidence: .unknown)
        let sunday = self.nowcaster.forecast(model, bridge: Self.fremont, at: FloatingTimestamp("2026-11-29T17:00:00.000")!,
                                             windowMinutes: 15, evidence: .unknown)
        let friday = self.nowcaster.forecast(model, bridge: Self.fremont, at: FloatingTimestamp("2026-11-27T17:00:00.000")!,
                                             windowMinutes: 15, evidence: .unknown)
        #expect(thanksgiving.chanceOfOpening == sunday.chanceOfOpening && friday.chanceOfOpening < 0.01)
        #expect(thanksgiving.reasons.contains { $0.text == "Thanksgiving Day: no rush-hour rule (forecast as a Sunday)" })
        #expect(friday.reasons.contains { $0.kind == "curfew" && $0.text.hasPrefix("rush-hour rule: small vessels are held until 18:00") })
    }

    @Test("a backtest's intervals contain its estimates; the after-neighbour subset holds only points after a neighbour opened")
    func backtestIntervals() throws {
        // Fremont follows Ballard 10–20 minutes later on 60% of Ballard's openings, over ten weeks.
        var random = SplitMix64(seed: 3)
        var events: [BridgeEventDTO] = []
        let first = CivilCalendar.daysFromCivil(year: 2026, month: 3, day: 2)
        for day in first..<(first + 70) {
            for _ in 0..<5 {
                let minute = 600 + Int(random.next() % 540)
                let date = FloatingTimestamp(wallClockSeconds: Int64(day) * 86_400 + Int64(minute) * 60)
                events.append(Hand.event(Hand.ballard, date.description, minutes: 4))
                if random.unit() < 0.6 {
                    let later = FloatingTimestamp(wallClockSeconds: date.wallClockSeconds + Int64(10 + Int(random.next() % 11)) * 60)
                    events.append(Hand.event(Hand.fremont, later.description, minutes: 4))
                }
            }
        }
        let result = try Backtester(mergeGap: 120, windows: [15], rules: .seattle).run(
            bridges: [Hand.ballard, Hand.fremont], events: events, trainUntil: first + 56, testUntil: first + 70)
        // Scoring Fremont alone keeps Ballard's evidence: the same skill.
        let alone = try Backtester(mergeGap: 120, windows: [15], rules: .seattle).run(
            bridges: [Hand.ballard, Hand.fremont], events: events, trainUntil: first + 56, testUntil: first + 70,
            scoring: ["3"])
        #expect(alone.windows.first?.comparison(bridgeID: "3")?.nowcast.value
            == result.windows.first?.comparison(bridgeID: "3")?.nowcast.value)
        #expect(alone.windows.first?.comparison(bridgeID: "2") == nil)
        let window = try #require(result.windows.first)
        let all = try #require(window.comparison(bridgeID: "3"))
        let after = try #require(window.comparison(bridgeID: "3", subset: "after-neighbour"))
        for skill in [all.nowcast, all.slot, all.gain, after.nowcast] {
            #expect(try #require(skill.low) <= skill.value && skill.value <= (try #require(skill.high)))
        }
        #expect(after.points > 0 && after.points < all.points && after.nowcast.value > all.nowcast.value)
        #expect(all.gain.isAboveZero && after.nowcast.value > 0.3)
        #expect(window.comparison(bridgeID: "2", subset: "after-neighbour")?.points == 0)
    }
}
