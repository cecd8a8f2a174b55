import BridgetDTOs
import Foundation

/// What a person reads about the rules of one bridge: its curfew and who is passed anyway, the next federal holiday
/// that lifts it, the deviations still to come, and the bridges whose openings are followed here (what the model
/// learnt). The bridge page and `bridget rules list --bridge` say the same.
package enum RulesAnswer {
    /// The sentences about `bridge` at `now` (the source's local day `today`).
    package static func lines(for bridge: BridgeInfoDTO, calendar: RuleCalendar, model: OpeningModelDTO?,
                              catalog: BridgeCatalog, today: Int, nowReading: FloatingTimestamp) -> [String] {
        var lines: [String] = []
        if let rule = calendar.curfew(of: bridge.id) {
            let days = rule.weekdays == [1, 2, 3, 4, 5] ? "weekdays" : rule.weekdays.map {
                ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"][($0 - 1) % 7] }.joined(separator: ", ")
            lines.append("Need not open to small vessels on \(days) " + rule.windows.map(\.text).joined(separator: " and ")
                         + " (\(rule.source)); \(rule.exemptVessels) are passed"
                         + (rule.holidaysExempt ? "; federal holidays are exempt"
                            + (rule.exceptHolidays.isEmpty ? "" : " except " + rule.exceptHolidays.joined(separator: ", "))
                            : "") + ".")
            if let next = (today...(today + 366)).lazy.compactMap({ day in
                calendar.liftedCurfew(bridge.id, onDay: day).map { (day, $0) } }).first {
                lines.append("Next federal holiday: \(next.1.name), \(next.1.date): no rush-hour rule (forecast as a Sunday).")
            }
        } else {
            lines.append("No standing rule keeps this bridge closed at set hours.")
        }
        for deviation in calendar.deviations where deviation.bridgeIDs.contains(bridge.id) {
            guard let until = deviation.untilReading, until > nowReading else { continue }
            lines.append("Closed \(text(deviation)): \(deviation.reason)"
                         + (deviation.source.map { " (\($0))" } ?? "") + ".")
        }
        for follow in model?.dynamics.followers ?? [] where follow.fromBridgeID != bridge.id && follow.share >= 0.2 {
            let name = catalog.bridge(id: follow.fromBridgeID)?.name ?? follow.fromBridgeID
            let range = follow.lagRange
            lines.append("Often follows \(name): \(Int((follow.share * 100).rounded()))% of \(name)'s openings bring one "
                         + "here, usually \(range.lowerBound)–\(range.upperBound) min later (learnt from "
                         + "\(follow.sourceOpenings) of them).")
        }
        return lines
    }

    /// "2027-05-16 08:00–10:30", or with both dates when it spans days.
    package static func text(_ deviation: RuleDeviationDTO) -> String {
        let from = deviation.from.replacingOccurrences(of: "T", with: " ").prefix(16)
        let until = deviation.until.replacingOccurrences(of: "T", with: " ").prefix(16)
        return from.prefix(10) == until.prefix(10) ? "\(from)–\(until.dropFirst(11))" : "\(from) to \(until)"
    }
}
