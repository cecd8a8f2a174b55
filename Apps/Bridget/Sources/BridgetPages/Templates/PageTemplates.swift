import Mustache

/// The pages' templates (Mustache): the only place HTML and SVG are written. Every value goes in through `{{name}}`,
/// which escapes `& < > " '`, and nothing through `{{{…}}}` or `{{&…}}` (a test holds the templates to that), so a
/// route name or a feed's bridge name is shown as text wherever it appears. Views only lay out what their view
/// models computed; charts are partials over their chart models.
enum PageTemplates {
    /// Every template, by name: the pages, the layout they extend, and the charts they include.
    static let sources: [String: String] = [
        "layout": layout, "svg": svg, "key": key,
        "heatmap": heatmap, "strip": strip, "bars": bars, "curve": curve, "map": map, "reliability": reliability,
        "overview": overview, "bridge": bridge, "route": route, "quality": quality, "error": error,
    ]

    /// The templates, parsed once.
    static let library: MustacheLibrary = {
        var library = MustacheLibrary()
        for (name, source) in sources {
            do {
                try library.register(source, named: name)
            } catch {
                preconditionFailure("the page template \(name) does not parse: \(error)")
            }
        }
        return library
    }()

    /// `model` rendered by the template `name`.
    static func render(_ model: Any, as name: String) -> String {
        guard let text = library.render(model, withTemplate: name) else {
            preconditionFailure("no page template named \(name)")
        }
        return text
    }

    // MARK: The page around every page

    static let layout = """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        {{#frame}}<title>{{title}}</title>{{/frame}}
        <style>
        body { font-family: system-ui, sans-serif; margin: 1.5rem auto; max-width: 62rem; padding: 0 1rem; color: #1d1d1f; }
        table { border-collapse: collapse; } th, td { padding: .25rem .5rem; text-align: left; vertical-align: middle; }
        tbody tr:nth-child(odd) { background: #f6f6f8; } .number { text-align: right; font-variant-numeric: tabular-nums; }
        .chart { max-width: 100%; height: auto; } .tick, .label { font-size: 11px; fill: #444; } .empty { fill: #666; font-style: italic; }
        .grid { stroke: #ddd; } .bar { fill: #3b496c; } .line { stroke: #3b496c; stroke-width: 2; } .point { fill: #3b496c; }
        .best { fill: none; stroke: #c0392b; stroke-width: 3; } .bin { fill: #3b496c; fill-opacity: .8; } .water { fill: #e8f0f7; } .land { fill: #f2efe9; } .bridge { stroke: #1d1d1f; }
        .waterway { fill: none; stroke: #9cc3e4; stroke-width: 9; stroke-linecap: round; stroke-linejoin: round; }
        .waterway-label { font-size: 10px; fill: #3d6f99; font-style: italic; }
        .attribution { font-size: 9px; fill: #333; paint-order: stroke; stroke: #fff; stroke-width: 3px; }
        .now-open { color: #c0392b; font-weight: bold; } .now-soon { color: #b9600f; font-weight: bold; }
        .key { display: block; margin: .25rem 0 .75rem; } .swatch { stroke: #999; stroke-width: .5; }
        footer { margin-top: 2rem; color: #666; font-size: .9rem; }
        </style>
        </head>
        <body>
        <main>
        {{$content}}{{/content}}
        </main>
        {{#frame}}<footer>Times are {{zone}} time. Made by Bridget {{version}} on {{madeAt}}. <a href="{{homeHref}}">Overview</a></footer>{{/frame}}
        </body>
        </html>

        """

    // MARK: Charts

    /// An `<svg>` with its accessible title and summary, and its message when there is nothing to draw.
    static let svg = """
        {{#frame}}<svg class="chart" id="{{id}}" role="img" aria-labelledby="{{id}}-title {{id}}-desc" \
        viewBox="0 0 {{width}} {{height}}" width="{{width}}" height="{{height}}" xmlns="http://www.w3.org/2000/svg">\
        <title id="{{id}}-title">{{title}}</title><desc id="{{id}}-desc">{{summary}}</desc>\
        {{#empty}}<text class="empty" x="{{x}}" y="{{y}}" text-anchor="middle">{{message}}</text>{{/empty}}{{/frame}}\
        {{$marks}}{{/marks}}</svg>
        """

    /// A colour key: swatches with what each colour means.
    static let key = """
        <svg class="key" id="{{id}}" role="img" aria-label="{{title}}" viewBox="0 0 {{width}} 16" width="{{width}}" \
        height="16" xmlns="http://www.w3.org/2000/svg"><title>{{title}}</title>{{#swatches}}<rect class="swatch" \
        x="{{x}}" y="2" width="14" height="12" fill="{{fill}}"/><text class="label" x="{{labelX}}" y="12">{{label}}</text>\
        {{/swatches}}</svg>
        """

    static let heatmap = """
        {{<svg}}{{$marks}}{{#hours}}<text class="tick" x="{{x}}" y="{{y}}" text-anchor="middle">{{label}}</text>{{/hours}}\
        {{#days}}<text class="tick" x="{{labelX}}" y="{{labelY}}" text-anchor="end">{{label}}</text>{{#cells}}\
        <rect class="cell" data-count="{{count}}" x="{{x}}" y="{{y}}" width="{{width}}" height="{{height}}" \
        fill="{{fill}}"><title>{{tip}}</title></rect>{{/cells}}{{/days}}{{/marks}}{{/svg}}
        {{#key}}{{>key}}{{/key}}
        """

    static let strip = """
        {{<svg}}{{$marks}}{{#slots}}<rect class="slot" x="{{x}}" y="0" width="{{width}}" height="{{height}}" \
        fill="{{fill}}"><title>{{tip}}</title></rect>{{/slots}}{{#now}}<path class="now" d="{{path}}" stroke="#c0392b" \
        stroke-width="2"><title>now</title></path>{{/now}}{{/marks}}{{/svg}}
        """

    static let bars = """
        {{<svg}}{{$marks}}{{#ticks}}<path class="grid" d="{{grid}}"/><text class="tick" x="{{x}}" y="{{y}}" \
        text-anchor="end" dominant-baseline="middle">{{label}}</text>{{/ticks}}{{#bars}}<rect class="bar" x="{{x}}" \
        y="{{y}}" width="{{width}}" height="{{height}}"><title>{{tip}}</title></rect>{{/bars}}{{#labels}}<text \
        class="tick" x="{{x}}" y="{{y}}" text-anchor="{{anchor}}">{{text}}</text>{{/labels}}{{/marks}}{{/svg}}
        """

    static let curve = """
        {{<svg}}{{$marks}}{{#ticks}}<path class="grid" d="{{grid}}"/><text class="tick" x="{{x}}" y="{{y}}" \
        text-anchor="end" dominant-baseline="middle">{{label}}</text>{{/ticks}}<path class="line" fill="none" \
        d="{{path}}"/>{{#points}}<circle class="point" cx="{{cx}}" cy="{{cy}}" r="3"><title>{{tip}}</title></circle>\
        {{/points}}{{#labels}}<text class="tick" x="{{x}}" y="{{y}}" text-anchor="{{anchor}}">{{text}}</text>{{/labels}}\
        {{#best}}<circle class="best" id="{{bestID}}" cx="{{cx}}" cy="{{cy}}" r="7"><title>{{tip}}</title></circle>\
        {{/best}}{{/marks}}{{/svg}}
        """

    static let map = """
        {{<svg}}{{$marks}}{{#frame}}<rect class="{{#hasTiles}}land{{/hasTiles}}{{^hasTiles}}water{{/hasTiles}}" \
        x="0" y="0" width="{{width}}" height="{{height}}"/>{{/frame}}{{#tiles}}<image class="tile" href="{{href}}" \
        x="{{x}}" y="{{y}}" width="{{size}}" height="{{size}}" preserveAspectRatio="none"/>{{/tiles}}\
        {{#waterways}}<path class="waterway" d="{{path}}"><title>{{name}}</title></path><text class="waterway-label" \
        x="{{labelX}}" y="{{labelY}}" text-anchor="middle">{{name}}</text>{{/waterways}}\
        {{#places}}<a href="{{href}}">{{#ring}}<circle class="ring ring-{{kind}}" cx="{{cx}}" cy="{{cy}}" r="13" \
        fill="none" stroke="{{stroke}}" stroke-width="3"/>{{/ring}}<circle class="bridge" cx="{{cx}}" cy="{{cy}}" \
        r="8" fill="{{fill}}"><title>{{tip}}</title></circle>{{#label}}<text class="label" x="{{x}}" y="{{y}}" \
        text-anchor="{{anchor}}">{{text}}</text>{{/label}}</a>{{/places}}{{#attribution}}<text class="attribution" \
        x="{{x}}" y="{{y}}" text-anchor="end">{{text}}</text>{{/attribution}}{{/marks}}{{/svg}}
        """

    static let reliability = """
        {{<svg}}{{$marks}}{{#yTicks}}<path class="grid" d="{{grid}}"/><text class="tick" x="{{x}}" y="{{y}}" \
        text-anchor="end" dominant-baseline="middle">{{label}}</text>{{/yTicks}}{{#xTicks}}<path class="grid" \
        d="{{grid}}"/><text class="tick" x="{{x}}" y="{{y}}" text-anchor="middle">{{label}}</text>{{/xTicks}}\
        {{#hasBins}}<path class="diagonal" stroke="#c0392b" stroke-dasharray="4 3" d="{{diagonal}}"><title>perfect \
        reliability: observed equals predicted</title></path>{{/hasBins}}{{#bins}}<circle class="bin" cx="{{cx}}" \
        cy="{{cy}}" r="{{r}}"><title>{{tip}}</title></circle>{{/bins}}{{#axisLabel}}<text class="tick" x="{{x}}" \
        y="{{y}}" text-anchor="{{anchor}}">{{text}}</text>{{/axisLabel}}{{/marks}}{{/svg}}
        """

    // MARK: Pages

    static let overview = """
        {{<layout}}{{$content}}
        <h1>Bridget: drawbridge openings</h1>
        <p class="freshness">Newest stored opening: <strong>{{newest}}</strong>. Last sync: <strong>{{lastSync}}</strong>. \
        Source: {{source}}.</p>
        <p class="status-as-of">Status as of <strong>{{statusAsOf}}</strong>.{{#caveat}} <em>{{.}}</em>{{/caveat}}</p>
        <h2>The next 12 hours</h2>
        <p>Each cell is a quarter hour from {{start}} (marked now), darker for a higher chance of an opening (50% or \
        more is darkest); hover a cell for its chance.</p>
        {{#stripKey}}{{>key}}{{/stripKey}}
        <table class="overview"><thead><tr><th scope="col">Bridge</th><th scope="col">Now</th><th scope="col">Chance \
        of an opening, 15-minute slots</th><th scope="col">Last opening</th><th scope="col">Stored rows</th></tr></thead>\
        <tbody>
        {{#rows}}<tr class="bridge-row" data-bridge="{{id}}" data-state="{{state}}"><th scope="row"><a href="{{href}}">\
        {{name}}</a></th><td class="now now-{{state}}">{{now}}</td><td>{{#strip}}{{>strip}}{{/strip}}</td>\
        <td>{{lastOpening}}</td><td class="number">{{stored}}</td></tr>
        {{/rows}}</tbody></table>
        <h2>Map</h2>
        {{#map}}{{>map}}{{/map}}
        {{#mapKey}}{{>key}}{{/mapKey}}
        <p class="status-key"><svg width="28" height="28" viewBox="0 0 28 28" role="img" aria-label="a red ring">\
        <circle cx="14" cy="14" r="8" fill="#ccc" stroke="#1d1d1f"/><circle cx="14" cy="14" r="12" fill="none" \
        stroke="#c0392b" stroke-width="3"/></svg> open now <svg width="28" height="28" viewBox="0 0 28 28" role="img" \
        aria-label="an orange ring"><circle cx="14" cy="14" r="8" fill="#ccc" stroke="#1d1d1f"/><circle cx="14" \
        cy="14" r="12" fill="none" stroke="#e67e22" stroke-width="3"/></svg> opening soon (an announced opening within \
        {{soonMinutes}} minutes){{#tilesNote}}. {{.}}{{/tilesNote}}</p>
        {{#hasRoutes}}<h2>Saved routes</h2><ul class="routes">{{#routes}}<li><a href="{{href}}">{{name}}</a></li>\
        {{/routes}}</ul>{{/hasRoutes}}
        <p><a href="{{qualityHref}}">How far to trust a forecast</a> (the backtest)</p>
        {{/content}}{{/layout}}
        """

    static let bridge = """
        {{<layout}}{{$content}}
        <p><a href="{{homeHref}}">← All bridges</a></p>
        <h1>{{name}}</h1>
        <p>{{waterway}}, {{kind}}. {{summary}}</p>
        <p class="now now-{{state}}">Now ({{statusAsOf}}): {{now}}</p>
        <h2>Announced openings</h2>
        {{^hasAnnounced}}<p>None announced{{#announcesNothing}} (this source announces no openings){{/announcesNothing}}.\
        </p>{{/hasAnnounced}}
        {{#hasAnnounced}}<table class="announced"><thead><tr><th scope="col">Opens</th><th scope="col">Until</th>\
        <th scope="col">In</th></tr></thead><tbody>
        {{#announced}}<tr><td>{{opens}}</td><td>{{until}}</td><td>{{inText}}</td></tr>
        {{/announced}}</tbody></table>{{/hasAnnounced}}
        {{#soon}}<h2>The next 20 minutes</h2><p class="soon">{{.}}</p>{{/soon}}\
        {{#hasWhy}}<ul class="why">{{#why}}<li>{{.}}</li>{{/why}}</ul>{{/hasWhy}}
        <h2>Rules and what forecasts know</h2>
        <ul class="rules">{{#rules}}<li>{{.}}</li>{{/rules}}</ul>
        <h2>By hour of the week</h2>
        {{#heatmap}}{{>heatmap}}{{/heatmap}}
        <h2>Over the history</h2>
        {{#monthly}}{{>bars}}{{/monthly}}
        <h2>Durations</h2>
        {{#durations}}{{>bars}}{{/durations}}
        <h2>The last 20 openings</h2>
        {{^hasOpenings}}<p>None stored.</p>{{/hasOpenings}}
        {{#hasOpenings}}<table class="openings"><thead><tr><th scope="col">Opened</th><th scope="col">Minutes</th>\
        </tr></thead><tbody>
        {{#openings}}<tr><td>{{opened}}</td><td class="number">{{minutes}}</td></tr>
        {{/openings}}</tbody></table>{{/hasOpenings}}
        {{/content}}{{/layout}}
        """

    static let route = """
        {{<layout}}{{$content}}
        <p><a href="{{homeHref}}">← All bridges</a></p><h1>Route: {{name}}</h1>
        {{^hasHistory}}<p class="empty">No openings are stored yet, so there is nothing to score this route against.</p>\
        {{/hasHistory}}
        {{#hasHistory}}<p>Expected delay for each departure on {{day}} from 06:00 to 21:00 every 10 minutes ({{zone}} \
        time). Departures within 10 seconds of the least delay tie, and the earliest of them is marked best.</p>
        {{#curve}}{{>curve}}{{/curve}}
        {{#best}}<p class="best-departure">Best departure: <strong>{{departure}}</strong>, {{delay}} minutes of expected \
        delay.</p>
        <table class="shares"><caption>Each bridge's share of the delay at the best departure</caption><thead><tr>\
        <th scope="col">Bridge</th><th scope="col">Minutes</th><th scope="col">Share</th></tr></thead><tbody>
        {{#shares}}<tr><td>{{bridge}}</td><td class="number">{{minutes}}</td><td class="number">{{share}}</td></tr>
        {{/shares}}</tbody></table>{{/best}}{{/hasHistory}}
        {{/content}}{{/layout}}
        """

    static let quality = """
        {{<layout}}{{$content}}
        <p><a href="{{homeHref}}">← All bridges</a></p><h1>How far to trust a forecast</h1>
        {{#message}}<p class="empty">{{.}}</p>{{/message}}
        {{#tested}}<p>Trained on the openings before {{testFrom}}, tested on those from then to {{testUntil}} \
        ({{testOpenings}} openings): for every {{minutes}}-minute window, the forecast chance of an opening against \
        what happened.</p>
        {{#reliability}}{{>reliability}}{{/reliability}}
        {{#verdict}}<p class="verdict">{{.}}</p>{{/verdict}}
        <h2>Skill per bridge</h2>
        <p>Skill is how much lower a forecast's Brier score is than always forecasting the bridge's average chance; \
        the range is its 95% interval over the test days, and the forecast "beats" the average only where the whole \
        range is above zero. The forecast is one model of the river: each bridge opens at its own rate (the time of \
        week and season, the rush-hour rule and the holidays that lift it, dated closures) plus what every opening \
        of a linked bridge brings (a vessel passes a waterway's bridges in order; the links, their shares and lags \
        are learnt from the history and kept only when they beat copies of it with the days moved, at a false-link \
        rate of 0.1%). The time of \
        week alone is the same without those openings. On planted histories whose true chance is known, the same \
        model reaches 91&ndash;98% of the truth's skill (Docs/FORECASTS.md, Scripts/bench forecast). It does not \
        know weather, vessel schedules or radio calls.</p>
        <table class="skill"><thead><tr><th scope="col">Bridge</th><th scope="col">Windows</th>\
        <th scope="col">Forecast</th><th scope="col">Time of week alone</th><th scope="col">Beats the average</th>\
        <th scope="col">After a neighbour's opening</th><th scope="col">Reliable within</th></tr></thead><tbody>
        {{#rows}}<tr><th scope="row">{{bridge}}</th><td class="number">{{points}}</td><td class="number">{{forecast}}</td>\
        <td class="number">{{timeOfWeek}}</td><td>{{beats}}</td><td class="number">{{afterNeighbour}}</td>\
        <td class="number">{{afterReliability}}</td></tr>
        {{/rows}}</tbody></table>{{/tested}}
        {{#provenance}}<h2>Where the openings come from</h2><p class="provenance">{{.}}</p>{{/provenance}}
        {{/content}}{{/layout}}
        """

    static let error = """
        {{<layout}}{{$content}}
        <h1>{{title}}</h1><p>{{detail}}</p><p><a href="{{homeHref}}">All bridges</a></p>
        {{/content}}{{/layout}}
        """
}
