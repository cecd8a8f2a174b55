import BridgetContext
import BridgetCore
import BridgetDTOs
import Foundation

/// `bridget predict`'s answer: a bridge's forecast at one moment, or at that time of day on each of the next seven
/// days that `days` names (Monday-first numbers), with what the series says.
package struct ForecastSeries: Sendable {
    package let bridge: BridgeInfoDTO
    /// The moment asked for (the first of a series).
    package let first: TimeGrammar.Resolved
    /// One answer a moment, in time order.
    package let answers: [ForecastAnswer]
    /// The model's history, "first day to last day".
    package let history: String
    /// Notes on the local times asked for (one that does not exist, or occurs twice), each once.
    package let notes: [String]

    /// The mean chance of an opening over the series.
    package var mean: Double {
        answers.map(\.forecast.chanceOfOpening).reduce(0, +) / Double(max(answers.count, 1))
    }

    /// The likeliest moments: those within half a point of the likeliest, so days that share the answer are all
    /// named, not one. Every moment when they all are.
    package var likeliest: [ForecastAnswer] {
        let top = answers.map(\.forecast.chanceOfOpening).max() ?? 0
        return answers.filter { top - $0.forecast.chanceOfOpening < 0.005 }
    }
}

extension Forecasts {
    /// The forecast for the bridge `name` at `at` (a time the grammar reads, "now" when nil) for the next `minutes`;
    /// with `days`, at that time of day on each of the next seven days among them (the time of week and the rules
    /// only: what happened at the other bridges says nothing of another day).
    package func series(bridge name: String, at: String?, days: Set<Int>?, minutes: Int) async throws -> ForecastSeries {
        try await requireHistory(for: "predict")
        let target = try await bridge(named: name)
        let grammar = context.timeGrammar
        let first = try grammar.resolve(at ?? "now", option: "--at", direction: .ahead)
        var readings = [first]
        if let days {
            let start = first.reading.dayNumber
            readings = (start..<start + 7).compactMap { day -> TimeGrammar.Resolved? in
                let wall = Int64(day) * 86_400 + Int64(first.reading.hour * 3600 + first.reading.minute * 60)
                let reading = FloatingTimestamp(wallClockSeconds: wall)
                return days.contains(reading.mondayFirstWeekday) ? grammar.local(reading) : nil
            }
        }
        let model = try await model(of: target)
        var answers: [ForecastAnswer] = []
        for resolved in readings {
            answers.append(try await answer(model: model, bridge: target, at: resolved, minutes: minutes,
                                            evidence: days == nil))
        }
        return ForecastSeries(bridge: target, first: first, answers: answers,
                              history: "\(model.firstDay ?? "?") to \(model.lastDay ?? "?")",
                              notes: Set(readings.compactMap(\.note)).sorted())
    }
}
