/// The pages' view models: everything a page shows, already computed and written as text, for its template to lay
/// out (`PageTemplates`). Stored properties only: the templates read them by name.

/// What every page's frame shows: its title, the zone its times are in, when and by which version it was made.
struct PageFrame: Sendable {
    let title: String
    let zone: String
    let version: String
    let madeAt: String
    let homeHref: String
}

/// The overview (`index.html`, `/`).
struct OverviewView: Sendable {
    struct BridgeRow: Sendable {
        let id: String
        let name: String
        let href: String
        let strip: StripChart
        let lastOpening: String
        /// Its openings on record, as `stats` and its page count them.
        let stored: Int
        /// `open`, `soon` or `closed`, and what the "now" column says.
        let state: String
        let now: String
    }

    struct RouteLink: Sendable {
        let name: String
        let href: String
        /// The best departure of the route's next commute, in words.
        let next: String?
    }

    let frame: PageFrame
    let newest: String
    let lastSync: String
    let source: String
    let start: String
    let stripKey: ColourKey
    let rows: [BridgeRow]
    let map: MapChart
    let statusAsOf: String
    let caveat: String?
    /// The bridges open now, each a sentence: the first thing the page says.
    let openNow: [String]
    var hasOpenNow: Bool { !openNow.isEmpty }
    let hasRoutes: Bool
    let routes: [RouteLink]
    let qualityHref: String
}

/// A bridge's page (`bridges/ID.html`, `/bridges/{id}`).
struct BridgePageView: Sendable {
    struct Opening: Sendable {
        let opened: String
        let minutes: String
    }

    let frame: PageFrame
    let homeHref: String
    let name: String
    /// Its waterway and kind ("Lake Washington Ship Canal, bascule"), what of them the source gives.
    let about: String?
    let summary: String
    let heatmap: HeatmapChart
    let monthly: BarChart
    let durations: BarChart
    let hasOpenings: Bool
    let openings: [Opening]
    let state: String
    let now: String
    let statusAsOf: String
    let hasAnnounced: Bool
    let announced: [Announced]
    let announcesNothing: Bool
    /// `RulesAnswer.lines`: the curfew, the next holiday, deviations to come, the bridges followed.
    let rules: [String]
    /// The forecast of the next 20 minutes, and what moved it (`ForecastReasonDTO.text`).
    let soon: String?
    let why: [String]
    let hasWhy: Bool

    struct Announced: Sendable {
        let opens: String
        let until: String
        let inText: String
    }
}

/// A saved route's page (`routes/NAME.html`, `/routes/{name}`).
struct RoutePageView: Sendable {
    struct Best: Sendable {
        /// The best departure, or the range of those that tie (`07:10–08:20`).
        let departure: String
        /// "0.12 minutes".
        let delay: String
        /// The first of the best departures, whose shares the table gives.
        let first: String
        let shares: [Share]
    }

    struct Share: Sendable {
        let bridge: String
        let minutes: String
        let share: String
    }

    let frame: PageFrame
    let homeHref: String
    let name: String
    /// The route's bridges, in words ("Fremont, then Montlake 20 minutes later").
    let crossings: String
    let hasHistory: Bool
    /// "tomorrow, Monday 30 November".
    let day: String
    let from: String
    let to: String
    let zone: String
    let curve: CurveChart?
    let best: Best?
}

/// The quality page (`quality.html`, `/quality`): the backtest, or why there is none.
struct QualityPageView: Sendable {
    struct Tested: Sendable {
        let testFrom: String
        let testUntil: String
        let testOpenings: Int
        let minutes: Int
        let reliability: ReliabilityChart
        let rows: [Row]
        /// `BacktestReading.verdict`'s sentences.
        let verdict: [String]
    }

    struct Row: Sendable {
        let bridge: String
        let points: Int
        /// Skills over the base rate with their 95% intervals: the forecast, the time of week alone, and the
        /// forecast within 30 minutes after a neighbour's opening (with its reliability).
        let forecast: String
        let timeOfWeek: String
        let beats: String
        let afterNeighbour: String
        let afterReliability: String
    }

    let frame: PageFrame
    let homeHref: String
    let message: String?
    let tested: Tested?
    /// Where the stored openings come from (`ProvenanceAnswer.sentence`).
    var provenance: String? = nil
}

/// A page saying what went wrong (the server's pages).
struct ErrorPageView: Sendable {
    let frame: PageFrame
    let homeHref: String
    let title: String
    let detail: String
}
