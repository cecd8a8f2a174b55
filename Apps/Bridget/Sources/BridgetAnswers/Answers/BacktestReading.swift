import BridgetDTOs
import Foundation

/// How a backtest is read out, the same on the command line and the quality page: skills with their intervals,
/// and "beats" said only where an interval lies above zero.
package enum BacktestReading {
    /// "+0.187 (+0.165 to +0.210)", or the value alone without an interval.
    package static func skill(_ skill: SkillDTO) -> String {
        guard let low = skill.low, let high = skill.high else { return String(format: "%+.3f", skill.value) }
        return String(format: "%+.3f (%+.3f to %+.3f)", skill.value, low, high)
    }

    /// The sentences a backtest comes to: which bridges the forecast beats the base rate on (the interval above
    /// zero), where the now-cast beats the time of week alone, how it does after a neighbour's opening, and how far
    /// predicted and observed chances lie apart.
    package static func verdict(_ result: BacktestDTO) -> [String] {
        guard let window = result.windows.first else { return ["No forecasts could be scored."] }
        let minutes = "\(window.minutes)-minute window"
        let bridges = window.comparisons.filter { $0.bridgeID != nil && $0.subset == "all" && $0.positives > 0 }
        guard !bridges.isEmpty else {
            return ["No bridge opened in the test period, so the forecasts cannot be judged."]
        }
        func names(_ list: [ModelSkillDTO]) -> String {
            let named = list.compactMap(\.bridgeName)
            guard named.count > 1 else { return named.first ?? "" }
            return named.dropLast().joined(separator: ", ") + " and " + named[named.count - 1]
        }
        var lines: [String] = []
        let beating = bridges.filter(\.nowcast.isAboveZero)
        let unsure = bridges.filter { !$0.nowcast.isAboveZero && !$0.nowcast.isBelowZero }
        let losing = bridges.filter(\.nowcast.isBelowZero)
        if beating.count == bridges.count {
            lines.append("Forecasts beat the bridge's average chance on every bridge (\(minutes); each 95% interval above zero).")
        } else {
            var parts = [beating.isEmpty ? "Forecasts beat the average chance on no bridge" : "Forecasts beat the average chance on "
                         + names(beating)]
            if !unsure.isEmpty { parts.append("not distinguishable from it on " + names(unsure)) }
            if !losing.isEmpty { parts.append("worse on " + names(losing)) }
            lines.append(parts.joined(separator: "; ") + " (\(minutes); 95% intervals).")
        }
        let gaining = bridges.filter(\.gain.isAboveZero)
        if !gaining.isEmpty {
            lines.append("What happened at the other bridges adds to the time of week on "
                         + (gaining.count == bridges.count ? "every bridge" : names(gaining)) + " (interval above zero).")
        }
        let after = window.comparisons.filter { $0.bridgeID != nil && $0.subset == "after-neighbour" && $0.points > 0 }
        if !after.isEmpty {
            lines.append("Skill within 30 min after a neighbour's opening: " + after.map { comparison in
                String(format: "%@ %+.2f", comparison.bridgeName ?? "?", comparison.nowcast.value)
                    + (comparison.reliabilityError.map { String(format: " (off by %.0f points)", ($0 * 100).rounded(.up)) } ?? "")
            }.joined(separator: ", ") + ".")
        }
        let gaps = window.reliability.filter { $0.count >= 30 }.compactMap { bin -> Double? in
            guard let predicted = bin.meanPredicted, let observed = bin.observed else { return nil }
            return abs(predicted - observed) * 100
        }
        if let worst = gaps.max() {
            let afterWorst = after.compactMap(\.reliabilityError).max().map { $0 * 100 }
            lines.append(String(format: "Over all forecasts together, the chances were off by at most %.0f points from how "
                                + "often an opening came, in every group of 30 forecasts or more", worst.rounded(.up))
                         + (afterWorst.map { String(format: "; after a neighbour's opening, by up to %.0f.", $0.rounded(.up)) }
                            ?? "."))
        }
        return lines
    }
}
