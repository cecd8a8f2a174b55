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
    // MARK: A bridge's page

    /// A bridge's page: its statistics over its own days, the hour-of-week heatmap, its openings per month and
    /// their durations, and its last 20 openings.
    package func bridgePage(_ bridge: BridgeInfoDTO) async throws -> String {
        let activity = try await bridgeList().first { $0.bridge.id == bridge.id }
        return try await bridgePage(activity ?? BridgeActivity(bridge: bridge, openings: 0, lastOpening: nil))
    }

    func bridgePage(_ item: BridgeActivity) async throws -> String {
        let clock = context.clock
        let bridge = item.bridge
        // The bridge's kept counts, over its own span: statistics, heatmap, months and durations, no history read.
        let tally = try await KeptFigures(context: context, store: store).figures().tallies[bridge.id]
        let span = tally.span
        let statistics = OpeningStatistics.statistics(for: bridge, tally: tally, span: span)
        let weeks = Double(max(span.days, 1)) / 7
        let months = statistics.monthlyTrend.sorted { $0.key < $1.key }.map { (label: $0.key, value: Double($0.value)) }
        let latest = try await store.events(matching: EventQuery(
            bridgeID: bridge.id, openedBefore: now.addingTimeInterval(0.001), limit: 20, newestFirst: true, happened: true))
        let announced = try await store.events(matching: EventQuery(
            bridgeID: bridge.id, openedFrom: now, limit: 20, status: .planned))
        let status = try await StatusNowAnswer.current(books: HistoryBooks(context: context, store: store),
                                                       bridges: [bridge], now: now)
        let (state, nowText) = Self.nowText(status.bridges.first, clock: clock)
        let book = try await HistoryBooks(context: context, store: store).book()
        let model = try await book.model(bridge.id)
        let rules = RulesAnswer.lines(
            for: bridge, calendar: try await book.ruleCalendar(), model: model,
            catalog: book.catalog, today: LocalDay(containing: now, time: clock).number, nowReading: clock.reading(for: now))
        // The next 20 minutes, with what moved the chance.
        let soon: ForecastDTO? = if let model, model.openings > 0 {
            try await book.nowcaster().forecast(model, bridge: bridge, at: clock.reading(for: now), windowMinutes: 20,
                                                evidence: try await book.evidence(at: now, windowMinutes: 20))
        } else {
            nil
        }
        let summary: String = (statistics.openings > 0 ? statistics : nil).map { figures in
            "\(figures.openings) opening\(figures.openings == 1 ? "" : "s") from \(span.firstDay?.dateString ?? "?") to \(span.lastDay?.dateString ?? "?"), "
                + String(format: "%.2f a day", figures.openingsPerDay)
                + (figures.medianMinutes.map { ", lasting \(ChartText.number($0)) minutes at the median" } ?? "") + "."
        } ?? "No openings of this bridge are stored yet."
        // Each part typed on its own line: as arguments of one initializer they cost the type checker seconds.
        let openings: [BridgePageView.Opening] = latest.map { event in
            BridgePageView.Opening(opened: clock.display(event.openedAt),
                                   minutes: event.durationMinutes.map { ChartText.number($0) } ?? "–")
        }
        let announcedRows: [BridgePageView.Announced] = announced.map { event in
            BridgePageView.Announced(
                opens: clock.display(event.openedAt), until: event.closedAt.map { clock.display($0) } ?? "–",
                inText: StatusNowAnswer.span(event.openedAt.timeIntervalSince(now), roundingUp: true))
        }
        let listsEveryAnnouncement: Bool = (try? context.assembly.makeProvider().listsEveryAnnouncement) ?? false
        let keyFact = keyFact(nowText, state: state, line: status.bridges.first, soon: soon)
        let soonText = soon.map { soon in
            (state == "open" ? "After this opening, a " : "A ")
                + "\(ChartText.percent(soon.chanceOfOpening)) chance of an opening starting in the next 20 minutes "
                + "(\(ChartText.percent(soon.slotChanceOfOpening)) from the time of week alone)."
        }
        let why: [String] = soon?.reasons.map(\.text) ?? []
        let monthly = Self.monthlyChart(months, span: span)
        let durations = Self.durationChart(tally.durations, openings: statistics.openings)
        let view = BridgePageView(
            frame: frame("\(bridge.name) – Bridget", top: false), homeHref: homeHref(top: false),
            name: bridge.name,
            about: Optional([bridge.waterway, bridge.kind].filter { !$0.isEmpty }.joined(separator: ", "))
                .flatMap { $0.isEmpty ? nil : $0 },
            summary: summary,
            heatmap: HeatmapChart(id: "heatmap", counts: statistics.hourOfWeek, weeks: weeks, zone: clock.zone.identifier),
            monthly: monthly, durations: durations,
            hasOpenings: !openings.isEmpty, openings: openings,
            state: state, now: keyFact, statusAsOf: clock.display(status.asOf), hasAnnounced: !announcedRows.isEmpty,
            announced: announcedRows, announcesNothing: !listsEveryAnnouncement, rules: rules,
            soon: soonText, why: why, hasWhy: !why.isEmpty)
        return PageTemplates.render(view, as: "bridge")
    }

    /// The first thing a bridge's page says: open now and until when, else its state.
    private func keyFact(_ nowText: String, state: String, line: BridgeStatusNow?, soon: ForecastDTO?) -> String {
        let clock = context.clock
        var keyFact = nowText.prefix(1).uppercased() + nowText.dropFirst()
        if state == "open", line?.expectedEnd == nil, let soon, soon.chanceOpenOnArrival >= 1 {
            let minutes = Int(soon.expectedDelayMinutes.rounded(.up))
            let by = clock.reading(for: now.addingTimeInterval(Double(minutes) * 60)).localText.dropFirst(11).prefix(5)
            keyFact += ": expected to close in about \(minutes) min (by \(by))"
        }
        return keyFact
    }

    /// Openings per month, a month the history covers only part of marked so.
    private static func monthlyChart(_ months: [(label: String, value: Double)], span: HistorySpan) -> BarChart {
        var partialMonths: [Int: String] = [:]
        if let first = span.firstDay, let index = months.firstIndex(where: { $0.label == String(first.dateString.prefix(7)) }),
           !first.dateString.hasSuffix("-01") {
            partialMonths[index] = "a partial month: the history starts on \(first.dateString)"
        }
        if let last = span.lastDay, let index = months.lastIndex(where: { $0.label == String(last.dateString.prefix(7)) }),
           !FloatingTimestamp(wallClockSeconds: last.wallClockSeconds + 86_400).dateString.hasSuffix("-01") {
            partialMonths[index] = "a partial month: the history ends on \(last.dateString)"
        }
        return BarChart(
            id: "months", title: "Openings per month", unit: "openings", values: months, partial: partialMonths,
            xTitle: "month", yTitle: "openings",
            caption: "Openings on record each month" + (partialMonths.isEmpty ? "." : "; a pale, dashed bar is a month "
                + "the history covers only part of, so it is short, not quiet."))
    }

    /// How long openings last: bins of a round width, about 12 over the first two hours; longer openings go in the
    /// last, open-ended bin.
    private static func durationChart(_ durations: DurationCounts, openings: Int) -> BarChart {
        let longest = min(durations.maxMinutes ?? 0, 120)
        let width = max(LinearScale.tickStep(span: longest, count: 12), 1)
        let bins = durations.histogram(binMinutes: width, maximumBins: min(Int((longest / width).rounded(.up)) + 1, 40))
        let durationBars: [(label: String, value: Double)] = bins.map { bin in
            (label: bin.isOpenEnded ? ChartText.number(bin.fromMinutes) + "+"
                : ChartText.number(bin.fromMinutes) + "–" + ChartText.number(bin.fromMinutes + width), value: Double(bin.count))
        }
        return BarChart(
            id: "durations", title: "How long openings last", unit: "openings", values: durationBars,
            xTitle: "minutes open", yTitle: "openings",
            caption: "How many openings lasted each span of minutes (each bar \(ChartText.number(width)) minutes wide; the "
                + "last also holds any longer ones), from the \(openings) on record.")
    }
}
