import BridgetAnalysis
import BridgetDTOs
import Foundation
import Testing

/// Followers learnt from a history with a planted link, and the now-cast's rules one by one.
@Suite("Followers and the now-cast")
struct NowcastTests {
    /// A deterministic generator (SplitMix64).
    struct Random {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var value = state
            value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
            value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
            return value ^ (value >> 31)
        }
        mutating func unit() -> Double { Double(next() >> 11) * 0x1.0p-53 }
    }

    /// 300 days: A opens about 6 times a day between 10:00 and 20:00; each opening is followed at B 10–20 minutes
    /// later with chance `share`; B also opens 3 times a day on its own; C opens on its own only.
    static func planted(share: Double, seed: UInt64 = 7) -> [String: [Int32]] {
        var random = Random(state: seed)
        var starts: [String: [Int32]] = ["A": [], "B": [], "C": []]
        let firstDay = 20_000
        for day in firstDay..<(firstDay + 300) {
            let base = Int32(day * 1_440)
            for _ in 0..<6 {
                let minute = base + 600 + Int32(random.next() % 600)
                starts["A"]!.append(minute)
                if random.unit() < share { starts["B"]!.append(minute + 10 + Int32(random.next() % 11)) }
            }
            for _ in 0..<3 { starts["B"]!.append(base + 600 + Int32(random.next() % 600)) }
            for _ in 0..<4 { starts["C"]!.append(base + 600 + Int32(random.next() % 600)) }
        }
        return starts.mapValues { $0.sorted() }
    }

    @Test("a planted link is learnt: its share near the planted one, its lag 10–20 min; independent bridges get none")
    func learnsPlantedLink() throws {
        let learnt = FollowLearner().learn(startMinutes: Self.planted(share: 0.6))
        let follow = try #require(learnt["B"]?.followers.first { $0.fromBridgeID == "A" })
        #expect(abs(follow.share - 0.6) < 0.08, "share \(follow.share)")
        #expect(follow.lagRange.lowerBound >= 9 && follow.lagRange.upperBound <= 21, "lag \(follow.lagRange)")
        #expect(abs(follow.lagWeights.reduce(0, +) - 1) < 1e-9)
        #expect(learnt["B"]?.followers.contains { $0.fromBridgeID == "C" } == false)
        let intoC = (learnt["C"]?.followers ?? []).filter { $0.fromBridgeID != "C" }
        #expect(intoC.isEmpty)
        #expect(!(learnt["A"]?.followers ?? []).contains { $0.fromBridgeID == "B" },
                "B's openings come after A's: they bring none at A")
    }

    @Test("the share of B's rate its followers bring: what its openings outside the lag after A's show")
    func broughtShare() throws {
        let starts = Self.planted(share: 0.6)
        let learnt = FollowLearner().learn(startMinutes: starts)
        let follows = try #require(learnt["B"]).followers
        // A flat model of B: its openings spread evenly over the week's slots (the history's days × 7 slots a day).
        let days = 300.0
        let rate = Double(starts["B"]!.count) / (days * 96)
        let slot = OpeningSlotDTO(starts: 0, occurrences: 0, startProbability: 1 - exp(-rate), openProbability: 0,
                                  meanRemainingMinutes: 0)
        let model = OpeningModelDTO(bridgeID: "B", builtAt: Date(), firstDay: nil, lastDay: nil,
                                    openings: starts["B"]!.count, sourceEvents: 0, sourceLatestOpening: nil,
                                    baseStartProbability: 0, baseOpenProbability: 0,
                                    slots: Array(repeating: slot, count: OpeningModelDTO.slotsPerWeek))
        let share = FollowLearner.broughtShare(of: model, starts: starts["B"]!, followers: follows, startMinutes: starts)
        // 3 of B's 6.6 openings a day come on their own: about 0.55 are brought.
        #expect(abs(share - 3.6 / 6.6) < 0.1, "brought share \(share)")
    }

    @Test("with no link planted, nothing is learnt")
    func noLink() {
        let learnt = FollowLearner().learn(startMinutes: Self.planted(share: 0))
        #expect(!(learnt["B"]?.followers ?? []).contains { $0.fromBridgeID == "A" })
        #expect(learnt.allSatisfy { to, learnt in learnt.followers.allSatisfy { $0.fromBridgeID == to } })
    }

    // MARK: The now-cast's rules

    static let fremont = BridgeCatalog.seattle.bridge(id: "3")!
    static let follow = FollowDTO(fromBridgeID: "2", maxLagMinutes: 30, freshOpenings: 1_000, followed: 700,
                                  expectedByChance: 100, share: 0.7,
                                  lagWeights: (1...30).map { (10...20).contains($0) ? 1.0 / 11 : 0 },
                                  freshWindow: 7...23)

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

    static let wednesday = FloatingTimestamp("2026-11-18T11:00:00.000")!
    let nowcaster = Nowcaster(rules: .seattle, catalog: .seattle)

    func chance(_ seen: [NowcastEvidence.Seen], window: Int = 20, at: FloatingTimestamp = wednesday) -> ForecastDTO {
        nowcaster.forecast(Self.model(), bridge: Self.fremont, at: at, windowMinutes: window,
                           evidence: NowcastEvidence(seen: seen, isComplete: true))
    }

    @Test("Ballard opened 2 min ago: the follower's share (the whole lag in the window) on top of Fremont's own rate, said as a reason")
    func pendingFollower() throws {
        let forecast = chance([.init(bridgeID: "2", minutesAgo: 2)], window: 30)
        let background = 1 - exp(-(-log(1 - 0.04)) * 2 * 0.8)
        #expect(abs(forecast.chanceOfOpening - (1 - (1 - 0.7) * (1 - background))) < 1e-9)
        let reason = try #require(forecast.reasons.first { $0.kind == "follows" })
        #expect(reason.bridgeID == "2" && reason.text.hasPrefix("Ballard opened 2 min ago: 70% of such openings are followed at Fremont within 30 min"))
        #expect(abs(forecast.slotChanceOfOpening - (1 - pow(1 - 0.04, 2))) < 1e-9)
    }

    @Test("half the lag gone without a follower: the chance left is the rest of the lag, conditioned on it not having come")
    func partlyElapsed() {
        // 15 min after: lags 16–20 remain (5 of 11), out of 1 − 0.7 + 0.7 × 5/11 still possible.
        let forecast = chance([.init(bridgeID: "2", minutesAgo: 15)], window: 30)
        let pending = 0.7 * 5 / 11 / (1 - 0.7 + 0.7 * 5 / 11)
        let background = 1 - exp(-(-log(1 - 0.04)) * 2 * 0.8)
        #expect(abs(forecast.chanceOfOpening - (1 - (1 - pending) * (1 - background))) < 1e-9)
    }

    @Test("the follower has come (Fremont opened after Ballard), or Ballard's opening came from Fremont: the slot rate less what followers bring")
    func consumedOrNotFresh() {
        let background = 1 - exp(-(-log(1 - 0.04)) * 20 / 15 * 0.8)
        let consumed = chance([.init(bridgeID: "2", minutesAgo: 14), .init(bridgeID: "3", minutesAgo: 2)])
        #expect(abs(consumed.chanceOfOpening - background) < 1e-9)
        let goingAway = chance([.init(bridgeID: "2", minutesAgo: 2), .init(bridgeID: "3", minutesAgo: 15)])
        #expect(abs(goingAway.chanceOfOpening - background) < 1e-9)
        // An opening here sooner after Ballard's than a vessel could come is another vessel's: still pending.
        let tooSoon = chance([.init(bridgeID: "2", minutesAgo: 3), .init(bridgeID: "3", minutesAgo: 2)])
        #expect(tooSoon.chanceOfOpening > 0.6)
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
        var random = Random(state: 3)
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
