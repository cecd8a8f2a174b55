import BridgetDTOs
import BridgetRiver
import Foundation

extension Nowcaster {
    /// The river model's chance for `bridge` in the window, from the openings before the moment, and the reasons
    /// that moved it: each vessel that may still raise the bridge, and each opening nearby that looks like it would
    /// but does not (its vessel came from this bridge, or has passed it already).
    func riverChance(_ model: OpeningModelDTO, bridge: BridgeInfoDTO, at reading: FloatingTimestamp, window: Int,
                     evidence: NowcastEvidence, shared: RiverMoment? = nil, explain: Bool = true)
        -> (Double, [ForecastReasonDTO])
    {
        let moment = reading.wallClockSeconds.floorDivided(by: 60)
        let engine: RiverEngine
        let river: RiverMoment
        if let known = models[model.bridgeID], known.builtAt == model.builtAt, known.sourceVersion == model.sourceVersion,
           known.dynamics == model.dynamics {
            engine = self.engine
            if let shared, shared.minute == moment, shared.until >= moment + Int64(window), shared.evidence == evidence {
                river = shared
            } else {
                river = riverMoment(at: reading, evidence: evidence, horizon: window)
            }
        } else {
            var models = self.models
            models[model.bridgeID] = model
            engine = RiverEngine(into: models.mapValues(\.dynamics.followers), clock: clock)
            river = RiverMoment(self, models: models, engine: engine, at: reading, evidence: evidence, horizon: window)
        }
        let vessels = river.vessels
        let outcome = engine.chance(target: bridge.id, moment: moment, window: window, vessels: vessels,
                                    background: river.rates.rate, timeline: river.timeline, rates: river.minuteRates)
        guard explain else { return (outcome.chance, []) }
        var reasons: [(Double, ForecastReasonDTO)] = []
        let name = { (id: String) in self.names[id] ?? id }
        let past = vessels.filter { $0.minute < moment }
        for ((vessel, brings), plain) in zip(zip(past, outcome.fromVessels), outcome.plainVessels) {
            let ago = Int(moment - vessel.minute)
            let direct = model.dynamics.followers.first { $0.fromBridgeID == vessel.bridgeID }
            // An opening that would bring one here but for what the river says of it (its vessel came from here,
            // or has passed already) is said as a reason down; one that brings one, as a reason up.
            let discounted = direct != nil && vessel.bridgeID != bridge.id && plain >= 0.05 && brings < plain / 2
            if brings >= 0.01 && !discounted {
                let usually = direct.map { " (usually \($0.lagRange.lowerBound)–\($0.lagRange.upperBound) min after)" } ?? ""
                let subject = vessel.bridgeID == bridge.id ? "\(bridge.name) itself" : name(vessel.bridgeID)
                reasons.append((brings, ForecastReasonDTO(
                    kind: "follows",
                    text: "\(subject) opened \(ago) min ago: \(Self.percent(brings)) chance that its vessel raises "
                        + "\(bridge.name) within \(window) min\(usually)",
                    chance: brings, bridgeID: vessel.bridgeID)))
                continue
            }
            guard discounted else { continue }
            let text: String
            if (vessel.origins[bridge.id] ?? 0) >= 0.5,
               let own = past.last(where: { $0.bridgeID == bridge.id && $0.minute < vessel.minute }) {
                text = "\(name(vessel.bridgeID)) opened \(ago) min ago, \(vessel.minute - own.minute) min after "
                    + "\(bridge.name) did: likely \(bridge.name)'s vessel going away (\(Self.percent(brings)) here, "
                    + "\(Self.percent(plain)) for a vessel coming)"
            } else if (vessel.passed[bridge.id] ?? 0) >= 0.5 {
                text = "\(name(vessel.bridgeID)) opened \(ago) min ago and \(bridge.name) has opened since: likely "
                    + "for that vessel (\(Self.percent(brings)) more)"
            } else {
                text = "\(name(vessel.bridgeID)) opened \(ago) min ago: likely a vessel that does not come here "
                    + "(\(Self.percent(brings)), \(Self.percent(plain)) for one that does)"
            }
            reasons.append((plain - brings, ForecastReasonDTO(kind: "discounted", text: text, chance: brings,
                                                              bridgeID: vessel.bridgeID)))
        }
        return (outcome.chance, reasons.sorted { $0.0 > $1.0 }.prefix(4).map(\.1))
    }

    /// What the rules say of the window: a holiday that lifts a curfew the window would fall in, or a curfew holding
    /// small vessels at the moment.
    func ruleReasons(bridge: BridgeInfoDTO, model: OpeningModelDTO, at reading: FloatingTimestamp, window: Int)
        -> [ForecastReasonDTO]
    {
        guard let rules, let rule = rules.curfew(of: bridge.id) else { return [] }
        let minute = reading.hour * 60 + reading.minute
        if model.dynamics.holidaysAsSundays, let holiday = rules.liftedCurfew(bridge.id, onDay: reading.dayNumber) {
            // Said only where the rule would have held: the window meets one of the curfew's windows.
            guard rule.windows.contains(where: { $0.fromMinute < minute + window && minute < $0.untilMinute }) else {
                return []
            }
            return [ForecastReasonDTO(kind: "holiday", text: "\(holiday.name): no rush-hour rule (forecast as a Sunday)")]
        }
        guard rules.curfewHolds(bridge.id, at: reading) else { return [] }
        let until = rule.windows.first { $0.fromMinute <= minute && minute < $0.untilMinute }
        return [ForecastReasonDTO(
            kind: "curfew", text: "rush-hour rule: small vessels are held" + (until.map {
                String(format: " until %02d:%02d", $0.untilMinute / 60, $0.untilMinute % 60) } ?? "")
                + " (\(rule.exemptVessels) are passed; those held come after)")]
    }
}

extension Nowcaster {
    /// What every forecast at one moment shares, whichever bridge and window it is for (at most `horizon` minutes):
    /// the openings before the moment read as vessels, and each bridge's background rate through the span. The
    /// backtest asks every bridge and window at each moment, and reads the evidence once.
    func riverMoment(at reading: FloatingTimestamp, evidence: NowcastEvidence, horizon: Int) -> RiverMoment {
        RiverMoment(self, models: models, engine: engine, at: reading, evidence: evidence, horizon: horizon)
    }

    /// One moment's evidence as the river model reads it (see `riverMoment`).
    final class RiverMoment {
        /// The moment, a minute of the source's wall clock.
        let minute: Int64
        /// The end of the span the rates are kept for (exclusive): the moment plus the longest window asked.
        let until: Int64
        let evidence: NowcastEvidence
        let vessels: [RiverVessel]
        let rates: BackgroundRates

        init(_ nowcaster: Nowcaster, models: [String: OpeningModelDTO], engine: RiverEngine, at reading: FloatingTimestamp,
             evidence: NowcastEvidence, horizon: Int) {
            let moment = reading.wallClockSeconds.floorDivided(by: 60)
            minute = moment
            until = moment + Int64(max(horizon, 1))
            self.evidence = evidence
            let openings = evidence.seen.filter { $0.minutesAgo > 0 }.map { seen in
                (bridgeID: seen.bridgeID, minute: moment - Int64(max(1, Int(seen.minutesAgo.rounded(.up)))))
            }
            rates = BackgroundRates(nowcaster, models: models, from: min(openings.map(\.minute).min() ?? moment, moment),
                                    until: until)
            vessels = engine.infer(openings, background: rates.rate)
            clock = engine.clock
            var earliest = moment - 1
            for vessel in vessels where vessel.minute < earliest { earliest = vessel.minute }
            self.earliest = earliest - 1
        }

        private let clock: PassageClock
        /// The first minute of every timeline (`RiverEngine.chance`): before the earliest vessel and the moment.
        private let earliest: Int64
        private var timelines: [String: Timeline] = [:]

        private var minutes: [String: [Double]] = [:]

        /// `bridge`'s background rate in each minute from the moment to the span's end, worked out once.
        func minuteRates(_ bridge: String) -> [Double] {
            if let known = minutes[bridge] { return known }
            var made: [Double] = []
            made.reserveCapacity(Int(until - minute))
            var current = minute
            while current < until {
                made.append(rates.rate(bridge, current))
                current += 1
            }
            minutes[bridge] = made
            return made
        }

        /// `bridge`'s passable minutes from `earliest` through the span's last minute, worked out once: a window's
        /// chance reads them up to its own last minute only.
        func timeline(_ bridge: String) -> Timeline {
            if let known = timelines[bridge] { return known }
            let made = Timeline(clock.prefix(bridge, first: earliest, last: until - 1), first: earliest, last: until - 1)
            timelines[bridge] = made
            return made
        }
    }

    /// Each bridge's background rate (`Nowcaster.background`) over a span of minutes, worked out once per quarter
    /// hour: a bridge's rate is the same through a quarter hour unless a deviation starts or ends in it, so a bridge
    /// that a deviation touches in the span is worked out minute by minute.
    final class BackgroundRates {
        /// One bridge's rates through the span.
        private struct Row {
            let model: OpeningModelDTO
            /// Whether no deviation touches the span (else each minute is worked out).
            let steady: Bool
            /// By quarter hour from `firstQuarter`: the rate, NaN until asked.
            var quarters: [Double]
        }

        private let nowcaster: Nowcaster
        private let models: [String: OpeningModelDTO]
        private let from: Int64
        private let until: Int64
        private let firstQuarter: Int64
        private var rows: [Row] = []
        private var rowOf: [String: Int] = [:]
        /// The bridge asked last and its row: the engine asks one bridge's minutes in a run.
        private var last: (id: String, row: Int)?

        init(_ nowcaster: Nowcaster, models: [String: OpeningModelDTO], from: Int64, until: Int64) {
            self.nowcaster = nowcaster
            self.models = models
            self.from = from
            self.until = max(until, from)
            firstQuarter = from.floorDivided(by: Int64(OpeningModelDTO.slotMinutes))
        }

        func rate(_ id: String, _ minute: Int64) -> Double {
            let row: Int
            if let last, last.id == id {
                row = last.row
            } else if let known = rowOf[id] {
                row = known
                last = (id, row)
            } else {
                guard let model = models[id] else { return 0 }
                let steady = nowcaster.rules?.closures(of: id, from: from * 60, until: until * 60).isEmpty ?? true
                let quarters = Int((until - 1).floorDivided(by: Int64(OpeningModelDTO.slotMinutes)) - firstQuarter) + 1
                rows.append(Row(model: model, steady: steady,
                                quarters: [Double](repeating: .nan, count: steady ? max(quarters, 0) : 0)))
                row = rows.count - 1
                rowOf[id] = row
                last = (id, row)
            }
            guard rows[row].steady, minute >= from, minute < until else {
                return nowcaster.background(rows[row].model, minute: minute)
            }
            let index = Int(minute.floorDivided(by: Int64(OpeningModelDTO.slotMinutes)) - firstQuarter)
            let known = rows[row].quarters[index]
            if !known.isNaN { return known }
            let value = nowcaster.background(rows[row].model, minute: minute)
            rows[row].quarters[index] = value
            return value
        }
    }
}
