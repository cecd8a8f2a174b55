import ArgumentParser
import BridgetAnalysis
import BridgetDTOs
import BridgetPersistence
import Foundation

/// `bridget predict`: will this bridge open around this time?
struct PredictCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "predict",
        abstract: "Chance a bridge opens in a window, chance it is open on arrival, and the expected delay.",
        discussion: """
            Reads the opening model (15-minute slots of the week, built from the stored
            history at each sync and rebuilt here if the history changed since). The
            expected delay is the chance the bridge is open when you arrive times the mean
            time it then stays open. Evidence: how many openings the covered slots saw in
            the history, and what happened in the last five similar slots. Example:
              bridget predict --bridge Fremont --at "2026-12-01 17:40" --window 20m
            """)

    @OptionGroup var global: GlobalOptions
    @OptionGroup var output: FormatOptions

    @Option(name: .long, help: "A bridge id or name (e.g. 3 or Fremont).")
    var bridge: String

    @Option(name: .long, help: "Seattle local time, 'YYYY-MM-DD HH:MM' (default: now).")
    var at: String?

    @Option(name: .long, help: "How far ahead to look: minutes, e.g. 20m, 45, 1h (default 20m).")
    var window: String = "20m"

    struct Slot: Encodable {
        let from: String
        let openings: [String]
    }

    struct Output: Encodable {
        let forecast: ForecastDTO
        let modelBuiltAt: Date
        let history: String
        let lastSimilarSlots: [Slot]
    }

    func run() async throws {
        try await reportingErrors {
            let minutes = try TimeArgument.minutes(window, option: "--window")
            let context = try CommandContext.load(global)
            let store = try await context.openStoreForReading()
            let target = try await context.bridge(named: bridge, in: store)
            let time = LocalClock.seattle
            let reading = try at.map { text -> FloatingTimestamp in
                time.reading(for: try TimeArgument.parse(text, option: "--at"))
            } ?? time.reading(for: context.assembly.now())
            let model = try await context.currentModel(bridgeID: target.id, store: store)
            guard model.openings > 0 else {
                throw BridgetError.validation("no-history", "no openings of \(target.name) are stored",
                                              hint: "run `bridget sync` first")
            }
            let forecast = OpeningModelBuilder.forecast(model, bridge: target, at: reading, windowMinutes: minutes)
            let similar = try await lastSimilarSlots(store: store, bridgeID: target.id, at: reading, minutes: minutes,
                                                     lastDay: model.lastDay, time: time)
            let history = "\(model.firstDay ?? "?") to \(model.lastDay ?? "?")"
            let rows: [[Cell]] = [
                [Cell("chance of an opening in the next \(minutes) min"), Cell(Self.percent(forecast.chanceOfOpening)),
                 Cell("usual for \(minutes) min: " + Self.percent(forecast.baseChanceOfOpening))],
                [Cell("chance it is open on arrival"), Cell(Self.percent(forecast.chanceOpenOnArrival)), Cell("")],
                [Cell("expected delay"), Cell(String(format: "%.1f min", forecast.expectedDelayMinutes)), Cell("")],
            ]
            var notes = ["", "\(target.name), \(Self.weekdayName(reading)) \(forecast.at.replacingOccurrences(of: "T", with: " ")) "
                         + "(Seattle time). Evidence: \(forecast.sampleStarts) openings in \(forecast.sampleOccurrences) "
                         + "occurrences of these 15-minute slots, history \(history).", "Last similar slots:"]
            notes += similar.map { "  \($0.from)  " + ($0.openings.isEmpty ? "no opening" : $0.openings.joined(separator: ", ")) }
            try OutputWriter(format: output.format).write(
                Output(forecast: forecast, modelBuiltAt: model.builtAt, history: history, lastSimilarSlots: similar),
                tabular: Tabular(columns: ["question", "answer", "compare"], rows: rows), notes: notes)
        }
    }

    /// The same weekday and time in the five latest weeks of the history before `at`.
    private func lastSimilarSlots(store: any EventStore, bridgeID: String, at reading: FloatingTimestamp, minutes: Int,
                                  lastDay: String?, time: LocalClock) async throws -> [Slot] {
        guard let last = lastDay.flatMap(LocalDay.init) else { return [] }
        var day = reading.dayNumber - 7
        while day > last.number { day -= 7 }
        var slots: [Slot] = []
        for _ in 0..<5 {
            let wall = Int64(day) * 86_400 + Int64(reading.hour * 3600 + reading.minute * 60)
            let start = FloatingTimestamp(wallClockSeconds: wall)
            let from = time.openingInstant(for: start)
            let events = try await store.events(matching: EventQuery(
                bridgeID: bridgeID, openedFrom: from, openedBefore: from.addingTimeInterval(Double(minutes) * 60)))
            slots.append(Slot(
                from: String(start.description.prefix(16)).replacingOccurrences(of: "T", with: " "),
                openings: events.map { event in
                    String(event.openLocal.dropFirst(11).prefix(5)) + (event.durationMinutes.map { " (\(Int($0)) min)" } ?? "")
                }))
            day -= 7
        }
        return slots
    }

    static func percent(_ value: Double) -> String {
        value < 0.1 ? String(format: "%.1f%%", value * 100) : String(format: "%.0f%%", value * 100)
    }

    static func weekdayName(_ reading: FloatingTimestamp) -> String {
        ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"][reading.weekday - 1]
    }
}
