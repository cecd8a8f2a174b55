import BridgetDTOs
import Foundation

extension Nowcaster {
    /// The river model's chance for `bridge` in the window, from the openings before the moment, and the reasons
    /// that moved it: each vessel that may still raise the bridge, and each opening nearby that looks like it would
    /// but does not (its vessel came from this bridge, or has passed it already).
    func riverChance(_ model: OpeningModelDTO, bridge: BridgeInfoDTO, at reading: FloatingTimestamp, window: Int,
                     evidence: NowcastEvidence) -> (Double, [ForecastReasonDTO]) {
        var models = self.models
        let engine: RiverEngine
        if let known = models[model.bridgeID], known.builtAt == model.builtAt, known.sourceVersion == model.sourceVersion,
           known.dynamics == model.dynamics {
            engine = self.engine
        } else {
            models[model.bridgeID] = model
            engine = RiverEngine(into: models.mapValues(\.dynamics.followers), clock: clock)
        }
        let moment = reading.wallClockSeconds.floorDivided(by: 60)
        let openings = evidence.seen.filter { $0.minutesAgo > 0 }.map { seen in
            (bridgeID: seen.bridgeID, minute: moment - Int64(max(1, Int(seen.minutesAgo.rounded(.up)))))
        }
        // A bridge's background is the same through a quarter hour unless a deviation starts or ends in it: kept by
        // quarter hour where no deviation touches the span.
        let span = (from: (openings.map(\.minute).min() ?? moment) * 60, until: (moment + Int64(window)) * 60)
        var quarters: [String: [Int64: Double]] = [:]
        var steady: [String: Bool] = [:]
        let background = { (id: String, minute: Int64) -> Double in
            guard let model = models[id] else { return 0 }
            let isSteady = steady[id] ?? {
                let value = self.rules?.closures(of: id, from: span.from, until: span.until).isEmpty ?? true
                steady[id] = value
                return value
            }()
            guard isSteady else { return self.background(model, minute: minute) }
            let quarter = minute.floorDivided(by: Int64(OpeningModelDTO.slotMinutes))
            if let known = quarters[id]?[quarter] { return known }
            let value = self.background(model, minute: minute)
            quarters[id, default: [:]][quarter] = value
            return value
        }
        let vessels = engine.infer(openings, background: background)
        let outcome = engine.chance(target: bridge.id, moment: moment, window: window, vessels: vessels,
                                    background: background)
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
