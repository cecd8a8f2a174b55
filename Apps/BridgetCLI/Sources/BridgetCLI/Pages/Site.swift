import BridgetAnalysis
import BridgetCharts
import BridgetDTOs
import BridgetPersistence
import Foundation

/// Bridget's pages as HTML with inline SVG charts, rendered from the store: the overview (`index.html`), a page per
/// bridge (`bridges/ID.html`) and per saved route (`routes/NAME.html`). Links are relative, so the same files work
/// written to a folder (`bridget report`) or served. No script, no external file: readable with JavaScript off.
struct Site: Sendable {
    let context: CommandContext
    let store: any BridgeStore
    /// The moment the pages are about ("now" on the overview, today's departures on a route page).
    let now: Date
    /// How pages link to each other: files side by side (`bridget report`), or the server's paths.
    var links: Links = .files

    enum Links: Sendable {
        /// `index.html`, `bridges/3.html`, relative, so a folder of files works anywhere.
        case files
        /// `/`, `/bridges/3`, `/routes/NAME`, as `bridget serve` answers them.
        case server
    }

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
        case .server: "/bridges/" + (id.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(["/"])) ?? id)
        }
    }

    /// A route page's address from the overview.
    func routeHref(_ name: String) -> String {
        switch links {
        case .files: Self.routePath(name)
        case .server: "/routes/" + (name.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(["/"])) ?? name)
        }
    }

    /// Every page: its path under the site's root, and its HTML.
    func pages() async throws -> [(path: String, html: String)] {
        let bridges = try await bridgeList()
        var pages = [(path: "index.html", html: try await overview(bridges))]
        for bridge in bridges {
            pages.append((path: Self.bridgePath(bridge.bridge.id), html: try await bridgePage(bridge)))
        }
        let file = try await context.routeFile(migratingFrom: store)
        for route in try await file.routes() {
            pages.append((path: Self.routePath(route.id), html: try await routePage(route)))
        }
        pages.append((path: "quality.html", html: try await qualityPage()))
        return pages
    }

    static func bridgePath(_ id: String) -> String { "bridges/" + slug(id) + ".html" }
    static func routePath(_ name: String) -> String { "routes/" + slug(name) + ".html" }

    /// A file name from any text: letters and digits kept, everything else as `-XX` hex, so two names never meet.
    static func slug(_ text: String) -> String {
        var result = ""
        for byte in text.utf8 {
            let scalar = Unicode.Scalar(byte)
            if (byte < 0x80 && (CharacterSet.alphanumerics.contains(scalar))) || byte == UInt8(ascii: "_") {
                result.unicodeScalars.append(scalar)
            } else {
                result += String(format: "-%02X", byte)
            }
        }
        return result.isEmpty ? "-" : result
    }

    // MARK: The data

    /// The stored bridges with their activity, or the provider's catalog before any sync.
    func bridgeList() async throws -> [BridgeActivity] {
        let activity = try await figures().activity
        if !activity.isEmpty { return activity }
        let known = try await store.bridges()
        return (known.isEmpty ? BridgeCatalog.seattle.bridges : known).map { BridgeActivity(bridge: $0, openings: 0, lastOpening: nil) }
    }

    /// The opening models of `ids`, or none when nothing is stored.
    func models(_ ids: [String]) async throws -> [String: OpeningModelDTO] {
        guard try await store.latestOpening() != nil, !ids.isEmpty else { return [:] }
        let models = try await context.currentModels(bridgeIDs: ids, store: store)
        return Dictionary(models.map { ($0.bridgeID, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The 48 quarter hours from the one holding `now`: their local readings.
    func slots() -> [FloatingTimestamp] {
        let reading = context.assembly.clock.reading(for: now)
        let start = reading.wallClockSeconds - Int64(reading.minute % 15) * 60 - Int64(reading.second)
        return (0..<48).map { FloatingTimestamp(wallClockSeconds: start + Int64($0) * 900) }
    }

    // MARK: Pages

    func overview(_ bridges: [BridgeActivity]) async throws -> String {
        let clock = context.assembly.clock
        let models = try await models(bridges.map(\.bridge.id))
        let slots = slots()
        var rows = ""
        var places: [(name: String, latitude: Double, longitude: Double, chance: Double, link: String)] = []
        for item in bridges {
            let bridge = item.bridge
            let model = models[bridge.id]
            let chart: String
            var soon = 0.0
            if let model {
                let chances = slots.map { reading in
                    (label: String(reading.localText.dropFirst(11).prefix(5)),
                     chance: OpeningModelBuilder.forecast(model, bridge: bridge, at: reading, windowMinutes: 15).chanceOfOpening)
                }
                soon = OpeningModelBuilder.forecast(model, bridge: bridge, at: slots[0], windowMinutes: 30).chanceOfOpening
                chart = SVGCharts.strip(id: "strip-\(Self.slug(bridge.id))", title: "\(bridge.name): the next 12 hours",
                                        slots: chances, nowIndex: 0)
            } else {
                chart = SVGCharts.empty(id: "strip-\(Self.slug(bridge.id))", width: 480, height: 26,
                                        title: "\(bridge.name): the next 12 hours", message: "no history to forecast from")
            }
            places.append((bridge.name, bridge.latitude, bridge.longitude, soon, bridgeHref(bridge.id)))
            rows += """
                <tr class="bridge-row" data-bridge="\(escapedHTML(bridge.id))"><th scope="row"><a href="\(escapedHTML(bridgeHref(bridge.id)))">\
                \(escapedHTML(bridge.name))</a></th><td>\(chart)</td><td>\(escapedHTML(item.lastOpening.map { clock.display($0) } ?? "none stored"))</td>\
                <td class="number">\(item.openings)</td></tr>

                """
        }
        let run = try await store.syncRuns(limit: 1).first
        let newest = try await store.latestOpening()
        let freshness = """
            <p class="freshness">Newest stored opening: <strong>\(escapedHTML(newest.map { clock.display($0) } ?? "none"))</strong>. \
            Last sync: <strong>\(escapedHTML(run.map { "\(clock.display($0.startedAt)), \($0.status.rawValue), \($0.counts.inserted) new" } ?? "never"))</strong>. \
            Source: \(escapedHTML(context.assembly.configuration.provider.rawValue)).</p>
            """
        let saved = try await context.routeFile(migratingFrom: store).routes()
        let routes = saved.isEmpty ? "" : "<h2>Saved routes</h2><ul class=\"routes\">"
            + saved.map { "<li><a href=\"\(escapedHTML(routeHref($0.id)))\">\(escapedHTML($0.id))</a></li>" }.joined()
            + "</ul>"
        let start = String(slots[0].localText.dropFirst(11).prefix(5))
        let body = """
            <h1>Bridget: drawbridge openings</h1>
            \(freshness)
            <h2>The next 12 hours</h2>
            <p>Each cell is a quarter hour from \(escapedHTML(start)) (marked now), darker for a higher chance of an \
            opening (50% or more is darkest); hover a cell for its chance.</p>
            <table class="overview"><thead><tr><th scope="col">Bridge</th><th scope="col">Chance of an opening, 15-minute slots</th>\
            <th scope="col">Last opening</th><th scope="col">Stored rows</th></tr></thead><tbody>
            \(rows)</tbody></table>
            <h2>Map</h2>
            \(SVGCharts.map(id: "map", title: "The bridges, by the chance of an opening in the next 30 minutes", places: places))
            """
        let quality = "<p><a href=\"\(escapedHTML(qualityHref))\">How far to trust a forecast</a> (the backtest)</p>"
        return page(title: "Bridget", top: true, body: body + routes + quality)
    }

    func bridgePage(_ item: BridgeActivity) async throws -> String {
        let clock = context.assembly.clock
        let bridge = item.bridge
        // The bridge's kept counts, over its own span: statistics, heatmap, months and durations, no history read.
        let tally = try await figures().tallies[bridge.id]
        let span = tally.span
        let statistics = OpeningStatistics.statistics(for: bridge, tally: tally, span: span)
        let weeks = Double(max(span.days, 1)) / 7
        let heatmap = SVGCharts.heatmap(id: "heatmap", counts: statistics.hourOfWeek,
                                        weeks: weeks, zone: clock.zone.identifier)
        let months = statistics.monthlyTrend.sorted { $0.key < $1.key }
            .map { (label: $0.key, value: Double($0.value)) }
        let monthly = SVGCharts.bars(id: "months", title: "Openings per month", unit: "openings",
                                     values: months, labelEvery: max(months.count / 8, 1))
        let durations = tally.durations
        var bins: [(label: String, value: Double)] = []
        if let longest = durations.maxMinutes {
            let width = max(LinearScale.tickStep(span: min(longest, 120), count: 12), 1)
            let count = min(Int((min(longest, 120) / width).rounded(.up)) + 1, 40)
            var counts = Array(repeating: 0.0, count: count)
            for (duration, openings) in durations.ascendingMinutes {
                counts[min(Int(duration / width), count - 1)] += Double(openings)
            }
            bins = counts.enumerated().map { index, value in
                (label: index == count - 1 ? "\(SVGCharts.number(Double(index) * width))+" : SVGCharts.number(Double(index) * width), value: value)
            }
        }
        let histogram = SVGCharts.bars(id: "durations", title: "How long openings last (minutes)", unit: "openings",
                                       values: bins, labelEvery: max(bins.count / 10, 1))
        let latest = try await store.events(matching: EventQuery(bridgeID: bridge.id, limit: 20, newestFirst: true))
        let rows = latest.map { event in
            "<tr><td>\(escapedHTML(clock.display(event.openedAt)))</td><td class=\"number\">"
                + "\(escapedHTML(event.durationMinutes.map { SVGCharts.number($0) } ?? "–"))</td></tr>"
        }.joined(separator: "\n")
        let summary = (statistics.openings > 0 ? statistics : nil).map { figures in
            "\(figures.openings) openings from \(span.firstDay?.dateString ?? "?") to \(span.lastDay?.dateString ?? "?"), "
                + String(format: "%.2f a day", figures.openingsPerDay)
                + (figures.medianMinutes.map { ", lasting \(SVGCharts.number($0)) minutes at the median" } ?? "") + "."
        } ?? "No openings of this bridge are stored yet."
        let body = """
            <p><a href="\(homeHref(top: false))">← All bridges</a></p>
            <h1>\(escapedHTML(bridge.displayName))</h1>
            <p>\(escapedHTML(bridge.waterway)), \(escapedHTML(bridge.kind)). \(escapedHTML(summary))</p>
            <h2>By hour of the week</h2>
            \(heatmap)
            <h2>Over the history</h2>
            \(monthly)
            <h2>Durations</h2>
            \(histogram)
            <h2>The last 20 openings</h2>
            \(latest.isEmpty ? "<p>None stored.</p>" : """
                <table class="openings"><thead><tr><th scope="col">Opened</th><th scope="col">Minutes</th></tr></thead><tbody>
                \(rows)
                </tbody></table>
                """)
            """
        return page(title: "\(bridge.name) – Bridget", top: false, body: body)
    }

    func routePage(_ route: RouteDTO) async throws -> String {
        let clock = context.assembly.clock
        var body = "<p><a href=\"\(homeHref(top: false))\">← All bridges</a></p><h1>Route: \(escapedHTML(route.id))</h1>"
        guard try await store.latestOpening() != nil else {
            return page(title: "\(route.id) – Bridget", top: false,
                        body: body + "<p class=\"empty\">No openings are stored yet, so there is nothing to score this route against.</p>")
        }
        let day = LocalDay(containing: now, time: clock).description
        let answer = try await RouteCommand.BestTime.answer(route, between: ["06:00", "21:00"], date: nil, stepMinutes: 10,
                                                            top: 0, context: context, store: store)
        let byTime = answer.ranked.sorted { $0.departure < $1.departure }
        let best = answer.ranked.first
        let points = byTime.map { (label: String($0.departure.dropFirst(11).prefix(5)), value: $0.totalExpectedDelayMinutes) }
        let marked = best.flatMap { best in byTime.firstIndex { $0.departure == best.departure } }
        body += "<p>Expected delay for each departure on \(escapedHTML(day)) from 06:00 to 21:00 every 10 minutes "
            + "(\(escapedHTML(clock.zone.identifier)) time). Departures within 10 seconds of the least delay tie, "
            + "and the earliest of them is marked best.</p>"
        body += SVGCharts.curve(id: "delay", title: "Expected delay by departure", unit: "minutes", points: points, marked: marked)
        if let best {
            let total = max(best.totalExpectedDelayMinutes, 1e-12)
            let shares = best.crossings.map { crossing in
                "<tr><td>\(escapedHTML(crossing.best.bridgeName))</td><td class=\"number\">"
                    + "\(escapedHTML(SVGCharts.number(crossing.best.expectedDelayMinutes)))</td><td class=\"number\">"
                    + "\(escapedHTML(SVGCharts.percent(crossing.best.expectedDelayMinutes / total)))</td></tr>"
            }.joined(separator: "\n")
            body += """
                <p class="best-departure">Best departure: <strong>\(escapedHTML(String(best.departure.dropFirst(11).prefix(5))))</strong>, \
                \(escapedHTML(SVGCharts.number(best.totalExpectedDelayMinutes))) minutes of expected delay.</p>
                <table class="shares"><caption>Each bridge's share of the delay at the best departure</caption><thead><tr>\
                <th scope="col">Bridge</th><th scope="col">Minutes</th><th scope="col">Share</th></tr></thead><tbody>
                \(shares)
                </tbody></table>
                """
        }
        return page(title: "\(route.id) – Bridget", top: false, body: body)
    }

    /// How far to trust a forecast: the backtest of `bridget backtest` (trained on the history's first three
    /// quarters, tested on the last), as a reliability diagram and each bridge's skill.
    func qualityPage() async throws -> String {
        var body = "<p><a href=\"\(homeHref(top: true))\">← All bridges</a></p><h1>How far to trust a forecast</h1>"
        let result: BacktestDTO
        switch try await qualityBacktest() {
        case .noOpenings:
            return page(title: "Forecast quality – Bridget", top: true,
                        body: body + "<p class=\"empty\">No openings are stored yet, so no forecast can be tested.</p>")
        case .tooShort:
            return page(title: "Forecast quality – Bridget", top: true,
                        body: body + "<p class=\"empty\">Less than a week of history is stored: too little to test on.</p>")
        case .tested(let backtest):
            result = backtest
        }
        guard let window = result.windows.first else {
            return page(title: "Forecast quality – Bridget", top: true, body: body + "<p class=\"empty\">Nothing to test.</p>")
        }
        let bins = window.reliability.compactMap { bin in
            bin.meanPredicted.flatMap { predicted in bin.observed.map { (predicted: predicted, observed: $0, count: bin.count) } }
        }
        body += "<p>Trained on the openings before \(escapedHTML(result.testFrom)), tested on those from then to "
            + "\(escapedHTML(result.testUntil)) (\(result.testOpenings) openings): for every \(window.minutes)-minute window, "
            + "the forecast chance of an opening against what happened.</p>"
        body += SVGCharts.reliability(id: "reliability", title: "Predicted against observed (\(window.minutes)-minute windows)",
                                      bins: bins)
        let rows = ([window.overall] + window.bridges).map { score in
            "<tr><th scope=\"row\">\(escapedHTML(score.bridgeName ?? "All bridges"))</th><td class=\"number\">\(score.points)</td>"
                + "<td class=\"number\">\(String(format: "%.4f", score.brier))</td><td class=\"number\">"
                + "\(String(format: "%.4f", score.brierClimatology))</td><td class=\"number\">\(String(format: "%+.1f%%", score.skill * 100))</td></tr>"
        }.joined(separator: "\n")
        body += """
            <h2>Skill per bridge</h2>
            <p>Skill is how much lower the forecast's Brier score is than always forecasting the bridge's average chance: \
            above zero, the forecast knows something about the time of day and week.</p>
            <table class="skill"><thead><tr><th scope="col">Bridge</th><th scope="col">Windows</th><th scope="col">Brier</th>\
            <th scope="col">Average's Brier</th><th scope="col">Skill</th></tr></thead><tbody>
            \(rows)
            </tbody></table>
            """
        return page(title: "Forecast quality – Bridget", top: true, body: body)
    }

    /// The page around `body`: its title, the styles, the time zone said once.
    func page(title: String, top: Bool, body: String) -> String {
        let zone = context.assembly.clock.zone.identifier
        return """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(escapedHTML(title))</title>
            <style>
            body { font-family: system-ui, sans-serif; margin: 1.5rem auto; max-width: 62rem; padding: 0 1rem; color: #1d1d1f; }
            table { border-collapse: collapse; } th, td { padding: .25rem .5rem; text-align: left; vertical-align: middle; }
            tbody tr:nth-child(odd) { background: #f6f6f8; } .number { text-align: right; font-variant-numeric: tabular-nums; }
            .chart { max-width: 100%; height: auto; } .tick, .label { font-size: 11px; fill: #444; } .empty { fill: #666; font-style: italic; }
            .grid { stroke: #ddd; } .bar { fill: #3b496c; } .line { stroke: #3b496c; stroke-width: 2; } .point { fill: #3b496c; }
            .best { fill: none; stroke: #c0392b; stroke-width: 3; } .bin { fill: #3b496c; fill-opacity: .8; } .water { fill: #e8f0f7; } .bridge { stroke: #1d1d1f; }
            footer { margin-top: 2rem; color: #666; font-size: .9rem; }
            </style>
            </head>
            <body>
            <main>
            \(body)
            </main>
            <footer>Times are \(escapedHTML(zone)) time. Made by Bridget \(escapedHTML(BridgetCommand.version)) \
            on \(escapedHTML(context.assembly.clock.display(now))). <a href="\(homeHref(top: top))">Overview</a></footer>
            </body>
            </html>

            """
    }
}
