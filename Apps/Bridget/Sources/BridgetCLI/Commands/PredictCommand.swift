import ArgumentParser
import BridgetAnalysis
import BridgetAnswers
import BridgetCore
import BridgetDTOs
import Foundation

/// `bridget predict`: will this bridge open around this time?
struct PredictCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "predict",
        abstract: "Chance a bridge opens in a window, chance it is open on arrival, and the expected delay.",
        discussion: """
            Reads the opening model, one model of the river (built from the stored history \
            at each sync, rebuilt here if the history changed since): each bridge opens at \
            its background rate (15-minute slots of the week, the season, the rush-hour \
            rule and the federal holidays that lift it, dated closures from `bridget rules`) \
            plus what every opening of a linked bridge brings: a vessel passes a waterway's \
            bridges in order (Ballard, then Fremont 10-16 min later), learnt from the \
            history, each vessel counted, by where it came from, late (not gone) when a \
            curfew holds it. Announced openings and one under way count too. What happened \
            before --at is evidence, nothing after it; a past --at says that its model was \
            learnt from the whole history (`bridget backtest` learns from before only). \
            Without the last four hours' openings (the history ends earlier and no live \
            state is polled) the chance is the time of week's. "Why:" lists what moved it, \
            up or down. On planted worlds whose true chance is known it reaches 91-98% of \
            the truth's skill (Docs/FORECASTS.md). It does not know weather, vessel schedules or radio calls. The \
            expected delay is the chance the bridge is open when you arrive times the mean \
            time it then stays open. Evidence: how many openings the covered slots saw in \
            the history, and what happened in the last five similar slots. If the bridge is \
            open when you arrive, the wait is the mean time it then stays open ("wait if \
            open"). Examples:
              bridget predict --bridge Fremont --at 17:40 --window 20m
              bridget predict --bridge Fremont --at 17:40 --on mon-fri
              bridget predict --bridge 3 --format csv \\
                --at "2026-12-01 17:40"
            """)

    @OptionGroup var global: GlobalOptions
    @OptionGroup var output: FormatOptions

    @Option(name: .long, help: "A bridge id or name (e.g. 3 or Fremont).")
    var bridge: [String] = []

    func validate() throws {
        try requireOneBridge(bridge, command: "predict")
        if weekdays, on != nil { throw ValidationError("give --on DAYS or --weekdays, not both") }
    }

    @Option(name: .long, help: ArgumentHelp(
        "When you reach the bridge: 17:40 (the next 17:40), 2026-12-01 17:40, +30m or now (default: now).",
        valueName: "time"))
    var at: String?

    @Option(name: .long, help: ArgumentHelp(
        "Ask for that time of day on each of these days of the coming week: mon-fri, sat,sun, daily.",
        valueName: "days"))
    var on: String?

    @Flag(name: .long, help: "Shorthand for --on mon-fri.")
    var weekdays = false

    @Option(name: .long, help: ArgumentHelp("How far ahead to look: 20m, 45, 1h.", valueName: "minutes"))
    var window: String = "20m"

    func run() async throws {
        try await reportingErrors {
            let minutes = try TimeGrammar.minutes(window, option: "--window")
            let days = try weekdays ? Weekdays.parse("mon-fri", option: "--weekdays")
                : on.map { try Weekdays.parse($0, option: "--on") }
            let context = try global.context()
            let series = try await Forecasts.reading(context).series(bridge: bridge[0], at: at, days: days,
                                                                     minutes: minutes)
            for note in series.notes { Terminal.note("--at: " + note) }
            let writer = OutputWriter(format: output.format)
            let csv = Self.csv(series.answers, clock: context.clock)
            guard days == nil, let only = series.answers.first else {
                try writer.write(series.answers, tabular: Self.days(series, minutes: minutes), csv: csv,
                                 notes: Self.daysNotes(series, minutes: minutes, clock: context.clock))
                return
            }
            try writer.write(only, tabular: Self.moment(only.forecast, wait: only.waitIfOpenMinutes, minutes: minutes),
                             csv: csv, notes: Self.momentNotes(only, series: series, clock: context.clock))
        }
    }

    /// Every answer's figures, a row each.
    static func csv(_ outputs: [ForecastAnswer], clock time: LocalClock) -> Tabular {
        Tabular(
            columns: ["bridge_id", "bridge", "at", "at_local", "window_minutes", "chance_of_opening",
                      "base_chance_of_opening", "chance_open_on_arrival", "expected_delay_minutes",
                      "wait_if_open_minutes", "sample_starts", "sample_occurrences"],
            rows: outputs.map { output in
                let forecast = output.forecast
                return [Cell(forecast.bridgeID), Cell(forecast.bridgeName), Cell(output.atInstant, time: time),
                        Cell(output.atLocal), Cell(forecast.windowMinutes), Cell(raw: forecast.chanceOfOpening),
                        Cell(raw: forecast.baseChanceOfOpening), Cell(raw: forecast.chanceOpenOnArrival),
                        Cell(raw: forecast.expectedDelayMinutes), Cell(raw: output.waitIfOpenMinutes),
                        Cell(forecast.sampleStarts), Cell(forecast.sampleOccurrences)]
            })
    }

    /// A recurring slot: one row per day.
    static func days(_ series: ForecastSeries, minutes: Int) -> Tabular {
        let rows = series.answers.map { output in
            [Cell("\(Self.weekdayName(output.forecast.atReading)) \(output.atLocal.prefix(10))"),
             Cell(percent: output.forecast.chanceOfOpening), Cell(percent: output.forecast.chanceOpenOnArrival),
             Cell(output.forecast.expectedDelayMinutes, decimals: 1), Cell(output.waitIfOpenMinutes, decimals: 1)]
        }
        return Tabular(columns: ["day", "opening_in_\(minutes)min", "open_on_arrival", "delay_min", "wait_if_open_min"],
                       rows: rows)
    }

    /// The sentence under a series: the mean, and the likeliest days; then why.
    static func daysNotes(_ series: ForecastSeries, minutes: Int, clock time: LocalClock) -> [String] {
        let (outputs, likeliest) = (series.answers, series.likeliest)
        let which = likeliest.count == outputs.count
            ? (outputs.count > 1 ? "; the same on every one of them (within half a point)" : "")
            : "; most likely on " + Self.list(likeliest.map { Self.weekdayName($0.forecast.atReading) })
                + " (\(Self.percent(likeliest.first?.forecast.chanceOfOpening ?? 0)))"
        return ["", "\(series.bridge.name) at \(series.first.reading.localText.dropFirst(11).prefix(5)) "
                + "(\(time.zone.identifier) time) on \(outputs.count) days: on average a \(Self.percent(series.mean)) "
                + "chance of an opening in the next \(minutes) min" + which + "."]
            + Self.reasonLines(outputs.map(\.forecast), dated: true)
    }

    /// One moment: its chances, delay and wait, each beside what to compare it with.
    static func moment(_ forecast: ForecastDTO, wait: Double, minutes: Int) -> Tabular {
        Tabular(columns: ["question", "answer", "compare"], rows: [
            [Cell("chance of an opening in the next \(minutes) min"), Cell(Self.percent(forecast.chanceOfOpening)),
             Cell("usual for \(minutes) min: " + Self.percent(forecast.baseChanceOfOpening))],
            [Cell("chance it is open on arrival"), Cell(Self.percent(forecast.chanceOpenOnArrival)), Cell("")],
            [Cell("from the time of week alone"), Cell(Self.percent(forecast.slotChanceOfOpening)),
             Cell("before what happened at the other bridges")],
            [Cell("expected delay"), Cell(String(format: "%.1f min", forecast.expectedDelayMinutes)),
             Cell("counting the chance it is closed to traffic")],
            [Cell("wait if it is open on arrival"), Cell(String(format: "%.1f min", wait)),
             Cell("mean time it then stays open")],
        ])
    }

    /// Under one moment: what it rests on, the last similar slots, and why.
    static func momentNotes(_ only: ForecastAnswer, series: ForecastSeries, clock time: LocalClock) -> [String] {
        let forecast = only.forecast
        let when = only.atLocal.prefix(16).replacingOccurrences(of: "T", with: " ")
        return ["", "\(series.bridge.name), \(Self.weekdayName(forecast.atReading)) \(when) "
                + "(\(time.abbreviation(at: only.atInstant))). Evidence: \(forecast.sampleStarts) openings in "
                + "\(forecast.sampleOccurrences) occurrences of these 15-minute slots, history \(series.history).",
                "Last similar slots:"]
            + only.lastSimilarSlots.map {
                "  \($0.from)  " + ($0.openings.isEmpty ? "no opening" : $0.openings.joined(separator: ", "))
            }
            + Self.reasonLines([forecast], dated: false)
    }

    /// "Why:" and a line for each reason; answering several days, each reason once with the days it holds on
    /// ("every day" when all). None without reasons.
    static func reasonLines(_ forecasts: [ForecastDTO], dated: Bool) -> [String] {
        var order: [String] = []
        var days: [String: [String]] = [:]
        for forecast in forecasts {
            for reason in forecast.reasons {
                if days[reason.text] == nil { order.append(reason.text) }
                days[reason.text, default: []].append(weekdayName(forecast.atReading))
            }
        }
        let lines = order.map { text in
            guard dated, let named = days[text] else { return "  " + text }
            return "  " + (named.count == forecasts.count && forecasts.count > 1 ? "every day" : list(named)) + ": " + text
        }
        return lines.isEmpty ? [] : ["Why:"] + lines
    }

    /// "Mon", "Mon and Fri", "Mon, Tue and Fri".
    static func list(_ names: [String]) -> String {
        guard names.count > 1 else { return names.first ?? "" }
        return names.dropLast().joined(separator: ", ") + " and " + names[names.count - 1]
    }

    static func percent(_ value: Double) -> String { Cell.percentText(value) }

    static func weekdayName(_ reading: FloatingTimestamp) -> String {
        ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"][reading.weekday - 1]
    }
}
