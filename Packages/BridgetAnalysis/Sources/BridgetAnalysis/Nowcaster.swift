import BridgetDTOs
import BridgetRiver
import Foundation

/// What was seen before a forecast's moment: the openings of every bridge in the four hours before it, which bridges
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

    /// Openings before the moment, any order (at least the four hours before it).
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

    /// How far back the evidence must reach: a link's lag, stretched by a curfew that holds the vessel (two hours),
    /// and before it the lag again to tell where each vessel came from.
    public static let lookbackMinutes = 240

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

/// The forecast from one model of the river (`RiverEngine`): each bridge opens at its background rate (the slots of
/// the week, the season, the rules calendar, less what its links bring) plus what every opening of a linked bridge
/// brings: past ones not yet answered, each weighed by how likely its vessel has not passed yet and by where it came
/// from, and those still to come inside the window by their own rate. A holiday that lifts the bridge's curfew is
/// forecast as a Sunday; a dated deviation closes the bridge; a curfew holds a follower (late, not gone). Without
/// complete evidence the answer is the slot model's. An announced opening in the window makes it at least 95%; an
/// opening under way gives the expected time still to go.
public struct Nowcaster: Sendable {
    public let rules: RuleCalendar?
    let names: [String: String]
    /// Every bridge's model, by id: their links and background rates make the river.
    let models: [String: OpeningModelDTO]
    let clock: PassageClock
    let engine: RiverEngine

    /// A forecaster over `models` (every bridge's, for the links between them and the openings still to come
    /// upstream; a model forecast that is not among them is added for its own links).
    public init(rules: RuleCalendar?, catalog: BridgeCatalog, models: [OpeningModelDTO] = []) {
        self.rules = rules
        names = Dictionary(catalog.bridges.map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
        let byID = Dictionary(models.map { ($0.bridgeID, $0) }, uniquingKeysWith: { first, _ in first })
        self.models = byID
        clock = PassageClock(rules: rules)
        engine = RiverEngine(into: byID.mapValues(\.dynamics.followers), clock: clock)
    }

    /// The slot of a reading for `model`: a federal holiday lifting the bridge's curfew reads as a Sunday.
    public func slot(of reading: FloatingTimestamp, model: OpeningModelDTO) -> Int {
        let slot = OpeningModelDTO.slot(of: reading)
        guard model.dynamics.holidaysAsSundays, let rules,
              rules.liftedCurfew(model.bridgeID, onDay: reading.dayNumber) != nil else { return slot }
        return 6 * 96 + slot % 96
    }

    /// The rate per minute at which vessels start out at `model`'s bridge at `minute` (the source's wall clock):
    /// the slot's rate with the season, times the share of openings then that no linked vessel brings; none while a
    /// deviation keeps the bridge closed.
    public func background(_ model: OpeningModelDTO, minute: Int64) -> Double {
        let reading = FloatingTimestamp(wallClockSeconds: minute * 60)
        if rules?.deviation(closing: model.bridgeID, at: reading) != nil { return 0 }
        let slot = slot(of: reading, model: model)
        let rate = Hazard.rate(model.slots[slot].startProbability) * model.monthFactors[reading.month - 1]
            / Double(OpeningModelDTO.slotMinutes)
        return rate * model.dynamics.backgroundShare(hour: reading.hour, weekend: slot / 96 >= 5)
    }

    /// The forecast for `bridge` at `reading` and the next `windowMinutes`, given `evidence`.
    public func forecast(_ model: OpeningModelDTO, bridge: BridgeInfoDTO, at reading: FloatingTimestamp,
                         windowMinutes: Int, evidence: NowcastEvidence) -> ForecastDTO {
        forecast(model, bridge: bridge, at: reading, windowMinutes: windowMinutes, evidence: evidence, shared: nil)
    }

    /// The same, reading the evidence as `shared` has (`riverMoment`) where it was made for this moment and evidence
    /// and reaches past the window; otherwise afresh. Without `explain`, the chances only: no reasons (a backtest
    /// scores millions of forecasts and reads none of them).
    func forecast(_ model: OpeningModelDTO, bridge: BridgeInfoDTO, at reading: FloatingTimestamp, windowMinutes: Int,
                  evidence: NowcastEvidence, shared: RiverMoment?, explain: Bool = true) -> ForecastDTO {
        let window = max(windowMinutes, 1)
        let season = model.monthFactors[reading.month - 1]
        var reasons: [ForecastReasonDTO] = []
        // Minute by minute: the slot's rate, zero while a deviation keeps the bridge closed.
        var slotRate = 0.0
        var covered = Set<Int>(minimumCapacity: 4)
        var starts = 0
        var occurrences = 0
        var closedBy: RuleDeviationDTO?
        var closedNow = false
        let closures = rules?.closures(of: bridge.id, from: reading.wallClockSeconds,
                                       until: reading.wallClockSeconds + Int64(window * 60)) ?? []
        // The day's facts, worked out again only when the window crosses midnight.
        var factsDay = Int.min
        var lifted = false
        for minute in 0..<window {
            let wall = reading.wallClockSeconds + Int64(minute * 60)
            let day = Int(wall.floorDivided(by: 86_400))
            if day != factsDay {
                lifted = rules?.liftedCurfew(bridge.id, onDay: day) != nil
                factsDay = day
            }
            let weekSlot = Self.weekSlot(wallClockSeconds: wall)
            let slot = lifted && model.dynamics.holidaysAsSundays ? 6 * 96 + weekSlot % 96 : weekSlot
            if covered.insert(slot).inserted {
                starts += model.slots[slot].starts
                occurrences += model.slots[slot].occurrences
            }
            if !closures.isEmpty, let closure = closures.first(where: { $0.from <= wall && wall < $0.until }) {
                closedBy = closedBy ?? closure.deviation
                if minute == 0 { closedNow = true }
                continue
            }
            slotRate += Hazard.rate(model.slots[slot].startProbability) * season / Double(OpeningModelDTO.slotMinutes)
        }
        let slotChance = 1 - exp(-slotRate)
        var chance = slotChance
        if explain, let closedBy {
            reasons.append(ForecastReasonDTO(
                kind: "deviation", text: "closed for \(closedBy.reason) until \(closedBy.until.dropFirst(11).prefix(5))"
                    + (closedBy.until.prefix(10) == reading.dateString ? "" : " on \(closedBy.until.prefix(10))")))
        }
        if explain { reasons += ruleReasons(bridge: bridge, model: model, at: reading, window: window) }
        if evidence.isComplete {
            let (river, riverReasons) = riverChance(model, bridge: bridge, at: reading, window: window,
                                                    evidence: evidence, shared: shared, explain: explain)
            chance = river
            reasons += riverReasons
        }
        let arrivalSlot = slot(of: reading, model: model)
        var openOnArrival = min(1, model.slots[arrivalSlot].openProbability * season)
        var waitIfOpen = model.slots[arrivalSlot].meanRemainingMinutes
        if closedNow { openOnArrival = 0 }
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

    /// `OpeningModelDTO.slot(of:)` from the wall clock's seconds by arithmetic: the week's quarter hour from Monday
    /// 00:00 (1970-01-01 was a Thursday).
    static func weekSlot(wallClockSeconds wall: Int64) -> Int {
        let day = wall.floorDivided(by: 86_400)
        let weekday = Int((day + 3).floorModulo(7))
        return weekday * 96 + Int((wall - day * 86_400) / Int64(OpeningModelDTO.slotMinutes * 60))
    }

    static func percent(_ value: Double) -> String {
        value < 0.1 ? String(format: "%.1f%%", value * 100) : String(format: "%.0f%%", value * 100)
    }
}
