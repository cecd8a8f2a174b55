import BridgetAnalysis
import BridgetAnswers
import BridgetCaching
import BridgetCharts
import BridgetContext
import BridgetCore
import BridgetDTOs
import BridgetPersistence
import Foundation

/// Bridget's pages, rendered from the store: the overview (`index.html`), a page per bridge (`bridges/ID.html`) and
/// per saved route (`routes/NAME.html`), and the quality page. The figures come from the app core and Analysis (the
/// kept tallies, the opening models, the route answers); each page builds its view model from them and its template
/// lays it out. No external file, and one small script (a tap shows a mark's tip): readable with JavaScript off. The same pages are written to a folder
/// (`bridget report`, relative links) or served (`bridget serve`, the server's paths).
package struct Site: Sendable {
    package let context: AppContext
    package let store: any BridgeStore
    /// The moment the pages are about ("now" on the overview, today's departures on a route page).
    package let now: Date
    /// How pages link to each other.
    package let links: Links

    /// How pages link to each other: files side by side, or the server's paths.
    package enum Links: Sendable {
        /// `index.html`, `bridges/3.html`, relative, so a folder of files works anywhere.
        case files
        /// `/`, `/bridges/3`, `/routes/NAME`, as `bridget serve` answers them.
        case server
    }

    package init(context: AppContext, store: any BridgeStore, now: Date, links: Links = .files) {
        self.context = context
        self.store = store
        self.now = now
        self.links = links
    }

    // MARK: Addresses

    /// The overview's address from a page one folder down (`top: false`) or at the top.
    func homeHref(top: Bool) -> String {
        switch links {
        case .files: top ? "index.html" : "../index.html"
        case .server: "/"
        }
    }

    /// The quality page's address from the overview.
    var qualityHref: String { links == .files ? "quality.html" : "/quality" }

    /// A bridge page's address from the overview.
    func bridgeHref(_ id: String) -> String {
        switch links {
        case .files: Self.bridgePath(id)
        case .server: "/bridges/" + Self.pathSegment(id)
        }
    }

    /// A route page's address from the overview.
    func routeHref(_ name: String) -> String {
        switch links {
        case .files: Self.routePath(name)
        case .server: "/routes/" + Self.pathSegment(name)
        }
    }

    /// A bridge page's file under the site's root.
    package static func bridgePath(_ id: String) -> String { "bridges/" + slug(id) + ".html" }

    /// A route page's file under the site's root.
    package static func routePath(_ name: String) -> String { "routes/" + slug(name) + ".html" }

    /// Text as one percent-encoded path segment (a `/` in a route name included).
    static func pathSegment(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(["/"])) ?? text
    }

    /// A file name from any text: letters and digits kept, everything else as `-XX` hex, so two names never meet; a
    /// name that would pass 200 bytes (a file system takes 255) keeps its first 180 and a digest of the whole.
    package static func slug(_ text: String) -> String {
        let whole = hexSlug(text)
        guard whole.utf8.count > 200 else { return whole }
        return String(whole.prefix(180)) + "-" + FNV1a.hex(FNV1a.hash(text))
    }

    private static func hexSlug(_ text: String) -> String {
        var result = ""
        for byte in text.utf8 {
            let scalar = Unicode.Scalar(byte)
            if (byte < 0x80 && CharacterSet.alphanumerics.contains(scalar)) || byte == UInt8(ascii: "_") {
                result.unicodeScalars.append(scalar)
            } else {
                result += String(format: "-%02X", byte)
            }
        }
        return result.isEmpty ? "-" : result
    }

    // MARK: Every page

    /// Every page: its path under the site's root, and its HTML.
    package func pages() async throws -> [(path: String, html: String)] {
        let bridges = try await bridgeList()
        var pages = [(path: "index.html", html: try await overview(bridges))]
        for bridge in bridges {
            pages.append((path: Self.bridgePath(bridge.bridge.id), html: try await bridgePage(bridge)))
        }
        for route in try await context.savedRoutes(store).routes() {
            pages.append((path: Self.routePath(route.id), html: try await routePage(route)))
        }
        pages.append((path: "quality.html", html: try await qualityPage()))
        return pages
    }

    /// The stored bridges with their activity, or the catalog before any sync.
    func bridgeList() async throws -> [BridgeActivity] {
        let activity = try await KeptFigures(context: context, store: store).figures().activity
        if !activity.isEmpty { return activity }
        return try await context.catalog(in: store).bridges.map { BridgeActivity(bridge: $0, openings: 0, lastOpening: nil) }
    }

    /// The frame of a page titled `title`.
    func frame(_ title: String, top: Bool) -> PageFrame {
        PageFrame(title: title, zone: context.clock.zone.identifier, version: BridgetVersion.current,
                  madeAt: context.clock.display(now), homeHref: homeHref(top: top))
    }

    // MARK: The overview

    /// The overview: every bridge's chance of an opening in each quarter hour of the next 12 hours, the freshness of
    /// the data, a map and the saved routes.
    package func overview() async throws -> String { try await overview(try await bridgeList()) }

    func overview(_ bridges: [BridgeActivity]) async throws -> String {
        let clock = context.clock
        let models = try await models(bridges.map(\.bridge.id))
        let slots = quarterHours()
        var rows: [OverviewView.BridgeRow] = []
        var places: [MapChart.Input] = []
        let status = try await StatusNowAnswer.current(books: HistoryBooks(context: context, store: store), now: now)
        let book = try await HistoryBooks(context: context, store: store).book()
        let nowcaster = try await book.nowcaster()
        let evidence = try await book.evidence(at: now, windowMinutes: 15)
        let evidenceSoon = try await book.evidence(at: now, windowMinutes: 30)
        // Openings as every page and `stats` count them (rows of a bridge closer than the merge gap are one).
        let tallies = try await KeptFigures(context: context, store: store).figures().tallies
        let states = Dictionary(status.bridges.map { ($0.bridgeID, $0) }, uniquingKeysWith: { first, _ in first })
        for item in bridges {
            let bridge = item.bridge
            let title = "\(bridge.name): the next 12 hours"
            let id = "strip-\(Self.slug(bridge.id))"
            var soon = 0.0
            let strip: StripChart
            if let model = models[bridge.id] {
                // The first quarter hour with what was seen before now; the rest from the time of week and the rules
                // (a holiday's rush hour as a Sunday's, a closure as none).
                let chances = slots.enumerated().map { index, reading in
                    (label: String(reading.localText.dropFirst(11).prefix(5)),
                     chance: nowcaster.forecast(model, bridge: bridge, at: reading, windowMinutes: 15,
                                                evidence: index == 0 ? evidence : .unknown).chanceOfOpening)
                }
                soon = nowcaster.forecast(model, bridge: bridge, at: slots[0], windowMinutes: 30,
                                          evidence: evidenceSoon).chanceOfOpening
                strip = StripChart(id: id, title: title, slots: chances, nowIndex: 0)
            } else {
                strip = StripChart(empty: id, title: title, message: "no history to forecast from")
            }
            let line = states[bridge.id]
            let (state, nowText) = Self.nowText(line, clock: clock)
            places.append(MapChart.Input(name: bridge.name, latitude: bridge.latitude, longitude: bridge.longitude,
                                         waterway: bridge.waterway, chance: soon, link: bridgeHref(bridge.id),
                                         state: state == "closed" ? nil : state, stateText: state == "closed" ? nil : nowText))
            rows.append(OverviewView.BridgeRow(
                id: bridge.id, name: bridge.name, href: bridgeHref(bridge.id), strip: strip,
                lastOpening: item.lastOpening.map { clock.display($0) } ?? "none on record",
                stored: tallies[bridge.id].openings,
                state: state, now: nowText))
        }
        let map = MapChart(id: "map", title: "The bridges, by the chance of an opening in the next 30 minutes",
                           places: places, tiles: tiles, soonMinutes: status.soonMinutes)
        let run = try await store.syncRuns(limit: 1).first
        let newest = try await store.latestOpening()
        let routes = try await context.savedRoutes(store).routes()
        // A saved route's next commute on the overview: the first few routes (each is a day's scoring).
        var routeLinks: [OverviewView.RouteLink] = []
        for (index, route) in routes.enumerated() {
            let next = index < 5 && newest != nil ? try? await nextCommute(route).sentence : nil
            routeLinks.append(OverviewView.RouteLink(name: route.id, href: routeHref(route.id), next: next))
        }
        let view = OverviewView(
            frame: frame("Bridget", top: true),
            newest: newest.map { clock.display($0) } ?? "none",
            lastSync: run.map { "\(clock.display($0.startedAt)), \($0.status.rawValue), \($0.counts.inserted) new" } ?? "never",
            source: context.configuration.provider.rawValue,
            start: String(slots[0].localText.dropFirst(11).prefix(5)),
            stripKey: .chances(id: "strip-key", over: "in each quarter hour"), rows: rows,
            map: map,
            statusAsOf: clock.display(status.asOf), caveat: status.caveat,
            openNow: rows.filter { $0.state == "open" }.map { "\($0.name): \($0.now)." },
            hasRoutes: !routes.isEmpty, routes: routeLinks,
            qualityHref: qualityHref)
        return PageTemplates.render(view, as: "overview")
    }

    /// The basemap's tiles, when the configuration names a tile server (`pages.tiles_url`).
    var tiles: MapChart.Tiles? {
        context.configuration.pages.tilesURL.map {
            MapChart.Tiles(template: $0, attribution: context.configuration.pages.tilesAttribution)
        }
    }

    /// A bridge's state now (`open`, `soon`, `closed`, `unknown`) and what a page says of it.
    static func nowText(_ line: BridgeStatusNow?, clock: LocalClock) -> (String, String) {
        guard let line else { return ("unknown", "not known now") }
        func time(_ instant: Date) -> String { String(clock.reading(for: instant).localText.dropFirst(11).prefix(5)) }
        switch line.state {
        case .open:
            return ("open", "open since " + (line.openSince.map(time) ?? "?")
                + (line.basis == .planned ? " (announced)" : line.basis == .live ? " (seen live)" : "")
                + (line.expectedEnd.map { ", until " + time($0) } ?? ""))
        case .openingSoon:
            return ("soon", "opens in \(line.opensInMinutes ?? 0) min (" + (line.opensAt.map(time) ?? "?") + ")")
        case .closed:
            return ("closed", "closed" + (line.nextPlanned.map { "; next announced " + clock.display($0.openedAt) } ?? ""))
        case .unknown:
            return ("unknown", "not known now"
                + (line.live.map { " (the live feed last read it at " + time($0.lastSeenAt) + ")" }
                    ?? line.unknownBecause.map { " (" + $0 + ")" } ?? ""))
        }
    }

    /// The opening models of `ids`, or none when nothing is stored.
    func models(_ ids: [String]) async throws -> [String: OpeningModelDTO] {
        guard try await store.latestOpening() != nil, !ids.isEmpty else { return [:] }
        let models = try await OpeningModels(context: context, store: store).current(bridgeIDs: ids)
        return Dictionary(models.map { ($0.bridgeID, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The 48 quarter hours from the one holding `now`: their local readings.
    func quarterHours() -> [FloatingTimestamp] {
        let reading = context.clock.reading(for: now)
        let start = reading.wallClockSeconds - Int64(reading.minute % 15) * 60 - Int64(reading.second)
        return (0..<48).map { FloatingTimestamp(wallClockSeconds: start + Int64($0) * 900) }
    }

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
        // Bins of a round width, about 12 over the first two hours; longer openings go in the last, open-ended bin.
        let longest = min(tally.durations.maxMinutes ?? 0, 120)
        let width = max(LinearScale.tickStep(span: longest, count: 12), 1)
        let bins = tally.durations.histogram(binMinutes: width,
                                             maximumBins: min(Int((longest / width).rounded(.up)) + 1, 40))
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
        let durationBars: [(label: String, value: Double)] = bins.map { bin in
            (label: bin.isOpenEnded ? ChartText.number(bin.fromMinutes) + "+"
                : ChartText.number(bin.fromMinutes) + "–" + ChartText.number(bin.fromMinutes + width), value: Double(bin.count))
        }
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
        // The first thing the page says: open now and until when, else its state.
        var keyFact = nowText.prefix(1).uppercased() + nowText.dropFirst()
        if state == "open", status.bridges.first?.expectedEnd == nil, let soon, soon.chanceOpenOnArrival >= 1 {
            let minutes = Int(soon.expectedDelayMinutes.rounded(.up))
            let by = clock.reading(for: now.addingTimeInterval(Double(minutes) * 60)).localText.dropFirst(11).prefix(5)
            keyFact += ": expected to close in about \(minutes) min (by \(by))"
        }
        var soonText: String?
        if let soon {
            soonText = (state == "open" ? "After this opening, a " : "A ")
                + "\(ChartText.percent(soon.chanceOfOpening)) chance of an opening starting in the next 20 minutes "
                + "(\(ChartText.percent(soon.slotChanceOfOpening)) from the time of week alone)."
        }
        let why: [String] = soon?.reasons.map(\.text) ?? []
        var partialMonths: [Int: String] = [:]
        if let first = span.firstDay, let index = months.firstIndex(where: { $0.label == String(first.dateString.prefix(7)) }),
           !first.dateString.hasSuffix("-01") {
            partialMonths[index] = "a partial month: the history starts on \(first.dateString)"
        }
        if let last = span.lastDay, let index = months.lastIndex(where: { $0.label == String(last.dateString.prefix(7)) }),
           !FloatingTimestamp(wallClockSeconds: last.wallClockSeconds + 86_400).dateString.hasSuffix("-01") {
            partialMonths[index] = "a partial month: the history ends on \(last.dateString)"
        }
        let monthly = BarChart(
            id: "months", title: "Openings per month", unit: "openings", values: months, partial: partialMonths,
            xTitle: "month", yTitle: "openings",
            caption: "Openings on record each month" + (partialMonths.isEmpty ? "." : "; a pale, dashed bar is a month "
                + "the history covers only part of, so it is short, not quiet."))
        let durations = BarChart(
            id: "durations", title: "How long openings last", unit: "openings", values: durationBars,
            xTitle: "minutes open", yTitle: "openings",
            caption: "How many openings lasted each span of minutes (each bar \(ChartText.number(width)) minutes wide; the "
                + "last also holds any longer ones), from the \(statistics.openings) on record.")
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

    // MARK: The quality page

    /// How far to trust a forecast: the backtest of `bridget backtest` (trained on the history's first three
    /// quarters, tested on the last), as a reliability diagram and each bridge's skill.
    package func qualityPage() async throws -> String {
        let frame = frame("Forecast quality – Bridget", top: true)
        let provenance = try await KeptFigures(context: context, store: store).provenance(now: now)
        func page(message: String?, tested: QualityPageView.Tested? = nil) -> String {
            PageTemplates.render(QualityPageView(frame: frame, homeHref: homeHref(top: true), message: message,
                                                 tested: tested, provenance: provenance.sentence), as: "quality")
        }
        let result: BacktestDTO
        switch try await KeptFigures(context: context, store: store).qualityBacktest() {
        case .noOpenings: return page(message: "No openings are stored yet, so no forecast can be tested.")
        case .tooShort: return page(message: "Less than a week of history is stored: too little to test on.")
        case .tested(let backtest): result = backtest
        }
        guard let window = result.windows.first else { return page(message: "Nothing to test.") }
        let bins = window.reliability.compactMap { bin in
            bin.meanPredicted.flatMap { predicted in bin.observed.map { (predicted: predicted, observed: $0, count: bin.count) } }
        }
        return page(message: nil, tested: QualityPageView.Tested(
            testFrom: result.testFrom, testUntil: result.testUntil, testOpenings: result.testOpenings,
            minutes: window.minutes,
            reliability: ReliabilityChart(id: "reliability",
                                          title: "Predicted against observed (\(window.minutes)-minute windows)", bins: bins),
            rows: ([nil] + window.bridges.map(\.bridgeID)).compactMap { bridgeID -> QualityPageView.Row? in
                guard let all = window.comparison(bridgeID: bridgeID) else { return nil }
                let after = window.comparison(bridgeID: bridgeID, subset: "after-neighbour")
                return QualityPageView.Row(
                    bridge: all.bridgeName ?? "All bridges", points: all.points,
                    forecast: BacktestReading.skill(all.nowcast), timeOfWeek: BacktestReading.skill(all.slot),
                    beats: all.nowcast.isAboveZero ? "yes" : (all.nowcast.isBelowZero ? "worse" : "not shown"),
                    afterNeighbour: after.flatMap { $0.points > 0 ? BacktestReading.skill($0.nowcast) : nil } ?? "–",
                    afterReliability: after?.reliabilityError.map { String(format: "%.0f points", ($0 * 100).rounded(.up)) }
                        ?? "–")
            },
            verdict: BacktestReading.verdict(result)))
    }

    // MARK: An error

    /// A page saying what went wrong, for a person (the server's pages answer errors with it).
    package func errorPage(title: String, detail: String) -> String {
        PageTemplates.render(ErrorPageView(frame: frame("\(title) – Bridget", top: true), homeHref: homeHref(top: true),
                                           title: title, detail: detail), as: "error")
    }
}
