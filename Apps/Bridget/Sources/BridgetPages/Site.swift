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

    /// The pages of the configured store, opened for reading, as of `now`.
    package static func reading(_ context: AppContext, now: Date, links: Links = .files) async throws -> Site {
        Site(context: context, store: try await context.openStoreForReading(), now: now, links: links)
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

}
