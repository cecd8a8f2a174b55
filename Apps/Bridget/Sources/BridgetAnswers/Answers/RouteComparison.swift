import BridgetContext
import BridgetCore
import BridgetDTOs
import BridgetPersistence
import Foundation

/// `route compare`: two routes scored for each departure of a range, and which has less expected delay when.
package struct RouteComparison: Sendable {
    /// One departure: each route's expected delay, and the better route (`nil`: a tie, closer than 10 seconds).
    package struct Row: Encodable, Sendable, Equatable {
        package let departure: String
        package let delays: [String: Double]
        package let better: String?
    }

    /// The day of the departures.
    package let day: String
    package let rows: [Row]
    /// Runs of the same verdict, as a sentence ("commute is better from 07:00 to 07:40; they tie at 07:45").
    package let sentence: String
    /// Departures the clocks skip or repeat on that day.
    package let clockNotes: ClockNotes

    /// Which of `first` and `second` (route names) has less expected delay at each departure between two times of
    /// day on `date`, every `stepMinutes`.
    package static func compare(_ first: String, _ second: String, between: (String, String), date: String?,
                                stepMinutes: Int, context: AppContext, store: any BridgeStore) async throws
        -> RouteComparison
    {
        guard first != second else {
            throw BridgetError(.inputSameRoute, "compare two different routes (both are '\(first)')")
        }
        try await context.requireHistory(store, for: "route scoring")
        let file = try await context.savedRoutes(store)
        let routes = [try await RouteAnswers.route(first, in: file), try await RouteAnswers.route(second, in: file)]
        let answers = RouteAnswers(context: context, store: store)
        let (day, times) = try answers.departures(between: between, date: date, stepMinutes: stepMinutes)
        var rows: [Row] = []
        for route in routes {
            let scorer = try await answers.scorer(for: route, departure: context.clock.openingInstant(for: times.0))
            let scores = try scorer.bestTimes(route, from: times.0, to: times.1, stepMinutes: stepMinutes)
                .sorted { $0.departure < $1.departure }
            if rows.isEmpty {
                rows = scores.map { Row(departure: $0.departure, delays: [route.id: $0.totalExpectedDelayMinutes],
                                        better: nil) }
            } else {
                rows = zip(rows, scores).map { row, score in
                    var delays = row.delays
                    delays[route.id] = score.totalExpectedDelayMinutes
                    return Row(departure: row.departure, delays: delays, better: nil)
                }
            }
        }
        let clockNotes = RouteAnswers.clockNotes(rows.map(\.departure), day: day, clock: context.clock)
        rows = rows.filter { !clockNotes.skipped.contains($0.departure) }
            .map { row in
                let (a, b) = (row.delays[first] ?? 0, row.delays[second] ?? 0)
                let better: String? = abs(a - b) * 60 < 10 ? nil : (a < b ? first : second)
                return Row(departure: row.departure, delays: row.delays, better: better)
            }
        var runs: [(verdict: String?, from: String, to: String)] = []
        for row in rows {
            let clock = String(row.departure.dropFirst(11).prefix(5))
            if let last = runs.last, last.verdict == row.better {
                runs[runs.count - 1].to = clock
            } else {
                runs.append((row.better, clock, clock))
            }
        }
        let sentence = runs.map { run in
            let span = run.from == run.to ? "at \(run.from)" : "from \(run.from) to \(run.to)"
            return (run.verdict.map { "\($0) is better" } ?? "they tie") + " " + span
        }.joined(separator: "; ")
        return RouteComparison(day: day, rows: rows, sentence: sentence, clockNotes: clockNotes)
    }
}
