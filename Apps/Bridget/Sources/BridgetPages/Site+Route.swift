import BridgetAnalysis
import BridgetAnswers
import BridgetCaching
import BridgetCharts
import BridgetContext
import BridgetCore
import BridgetDTOs
import BridgetPersistence
import Foundation

extension Site {
    // MARK: A route's page

    /// A saved route's page: the expected delay of each departure of its next commute (06:00 to 21:00, today's while
    /// some is ahead, from the next departure, else tomorrow's), the best marked, and each bridge's share of its delay.
    package func routePage(_ route: RouteDTO) async throws -> String {
        let clock = context.clock
        let crossings = try await crossingWords(route)
        guard try await store.latestOpening() != nil else {
            return PageTemplates.render(RoutePageView(
                frame: frame("\(route.id) – Bridget", top: false), homeHref: homeHref(top: false), name: route.id,
                crossings: crossings, hasHistory: false, day: "", from: "", to: "", zone: clock.zone.identifier,
                curve: nil, best: nil), as: "route")
        }
        let commute = try await nextCommute(route)
        let answer = commute.answer
        let byTime = answer.ranked.sorted { $0.departure < $1.departure }
        let best = answer.ranked.first
        let label = { (score: RouteScoreDTO) in String(score.departure.dropFirst(11).prefix(5)) }
        let points = byTime.map { (label: label($0), value: $0.totalExpectedDelayMinutes) }
        let marked = best.flatMap { best in byTime.firstIndex { $0.departure == best.departure } }
        // The runs of departures that tie with the best, as index ranges of the chart.
        let labels = points.map(\.label)
        let tied: [ClosedRange<Int>] = answer.tiedRuns.compactMap { run in
            guard let from = labels.firstIndex(of: run.from), let to = labels.lastIndex(of: run.to), from <= to else {
                return nil
            }
            return from...to
        }
        let view = RoutePageView(
            frame: frame("\(route.id) – Bridget", top: false), homeHref: homeHref(top: false), name: route.id,
            crossings: crossings, hasHistory: true, day: commute.dayWords,
            from: labels.first ?? "", to: labels.last ?? "", zone: clock.zone.identifier,
            curve: CurveChart(id: "delay", title: "Expected delay by departure", unit: "minutes of expected delay",
                              points: points, marked: marked, tied: tied, xTitle: "departure time",
                              yTitle: "expected delay (minutes)",
                              caption: "The delay each departure can expect from the route's bridges opening, from "
                                + "the history on record and what is known now; the shaded band is the departures "
                                + "that tie for the least. Tap or hover a departure for its delay."),
            best: best.map { best in
                let total = max(best.totalExpectedDelayMinutes, 1e-12)
                return RoutePageView.Best(
                    departure: answer.tiedText.isEmpty ? label(best) : answer.tiedText,
                    delay: ChartText.number(best.totalExpectedDelayMinutes) + " minutes", first: label(best),
                    shares: best.crossings.map { crossing in
                        RoutePageView.Share(bridge: crossing.best.bridgeName,
                                            minutes: ChartText.number(crossing.best.expectedDelayMinutes),
                                            share: ChartText.percent(crossing.best.expectedDelayMinutes / total))
                    })
            })
        return PageTemplates.render(view, as: "route")
    }

    /// A route's next commute: the departures from 06:00 to 21:00 every 10 minutes, today's while some is ahead, else
    /// tomorrow's, scored; with the day in words ("Monday 2026-11-30 (tomorrow)") and a sentence for the overview.
    func nextCommute(_ route: RouteDTO) async throws -> (answer: BestTimeAnswer, dayWords: String, sentence: String) {
        let answer = try await RouteAnswers(context: context, store: store)
            .bestTime(route, between: ("06:00", "21:00"), date: nil, stepMinutes: 10, top: 0)
        let dayWords = LocalDay(answer.day)?.words(from: LocalDay(containing: now, time: context.clock)) ?? answer.day
        let sentence = answer.ranked.first.map { best in
            "best departure on \(dayWords): " + (answer.tiedText.isEmpty ? String(best.departure.dropFirst(11).prefix(5))
                : answer.tiedText) + ", \(ChartText.number(best.totalExpectedDelayMinutes)) minutes of expected delay"
        } ?? "no departure left to score"
        return (answer, dayWords, sentence)
    }

    /// A route's bridges in words: "Fremont or Ballard at 8 min, then Montlake at 20 min".
    func crossingWords(_ route: RouteDTO) async throws -> String {
        let names = Dictionary(try await context.catalog(in: store).bridges.map { ($0.id, $0.name) },
                               uniquingKeysWith: { first, _ in first })
        return route.crossings.map { crossing in
            crossing.bridgeIDs.map { names[$0] ?? $0 }.joined(separator: " or ")
                + " at \(ChartText.number(crossing.minutesFromStart)) min"
        }.joined(separator: ", then ")
    }
}
