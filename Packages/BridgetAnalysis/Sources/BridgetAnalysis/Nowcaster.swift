import BridgetDTOs
import Foundation

/// What was seen before a forecast's moment: the openings of every bridge in the two hours before it, which bridges
/// are open at it, and the openings announced after it. Times are minutes relative to the moment, so the same
/// evidence serves the source's wall clock (the backtest) and instants (a live answer).
public struct NowcastEvidence: Sendable, Equatable {
    /// An opening that started `minutesAgo` minutes before the moment (> 0).
    public struct Seen: Sendable, Equatable {
        public let bridgeID: String
        public let minutesAgo: Double

        public init(bridgeID: String, minutesAgo: Double) {
            self.bridgeID = bridgeID
            self.minutesAgo = minutesAgo
        }
    }

    /// Openings before the moment, any order (at least the two hours before it).
    public let seen: [Seen]
    /// Bridges open at the moment, with the minutes since each opened.
    public let openFor: [String: Double]
    /// Openings announced to start `minutesAhead` after the moment.
    public let announced: [(bridgeID: String, minutesAhead: Double)]
    /// Whether every opening of the two hours before the moment is known: without that, a follower's chance cannot
    /// be told from the slots' (a forecast for next Tuesday), and the now-cast is the slot model's.
    public let isComplete: Bool

    public init(seen: [Seen], openFor: [String: Double] = [:], announced: [(bridgeID: String, minutesAhead: Double)] = [],
                isComplete: Bool) {
        self.seen = seen
        self.openFor = openFor
        self.announced = announced
        self.isComplete = isComplete
    }

    /// Nothing is known about the hours before the moment.
    public static let unknown = NowcastEvidence(seen: [], isComplete: false)

    /// How far back the evidence must reach: the followers' lag and, before it, the lag again to tell a fresh
    /// opening from one that came from the bridge forecast.
    public static let lookbackMinutes = 120

    /// The same evidence read `minutes` later: every opening that much older, announced ones that much nearer, the
    /// open ones open that much longer (what happens in between is not known: it is assumed nothing).
    public func later(byMinutes minutes: Double) -> NowcastEvidence {
        NowcastEvidence(seen: seen.map { Seen(bridgeID: $0.bridgeID, minutesAgo: $0.minutesAgo + minutes) },
                        openFor: openFor.mapValues { $0 + minutes },
                        announced: announced.map { ($0.bridgeID, $0.minutesAhead - minutes) }, isComplete: isComplete)
    }

    public static func == (lhs: NowcastEvidence, rhs: NowcastEvidence) -> Bool {
        lhs.seen == rhs.seen && lhs.openFor == rhs.openFor && lhs.isComplete == rhs.isComplete
            && lhs.announced.map(\.bridgeID) == rhs.announced.map(\.bridgeID)
            && lhs.announced.map(\.minutesAhead) == rhs.announced.map(\.minutesAhead)
    }
}

/// The forecast that knows why bridges open: the slot model (15-minute slots of the week, the season), the rules
/// (a holiday that lifts the curfew forecast as a Sunday, a dated deviation closing the bridge), and what happened
/// before the moment at the other bridges (`FollowDTO`: an opening there brings one here after its lag).
///
/// The chance of an opening in the window is 1 − (1 − background) · Π (1 − brought by each pending opening), where
/// the background is the slot rate less the share of openings the followers bring (they are counted apart), and an
/// opening of another bridge `e` minutes ago that is fresh and not yet followed brings one in the window with
/// chance f·(S(e) − S(e+w)) / (1 − f + f·S(e)) (f its share, S the lag's survival). Without complete evidence the
/// answer is the slot model's. An announced opening in the window makes it at least 95%; an opening under way gives
/// the expected time still to go.
public struct Nowcaster: Sendable {
    public let rules: RuleCalendar?
    private let names: [String: String]

    public init(rules: RuleCalendar?, catalog: BridgeCatalog) {
        self.rules = rules
        names = Dictionary(catalog.bridges.map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
    }

    /// The slot of a reading for `model`: a federal holiday lifting the bridge's curfew reads as a Sunday.
    public func slot(of reading: FloatingTimestamp, model: OpeningModelDTO) -> Int {
        let slot = OpeningModelDTO.slot(of: reading)
        guard model.dynamics.holidaysAsSundays, let rules,
              rules.liftedCurfew(model.bridgeID, onDay: reading.dayNumber) != nil else { return slot }
        return 6 * 96 + slot % 96
    }

    /// The forecast for `bridge` at `reading` and the next `windowMinutes`, given `evidence`.
    public func forecast(_ model: OpeningModelDTO, bridge: BridgeInfoDTO, at reading: FloatingTimestamp,
                         windowMinutes: Int, evidence: NowcastEvidence) -> ForecastDTO {
        let window = max(windowMinutes, 1)
        let season = model.monthFactors[reading.month - 1]
        var reasons: [ForecastReasonDTO] = []
        // Minute by minute: the slot's rate, zero while a deviation keeps the bridge closed; the curfew's ratio to a
        // weekend's same slot scales what followers bring while small vessels are held.
        var slotRate = 0.0
        var covered = Set<Int>(minimumCapacity: 4)
        var starts = 0
        var occurrences = 0
        var closedBy: RuleDeviationDTO?
        var passable = [Double](repeating: 1, count: window)
        // What the rules say, worked out once per day of the window (a minute's loop asks only arithmetic).
        let closures = rules?.closures(of: bridge.id, from: reading.wallClockSeconds,
                                       until: reading.wallClockSeconds + Int64(window * 60)) ?? []
        let curfew = rules?.curfew(of: bridge.id)
        // The day's facts, worked out again only when the window crosses midnight.
        var factsDay = Int.min
        var facts = (lifted: false, curfewDay: false)
        for minute in 0..<window {
            let moment = FloatingTimestamp(wallClockSeconds: reading.wallClockSeconds + Int64(minute * 60))
            let day = Int(moment.wallClockSeconds.floorDivided(by: 86_400))
            if day != factsDay {
                let lifted = rules?.liftedCurfew(bridge.id, onDay: day) != nil
                facts = (lifted, !lifted && (curfew?.weekdays.contains(moment.mondayFirstWeekday + 1) ?? false))
                factsDay = day
            }
            let weekSlot = OpeningModelDTO.slot(of: moment)
            let slot = facts.lifted && model.dynamics.holidaysAsSundays ? 6 * 96 + weekSlot % 96 : weekSlot
            if covered.insert(slot).inserted {
                starts += model.slots[slot].starts
                occurrences += model.slots[slot].occurrences
            }
            let wall = moment.wallClockSeconds
            if let closure = closures.first(where: { $0.from <= wall && wall < $0.until }) {
                closedBy = closedBy ?? closure.deviation
                passable[minute] = 0
                continue
            }
            let rate = Self.rate(model.slots[slot].startProbability) * season
            slotRate += rate / Double(OpeningModelDTO.slotMinutes)
            let minuteOfDay = moment.hour * 60 + moment.minute
            if facts.curfewDay, let curfew,
               curfew.windows.contains(where: { $0.fromMinute <= minuteOfDay && minuteOfDay < $0.untilMinute }) {
                let weekend = Self.rate(model.slots[6 * 96 + slot % 96].startProbability) * season
                passable[minute] = weekend > 0 ? min(1, rate / weekend) : 1
            }
        }
        let slotChance = 1 - exp(-slotRate)
        var chance = slotChance
        if let closedBy {
            reasons.append(ForecastReasonDTO(
                kind: "deviation", text: "closed for \(closedBy.reason) until \(closedBy.until.dropFirst(11).prefix(5))"
                    + (closedBy.until.prefix(10) == reading.dateString ? "" : " on \(closedBy.until.prefix(10))")))
        }
        if let rules, model.dynamics.holidaysAsSundays, let holiday = rules.liftedCurfew(bridge.id, onDay: reading.dayNumber) {
            reasons.append(ForecastReasonDTO(kind: "holiday", text: "\(holiday.name): no rush-hour rule (forecast as a Sunday)"))
        } else if rules?.curfewHolds(bridge.id, at: reading) == true, let rule = rules?.curfew(of: bridge.id) {
            let minute = reading.hour * 60 + reading.minute
            let until = rule.windows.first { $0.fromMinute <= minute && minute < $0.untilMinute }
            reasons.append(ForecastReasonDTO(
                kind: "curfew", text: "rush-hour rule: small vessels are held" + (until.map {
                    String(format: " until %02d:%02d", $0.untilMinute / 60, $0.untilMinute % 60) } ?? "")
                    + " (\(rule.exemptVessels) are passed)"))
        }
        if evidence.isComplete {
            let dynamics = model.dynamics
            var noOpening = exp(-slotRate * (1 - dynamics.broughtShare))
            var strongest: [String: (Double, Double, FollowDTO)] = [:]
            let here = evidence.seen.filter { $0.bridgeID == bridge.id }.map(\.minutesAgo)
            for follow in dynamics.followers {
                let lag = Double(follow.maxLagMinutes)
                for opening in evidence.seen where opening.bridgeID == follow.fromBridgeID && opening.minutesAgo > 0
                    && opening.minutesAgo <= lag {
                    let elapsed = opening.minutesAgo
                    // Already followed; or, from another bridge, not fresh (this bridge opened in the lag before it:
                    // a vessel going away).
                    // (An opening here sooner after the other's than the vessel could come is another vessel's.)
                    let earliest = Double(max(follow.lagRange.lowerBound - 3, 0))
                    if here.contains(where: { $0 < elapsed && elapsed - $0 >= earliest }) { continue }
                    if let window = follow.freshWindow, here.contains(where: {
                        $0 >= elapsed + Double(window.lowerBound) && $0 <= elapsed + Double(window.upperBound) }) { continue }
                    let whole = Int(elapsed.rounded(.down))
                    let survival = follow.survival(after: whole)
                    var inWindow = 0.0
                    for minute in 0..<window {
                        let lagMinute = whole + minute + 1
                        guard lagMinute <= follow.lagWeights.count else { break }
                        inWindow += follow.lagWeights[lagMinute - 1] * passable[minute]
                    }
                    // Which way the vessel goes: did the other bridge's own upstream open in the lag before it?
                    let afterUpstream = evidence.seen.contains { seen in
                        follow.upstreamIDs.contains(seen.bridgeID) && seen.minutesAgo > elapsed
                            && seen.minutesAgo <= elapsed + lag
                    }
                    let share = follow.share(afterUpstream: afterUpstream)
                    let brought = min(max(share * inWindow / max(1 - share + share * survival, 1e-9), 0), 1)
                    if brought > (strongest[follow.fromBridgeID]?.0 ?? -1) {
                        strongest[follow.fromBridgeID] = (brought, elapsed, follow)
                    }
                }
            }
            // One vessel is seen at several bridges on its way (Ballard, then Fremont, before University): the
            // strongest pending opening counts, not each of them as if each were another vessel.
            let strongestChance = strongest.values.map(\.0).max() ?? 0
            noOpening *= 1 - strongestChance
            chance = 1 - noOpening
            for (from, (brought, elapsed, follow)) in strongest.sorted(by: { $0.value.0 > $1.value.0 }) {
                let name = names[from] ?? from
                let range = follow.lagRange
                reasons.append(ForecastReasonDTO(
                    kind: "follows",
                    text: "\(name) opened \(Int(elapsed.rounded())) min ago: \(Self.percent(brought)) of such openings are "
                        + "followed at \(bridge.name) within \(window) min (usually \(range.lowerBound)–\(range.upperBound) "
                        + "min after)",
                    chance: brought, bridgeID: from))
            }
        }
        let arrivalSlot = slot(of: reading, model: model)
        var openOnArrival = min(1, model.slots[arrivalSlot].openProbability * season)
        var waitIfOpen = model.slots[arrivalSlot].meanRemainingMinutes
        if closedBy != nil && passable[0] == 0 { openOnArrival = 0 }
        if let elapsed = evidence.openFor[bridge.id] {
            openOnArrival = 1
            waitIfOpen = model.dynamics.meanRemaining(afterMinutes: elapsed) ?? waitIfOpen
            reasons.insert(ForecastReasonDTO(
                kind: "under-way", text: "open for \(Int(elapsed.rounded())) min: expected to close in about "
                    + "\(Int(waitIfOpen.rounded(.up))) min"), at: 0)
        }
        if let announced = evidence.announced.filter({ $0.bridgeID == bridge.id && $0.minutesAhead >= 0
            && $0.minutesAhead < Double(window) }).min(by: { $0.minutesAhead < $1.minutesAhead }) {
            chance = max(chance, 0.95)
            reasons.insert(ForecastReasonDTO(
                kind: "announced", text: "an opening is announced in \(Int(announced.minutesAhead.rounded())) min",
                chance: 0.95), at: 0)
        }
        let base = 1 - pow(1 - model.baseStartProbability, Double(window) / Double(OpeningModelDTO.slotMinutes))
        return ForecastDTO(
            bridgeID: bridge.id, bridgeName: bridge.name, at: reading.localText, windowMinutes: window,
            chanceOfOpening: chance, chanceOpenOnArrival: openOnArrival, expectedDelayMinutes: openOnArrival * waitIfOpen,
            baseChanceOfOpening: base, sampleStarts: starts, sampleOccurrences: occurrences,
            slotChanceOfOpening: slotChance, reasons: reasons)
    }

    /// A slot's rate from its chance of a start (openings as a Poisson process within the slot).
    static func rate(_ chance: Double) -> Double { -log(max(1 - chance, 1e-12)) }

    static func percent(_ value: Double) -> String {
        value < 0.1 ? String(format: "%.1f%%", value * 100) : String(format: "%.0f%%", value * 100)
    }
}
