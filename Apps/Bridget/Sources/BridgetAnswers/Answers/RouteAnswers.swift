import BridgetAnalysis
import BridgetContext
import BridgetCore
import BridgetDTOs
import BridgetPersistence
import Foundation

/// What `route best-time` finds: the day, every departure ranked, the first `top` of them, the least delay and the
/// notes on times the clocks skip or repeat.
package struct BestTimeAnswer: Sendable {
    package let day: String
    package let ranked: [RouteScoreDTO]
    package let shown: [RouteScoreDTO]
    package let least: Double
    package let clockNotes: ClockNotes
    /// The departures that tie with the best, as runs of consecutive departures (`HH:MM`, first and last).
    package let tiedRuns: [(from: String, to: String)]

    /// How many departures tie with the best.
    package var tied: Int { ranked.filter { $0.tiesWithBest == true }.count }

    /// "07:00–08:50 and 09:30": the tied departures, for a sentence.
    package var tiedText: String {
        let parts = tiedRuns.map { $0.from == $0.to ? $0.from : "\($0.from)–\($0.to)" }
        guard parts.count > 1 else { return parts.first ?? "" }
        return parts.dropLast().joined(separator: ", ") + " and " + parts[parts.count - 1]
    }
}

/// What a day's clock does to some departures: those it skips (left out of an answer), and the notes saying so and
/// that a repeated one means its first occurrence.
package struct ClockNotes: Sendable {
    package let skipped: Set<String>
    package let notes: [String]
}

/// How a front end names the inputs of a departure range in its messages (`--between` and `--date` on the command
/// line; `between`, `and` and `date` over HTTP).
package struct DepartureRangeNames: Sendable {
    package let from: String
    package let to: String
    package let date: String

    package init(from: String, to: String, date: String) {
        self.from = from
        self.to = to
        self.date = date
    }

    /// The command line's options.
    package static let options = DepartureRangeNames(from: "--between", to: "--between", date: "--date")
}

/// Saved routes scored by the opening models: the answers of `route score` and `route best-time`, on the command
/// line, over HTTP and on a route's page.
package struct RouteAnswers: Sendable {
    package let books: HistoryBooks
    package var context: AppContext { books.context }
    package var store: any BridgeStore { books.store }

    package init(books: HistoryBooks) { self.books = books }

    package init(context: AppContext, store: any BridgeStore) {
        self.init(books: HistoryBooks(context: context, store: store))
    }

    /// The route saved as `name` where `routes.storage` keeps routes, or `input.unknown-route`.
    package func savedRoute(named name: String) async throws -> RouteDTO {
        try await Self.route(name, in: try await context.savedRoutes(store))
    }

    /// The saved routes `first` and `second` compared departure by departure (`RouteComparison`).
    package func compare(_ first: String, _ second: String, between: (String, String), date: String?,
                         stepMinutes: Int) async throws -> RouteComparison {
        try await RouteComparison.compare(first, second, between: between, date: date, stepMinutes: stepMinutes,
                                          context: context, store: store)
    }

    /// The route saved as `name` (trimmed), or `input.unknown-route` naming the saved ones.
    package static func route(_ name: String, in routes: any RouteStore) async throws -> RouteDTO {
        let name = name.trimmingCharacters(in: .whitespaces)
        guard let route = try await routes.route(named: name) else {
            let known = try await routes.routes().map(\.id)
            throw BridgetError(.inputUnknownRoute, "no route named '\(name)'"
                    + (known.isEmpty ? "; none are saved" : "; saved: " + known.joined(separator: ", ")),
                hint: "see `bridget route list`")
        }
        return route
    }

    /// A scorer over the current models of the bridges `route` crosses, or `store-empty` before any sync: with the
    /// rules, and what was seen before `departure` (an arrival within half an hour of it is forecast with it).
    package func scorer(for route: RouteDTO, departure: Date? = nil) async throws -> RouteScorer {
        let book = try await books.bookWithHistory(for: "route scoring")
        let models = try await book.models(route.crossings.flatMap(\.bridgeIDs))
        var evidence = NowcastEvidence.unknown
        if let departure { evidence = try await book.evidence(at: departure, windowMinutes: 30) }
        return RouteScorer(models: models, catalog: BridgeCatalog(bridges: book.storedBridges + BridgeCatalog.seattle.bridges),
                           clock: context.clock, rules: try await book.ruleCalendar(), evidence: evidence,
                           evidenceAt: departure)
    }

    /// The score of `route` leaving at `depart` (the one time grammar; default now): what `route score --format json`
    /// prints and `GET /v1/routes/{name}/score` answers. `option` names the value in errors.
    package func score(_ route: RouteDTO, depart: String?, option: String) async throws
        -> (score: RouteScoreDTO, departure: TimeGrammar.Resolved)
    {
        let resolved = try context.timeGrammar.resolve(depart ?? "now", option: option, direction: .ahead)
        let scorer = try await scorer(for: route, departure: resolved.instant)
        return (try scorer.score(route, departure: resolved.reading), resolved)
    }

    /// Departures of `route` between two times of day on `date` (default today) every `stepMinutes`, ranked: what
    /// `route best-time --format json` prints (`shown`), `GET /v1/routes/{name}/best-time` answers and a route's
    /// page draws.
    package func bestTime(_ route: RouteDTO, between: (String, String), date: String?, stepMinutes: Int, top: Int,
                          names: DepartureRangeNames = .options) async throws -> BestTimeAnswer {
        let (day, times) = try departures(between: between, date: date, stepMinutes: stepMinutes, names: names)
        let scorer = try await scorer(for: route, departure: context.clock.openingInstant(for: times.0))
        // One rule for local times: a departure the clocks skip is left out (its instant is the next hour's, listed
        // already), a repeated one means its first occurrence; the answer says which.
        let all = try scorer.bestTimes(route, from: times.0, to: times.1, stepMinutes: stepMinutes)
        let clockNotes = Self.clockNotes(all.map(\.departure), day: day, clock: context.clock)
        let scored = all.filter { !clockNotes.skipped.contains($0.departure) }
        // The best is the least delay; departures whose delay is the least's to a hundredth of a minute (as every
        // answer prints it) tie with it, and rank earliest first; the rest follow by delay.
        let least = scored.map(\.totalExpectedDelayMinutes).min() ?? 0
        let tiedWithBest = { (score: RouteScoreDTO) in Self.ties(score.totalExpectedDelayMinutes, least) }
        let ranked = scored.sorted { first, second in
            switch (tiedWithBest(first), tiedWithBest(second)) {
            case (true, true): first.departure < second.departure
            case (true, false): true
            case (false, true): false
            case (false, false): (first.totalExpectedDelayMinutes, first.departure)
                < (second.totalExpectedDelayMinutes, second.departure)
            }
        }
        let marked = ranked.map { $0.ranked(tiesWithBest: tiedWithBest($0)) }
        // Runs of consecutive departures (one step apart) that tie.
        var runs: [(from: String, to: String)] = []
        var previous: Int64?
        for score in scored.filter(tiedWithBest).sorted(by: { $0.departure < $1.departure }) {
            guard let reading = FloatingTimestamp(score.departure + ".000") else { continue }
            let clock = String(score.departure.dropFirst(11).prefix(5))
            if let last = previous, reading.wallClockSeconds - last == Int64(stepMinutes * 60), !runs.isEmpty {
                runs[runs.count - 1].to = clock
            } else {
                runs.append((clock, clock))
            }
            previous = reading.wallClockSeconds
        }
        return BestTimeAnswer(day: day, ranked: marked, shown: top > 0 ? Array(marked.prefix(top)) : marked,
                              least: least, clockNotes: clockNotes, tiedRuns: runs)
    }

    /// The day (`YYYY-MM-DD`) and the two readings of a departure range on `date`. Without a date, the range's next
    /// occurrence: today's while its end is still ahead (from the first `stepMinutes` step at or after now, when it
    /// has begun), else tomorrow's. A date may be a weekday's name (`mon`: the next Monday, today if it is one).
    package func departures(between: (String, String), date: String?, stepMinutes: Int = 1,
                            names: DepartureRangeNames = .options) throws
        -> (day: String, times: (FloatingTimestamp, FloatingTimestamp))
    {
        let clock = context.clock
        let now = context.assembly.now()
        func reading(_ text: String, _ name: String, on day: String) throws -> FloatingTimestamp {
            guard let (hour, minute) = TimeGrammar.timeOfDay(text),
                  let reading = FloatingTimestamp(day + "T" + String(format: "%02d:%02d:00.000", hour, minute))
            else {
                throw BridgetError(.inputBadTime, "\(name) '\(text)' is not a time of day",
                                              hint: "write H:MM or HH:MM, e.g. 7:00 or 16:30", parameter: name)
            }
            return reading
        }
        var day: String
        var times: (FloatingTimestamp, FloatingTimestamp)
        if let date {
            let instant = try context.timeGrammar.instant(date, option: names.date, direction: .ahead)
            day = LocalDay(containing: instant, time: clock).description
            times = (try reading(between.0, names.from, on: day), try reading(between.1, names.to, on: day))
        } else {
            let today = LocalDay(containing: now, time: clock)
            day = today.description
            times = (try reading(between.0, names.from, on: day), try reading(between.1, names.to, on: day))
            let here = clock.reading(for: now)
            if times.1 < here {
                day = LocalDay(number: today.number + 1).description
                times = (try reading(between.0, names.from, on: day), try reading(between.1, names.to, on: day))
            } else if times.0 < here, times.0 <= times.1 {
                // Begun: from the first step at or after now (a departure in the past is no answer).
                let step = Int64(max(stepMinutes, 1) * 60)
                let elapsed = here.wallClockSeconds - times.0.wallClockSeconds
                let start = times.0.wallClockSeconds + (elapsed + step - 1) / step * step
                times.0 = FloatingTimestamp(wallClockSeconds: min(start, times.1.wallClockSeconds))
            }
        }
        guard times.0 <= times.1 else {
            throw BridgetError(.inputBadRange, "the departure range \(between.0) to \(between.1) ends before it "
                                          + "starts", parameter: names.to)
        }
        return (day, times)
    }

    /// Whether two delays (minutes) are the same as printed: equal to a hundredth of a minute.
    package static func ties(_ delay: Double, _ least: Double) -> Bool {
        (delay * 100).rounded() <= (least * 100).rounded()
    }

    /// What `day`'s clock does to some departures (`YYYY-MM-DDTHH:MM:SS` readings).
    package static func clockNotes(_ departures: [String], day: String, clock: LocalClock) -> ClockNotes {
        var skipped: [String] = []
        var repeated: [(String, Date)] = []
        for departure in departures {
            guard let reading = FloatingTimestamp(departure + ".000") else { continue }
            let occurrences = clock.instants(for: reading)
            if occurrences.isEmpty { skipped.append(departure) }
            if occurrences.count > 1, let first = occurrences.first { repeated.append((departure, first)) }
        }
        func clockTimes(_ readings: [String]) -> String {
            readings.map { String($0.dropFirst(11).prefix(5)) }.joined(separator: ", ")
        }
        var notes: [String] = []
        if !skipped.isEmpty {
            notes.append("Left out: \(clockTimes(skipped)), which the clocks skip on \(day).")
        }
        if let first = repeated.first {
            notes.append("\(clockTimes(repeated.map(\.0))) occur twice on \(day); each means the first, "
                         + "\(clock.abbreviation(at: first.1)).")
        }
        return ClockNotes(skipped: Set(skipped), notes: notes)
    }
}
