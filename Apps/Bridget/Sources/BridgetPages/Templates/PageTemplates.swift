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

    /// What a tap does: a mark with a `data-tip` (a cell, a bar, a departure) writes its words into its chart's
    /// readout, so a phone, which has no hover, shows what a mouse's hover shows (the `<title>` tooltip). The pages'
    /// only script; without it every figure is still in the chart's words, its table or its tooltip.
    static let tapScript = """
        <script>
        function bridgetTip(event) {
          var mark = event.target.closest ? event.target.closest('[data-tip]') : null;
          if (!mark) return;
          var figure = mark.closest('figure');
          var readout = (figure || document).querySelector('[data-readout]');
          if (readout) readout.textContent = mark.getAttribute('data-tip');
        }
        document.addEventListener('click', bridgetTip);
        document.addEventListener('touchend', bridgetTip);
        </script>
        """

    static let layout = """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        {{#frame}}<title>{{title}}</title>{{/frame}}
        <style>
        *, *::before, *::after { box-sizing: border-box; }
        body { font-family: system-ui, sans-serif; margin: 0 auto; max-width: 60rem; padding: .75rem; color: #1d1d1f; \
        line-height: 1.4; font-size: 16px; overflow-wrap: anywhere; }
        @media (min-width: 40rem) { body { padding: 1.5rem; } }
        h1 { font-size: 1.5rem; margin: .5rem 0; } h2 { font-size: 1.2rem; margin: 1.5rem 0 .5rem; } \
        h3 { font-size: 1.05rem; margin: 0 0 .25rem; }
        a { color: #0b57a4; }
        .table-box { overflow-x: auto; max-width: 100%; }
        table { border-collapse: collapse; } th, td { padding: .3rem .5rem; text-align: left; vertical-align: top; }
        thead th { vertical-align: bottom; font-size: .9rem; }
        tbody tr:nth-child(odd) { background: #f6f6f8; } .number { text-align: right; font-variant-numeric: tabular-nums; \
        white-space: nowrap; }
        figure { margin: .5rem 0 1rem; } figcaption { font-size: .9rem; color: #444; margin-top: .25rem; }
        .chart-scroll { overflow-x: auto; max-width: 100%; }
        .chart { display: block; width: 100%; height: auto; } .tick, .label, .axis-title { font-size: 12px; fill: #333; }
        .axis-title { fill: #1d1d1f; } .empty { font-size: 12px; fill: #555; font-style: italic; }
        .grid { stroke: #ddd; } .bar { fill: #2b5c8a; } .bar.partial { fill: #a9c3dc; stroke: #2b5c8a; \
        stroke-dasharray: 3 2; } .line { stroke: #2b5c8a; stroke-width: 2; } .point { fill: #2b5c8a; } .hit { fill: transparent; }
        .point, .best, .tied, .line, .grid, .now { pointer-events: none; }
        .best { fill: none; stroke: #b02a1c; stroke-width: 3; } .bin { fill: #2b5c8a; fill-opacity: .8; } \
        .water { fill: #f4f8fb; } .land { fill: #f2efe9; } .bridge { stroke: #1d1d1f; }
        .waterway { fill: none; stroke: #9cc3e4; stroke-width: 9; stroke-linecap: round; stroke-linejoin: round; }
        .waterway-label { font-size: 12px; fill: #2f5f87; font-style: italic; }
        .attribution { font-size: 12px; fill: #333; paint-order: stroke; stroke: #fff; stroke-width: 3px; }
        .map-label { font-size: 12px; fill: #1d1d1f; paint-order: stroke; stroke: #fff; stroke-width: 3px; }
        .readout { font-size: .95rem; min-height: 1.4em; margin: .25rem 0; color: #1d1d1f; }
        .readout:empty { display: none; }
        .key { display: flex; flex-wrap: wrap; align-items: center; gap: .25rem .75rem; margin: .25rem 0 .75rem; \
        padding: 0; list-style: none; font-size: .9rem; }
        .key .key-title { flex-basis: 100%; color: #444; }
        .swatch { display: inline-block; width: 1.1rem; height: .9rem; margin-right: .3rem; vertical-align: -.1rem; \
        border: 1px solid #888; }
        .ring-swatch { display: inline-block; width: 1rem; height: 1rem; border-radius: 50%; border: 3px solid; \
        vertical-align: -.2rem; margin-right: .3rem; }
        .now-open { color: #b02a1c; font-weight: bold; } .now-soon { color: #8a4500; font-weight: bold; } \
        .now-unknown { color: #555; }
        .key-fact { font-size: 1.1rem; padding: .5rem .75rem; margin: .75rem 0; background: #f6f6f8; \
        border-left: 4px solid #2b5c8a; }
        .key-fact.now-open { border-left-color: #b02a1c; } .key-fact.now-soon { border-left-color: #8a4500; }
        .bridges { list-style: none; padding: 0; margin: 0; }
        .bridges > li { padding: .6rem 0; border-bottom: 1px solid #e3e3e8; }
        .meta { font-size: .9rem; color: #444; margin: .1rem 0 0; }
        footer { margin-top: 2rem; color: #555; font-size: .9rem; }
        </style>
        </head>
        <body>
        <main>
        {{$content}}{{/content}}
        </main>
        {{#frame}}<footer>Times are {{zone}} time. Made by Bridget {{version}} on {{madeAt}}. <a href="{{homeHref}}">Overview</a></footer>{{/frame}}
        \(tapScript)
        </body>
        </html>

        """

    // MARK: Charts

    /// A chart: a `<figure>` holding its `<svg>` (with its accessible title and summary, and its message when there
    /// is nothing to draw; wider than the page on a phone only inside its own scrolling box, never narrower than
    /// its text can be read at 11 px), its caption in words, and the readout a tap on a mark writes to.
    static let svg = """
        {{#frame}}<figure class="figure" id="{{id}}-figure"><div class="chart-scroll"><svg class="chart" id="{{id}}" \
        role="{{role}}" aria-labelledby="{{id}}-title {{id}}-desc" viewBox="0 0 {{width}} {{height}}" width="{{width}}" \
        height="{{height}}" style="min-width:{{minWidth}}px;max-width:{{maxWidth}}px" xmlns="http://www.w3.org/2000/svg">\
        <title id="{{id}}-title">{{title}}</title><desc id="{{id}}-desc">{{summary}}</desc>\
        {{#empty}}<text class="empty" x="{{x}}" y="{{y}}" text-anchor="middle">{{message}}</text>{{/empty}}{{/frame}}\
        {{$marks}}{{/marks}}</svg></div>{{#frame}}{{#hasTips}}<p class="readout" data-readout aria-live="polite"></p>\
        {{/hasTips}}{{#caption}}<figcaption>{{.}}</figcaption>{{/caption}}{{/frame}}{{$after}}{{/after}}</figure>
        """

    /// A colour key: what the colours mean, then a swatch for each with its words.
    static let key = """
        <ul class="key" id="{{id}}" aria-label="{{title}}"><li class="key-title">{{title}}:</li>{{#swatches}}<li>\
        <span class="swatch" style="background:{{fill}}"></span>{{label}}</li>{{/swatches}}</ul>
        """

    static let heatmap = """
        {{<svg}}{{$marks}}{{#hours}}<text class="tick" x="{{x}}" y="{{y}}" text-anchor="middle">{{label}}</text>{{/hours}}\
        {{#days}}<text class="tick" x="{{labelX}}" y="{{labelY}}" text-anchor="end">{{label}}</text>{{#cells}}\
        <rect class="cell" data-count="{{count}}" data-tip="{{tip}}" x="{{x}}" y="{{y}}" width="{{width}}" \
        height="{{height}}" fill="{{fill}}"><title>{{tip}}</title></rect>{{/cells}}{{/days}}{{#axisTitles}}<text \
        class="axis-title" x="{{x}}" y="{{y}}" text-anchor="{{anchor}}">{{text}}</text>{{/axisTitles}}{{/marks}}\
        {{$after}}{{#key}}{{>key}}{{/key}}{{/after}}{{/svg}}
        """

    static let strip = """
        {{<svg}}{{$marks}}{{#slots}}<rect class="slot" data-tip="{{tip}}" x="{{x}}" y="0" width="{{width}}" \
        height="{{height}}" fill="{{fill}}"><title>{{tip}}</title></rect>{{/slots}}{{#ticks}}<path class="grid" \
        d="{{grid}}"/><text class="tick" x="{{x}}" y="{{y}}" text-anchor="{{anchor}}">{{text}}</text>{{/ticks}}\
        {{#now}}<path class="now" d="{{path}}" stroke="#b02a1c" stroke-width="2"><title>now</title></path>{{/now}}\
        {{/marks}}{{/svg}}
        """

    static let bars = """
        {{<svg}}{{$marks}}{{#ticks}}<path class="grid" d="{{grid}}"/><text class="tick" x="{{x}}" y="{{y}}" \
        text-anchor="end" dominant-baseline="middle">{{label}}</text>{{/ticks}}{{#bars}}<rect class="hit" \
        data-tip="{{tip}}" x="{{x}}" y="{{hitY}}" width="{{width}}" height="{{hitHeight}}"/><rect class="bar{{#partial}} \
        partial{{/partial}}" data-tip="{{tip}}" x="{{x}}" y="{{y}}" width="{{width}}" height="{{height}}"><title>{{tip}}\
        </title></rect>{{/bars}}{{#labels}}<text class="tick" x="{{x}}" y="{{y}}" text-anchor="{{anchor}}">{{text}}\
        </text>{{/labels}}{{#axisTitles}}<text class="axis-title" x="{{x}}" y="{{y}}" text-anchor="{{anchor}}">{{text}}\
        </text>{{/axisTitles}}{{/marks}}{{/svg}}
        """

    static let curve = """
        {{<svg}}{{$marks}}{{#ticks}}<path class="grid" d="{{grid}}"/><text class="tick" x="{{x}}" y="{{y}}" \
        text-anchor="end" dominant-baseline="middle">{{label}}</text>{{/ticks}}{{#tied}}<rect class="tied" x="{{x}}" \
        y="{{y}}" width="{{width}}" height="{{height}}" fill="#f3d9d5"><title>{{tip}}</title></rect>{{/tied}}\
        <path class="line" fill="none" d="{{path}}"/>{{#points}}<rect class="hit" data-tip="{{tip}}" x="{{hitX}}" \
        y="{{hitY}}" width="{{hitWidth}}" height="{{hitHeight}}"/><circle class="point" cx="{{cx}}" cy="{{cy}}" r="3">\
        <title>{{tip}}</title></circle>{{/points}}{{#labels}}<text class="tick" x="{{x}}" y="{{y}}" \
        text-anchor="{{anchor}}">{{text}}</text>{{/labels}}{{#best}}<circle class="best" id="{{bestID}}" cx="{{cx}}" \
        cy="{{cy}}" r="7"><title>{{tip}}</title></circle>{{/best}}{{#axisTitles}}<text class="axis-title" x="{{x}}" \
        y="{{y}}" text-anchor="{{anchor}}">{{text}}</text>{{/axisTitles}}{{/marks}}{{/svg}}
        """

    static let map = """
        {{<svg}}{{$marks}}{{#frame}}<rect class="{{#hasTiles}}land{{/hasTiles}}{{^hasTiles}}water{{/hasTiles}}" \
        x="0" y="0" width="{{width}}" height="{{height}}"/>{{/frame}}{{#tiles}}<image class="tile" href="{{href}}" \
        x="{{x}}" y="{{y}}" width="{{size}}" height="{{size}}" preserveAspectRatio="none"/>{{/tiles}}\
        {{#breakLine}}<path class="map-break" d="{{path}}" stroke="#8a8a8a" stroke-dasharray="6 4"/>{{#label}}<text \
        class="label" x="{{x}}" y="{{y}}" text-anchor="middle">{{text}}</text>{{/label}}{{/breakLine}}\
        {{#waterways}}<path class="waterway" d="{{path}}"><title>{{name}}</title></path>{{#label}}<text \
        class="waterway-label" x="{{x}}" y="{{y}}" text-anchor="middle">{{text}}</text>{{/label}}{{/waterways}}\
        {{#places}}<a href="{{href}}" aria-label="{{tip}}">{{#ring}}<circle class="ring ring-{{kind}}" cx="{{cx}}" \
        cy="{{cy}}" r="13" fill="none" stroke="{{stroke}}" stroke-width="3"/>{{/ring}}<circle class="bridge" \
        cx="{{cx}}" cy="{{cy}}" r="8" fill="{{fill}}"><title>{{tip}}</title></circle>{{#label}}<text class="map-label" \
        x="{{x}}" y="{{y}}" text-anchor="{{anchor}}">{{text}}</text>{{/label}}</a>{{/places}}{{#attribution}}<text \
        class="attribution" x="{{x}}" y="{{y}}" text-anchor="end">{{text}}</text>{{/attribution}}{{/marks}}\
        {{$after}}{{#key}}{{>key}}{{/key}}<p class="key status-key"><span><span class="ring-swatch" \
        style="border-color:#b02a1c"></span>ringed red: open now</span> <span><span class="ring-swatch" \
        style="border-color:#e67e22"></span>ringed orange: an announced opening within {{soonMinutes}} minutes</span>\
        </p>{{/after}}{{/svg}}
        """

    static let reliability = """
        {{<svg}}{{$marks}}{{#yTicks}}<path class="grid" d="{{grid}}"/><text class="tick" x="{{x}}" y="{{y}}" \
        text-anchor="end" dominant-baseline="middle">{{label}}</text>{{/yTicks}}{{#xTicks}}<path class="grid" \
        d="{{grid}}"/><text class="tick" x="{{x}}" y="{{y}}" text-anchor="middle">{{label}}</text>{{/xTicks}}\
        {{#hasBins}}<path class="diagonal" stroke="#b02a1c" stroke-dasharray="4 3" d="{{diagonal}}"><title>perfect \
        reliability: observed equals predicted</title></path>{{/hasBins}}{{#bins}}<circle class="bin" data-tip="{{tip}}" \
        cx="{{cx}}" cy="{{cy}}" r="{{r}}"><title>{{tip}}</title></circle>{{/bins}}{{#axisTitles}}<text \
        class="axis-title" x="{{x}}" y="{{y}}" text-anchor="{{anchor}}">{{text}}</text>{{/axisTitles}}{{/marks}}{{/svg}}
        """

    // MARK: Pages

    static let overview = """
        {{<layout}}{{$content}}
        <h1>Bridget: drawbridge openings</h1>
        {{#hasOpenNow}}<p class="key-fact now-open">{{#openNow}}{{.}} {{/openNow}}</p>{{/hasOpenNow}}
        {{#hasRoutes}}<h2>Your routes</h2><ul class="routes">{{#routes}}<li><a href="{{href}}">{{name}}</a>{{#next}}: \
        {{.}}{{/next}}</li>{{/routes}}</ul>{{/hasRoutes}}
        <h2>Now and the next 12 hours</h2>
        <p class="status-as-of">Status as of <strong>{{statusAsOf}}</strong>.{{#caveat}} <em>{{.}}</em>{{/caveat}}</p>
        <p>Each strip is the next 12 hours in quarter hours from {{start}} (the red line is now): the darker a quarter \
        hour, the likelier an opening in it. Tap or hover a quarter hour for its chance.</p>
        {{#stripKey}}{{>key}}{{/stripKey}}
        <ul class="bridges">
        {{#rows}}<li class="bridge-row" data-bridge="{{id}}" data-state="{{state}}"><h3><a href="{{href}}">{{name}}</a>\
        </h3><p class="now now-{{state}}">{{now}}</p>{{#strip}}{{>strip}}{{/strip}}<p class="meta">Last opening: \
        {{lastOpening}} · {{stored}} openings on record</p></li>
        {{/rows}}</ul>
        <h2>Map</h2>
        {{#map}}{{>map}}{{/map}}
        <p class="freshness">Newest opening on record: <strong>{{newest}}</strong>. Last sync: <strong>{{lastSync}}</strong>. \
        Source: {{source}}.</p>
        <p><a href="{{qualityHref}}">How far to trust a forecast</a> (each forecast tested against what happened)</p>
        {{/content}}{{/layout}}
        """

    static let bridge = """
        {{<layout}}{{$content}}
        <p><a href="{{homeHref}}">← All bridges</a></p>
        <h1>{{name}}</h1>
        <p class="key-fact now now-{{state}}">{{now}}</p>
        {{#soon}}<h2>The next 20 minutes</h2><p class="soon">{{.}}</p>{{/soon}}\
        {{#hasWhy}}<ul class="why">{{#why}}<li>{{.}}</li>{{/why}}</ul>{{/hasWhy}}
        <p>{{#about}}{{.}}. {{/about}}{{summary}}</p>
        <h2>Announced openings</h2>
        {{^hasAnnounced}}<p>None announced{{#announcesNothing}} (this source announces no openings){{/announcesNothing}}.\
        </p>{{/hasAnnounced}}
        {{#hasAnnounced}}<div class="table-box" tabindex="0" role="region" aria-label="Announced openings"><table class="announced"><thead><tr><th scope="col">Opens</th>\
        <th scope="col">Until</th><th scope="col">In</th></tr></thead><tbody>
        {{#announced}}<tr><td>{{opens}}</td><td>{{until}}</td><td>{{inText}}</td></tr>
        {{/announced}}</tbody></table></div>{{/hasAnnounced}}
        <h2>Rules and what forecasts know</h2>
        <ul class="rules">{{#rules}}<li>{{.}}</li>{{/rules}}</ul>
        <h2>By hour of the week</h2>
        {{#heatmap}}{{>heatmap}}{{/heatmap}}
        <h2>Over the history</h2>
        {{#monthly}}{{>bars}}{{/monthly}}
        <h2>How long openings last</h2>
        {{#durations}}{{>bars}}{{/durations}}
        <h2>The last 20 openings</h2>
        {{^hasOpenings}}<p>None on record.</p>{{/hasOpenings}}
        {{#hasOpenings}}<div class="table-box" tabindex="0" role="region" aria-label="The last 20 openings"><table class="openings"><thead><tr><th scope="col">Opened</th>\
        <th scope="col">Minutes open</th></tr></thead><tbody>
        {{#openings}}<tr><td>{{opened}}</td><td class="number">{{minutes}}</td></tr>
        {{/openings}}</tbody></table></div>{{/hasOpenings}}
        {{/content}}{{/layout}}
        """

    static let route = """
        {{<layout}}{{$content}}
        <p><a href="{{homeHref}}">← All bridges</a></p><h1>Route: {{name}}</h1>
        <p class="crossings">Crosses {{crossings}}.</p>
        {{^hasHistory}}<p class="empty">No openings are on record yet, so there is nothing to score this route against.</p>\
        {{/hasHistory}}
        {{#hasHistory}}{{#best}}<p class="key-fact best-departure">Best departure on {{day}}: <strong>{{departure}}</strong>, \
        {{delay}} of expected delay.</p>{{/best}}
        <p>Expected delay for each departure on {{day}} from {{from}} to {{to}} every 10 minutes ({{zone}} time). The best \
        departure has the least expected delay; departures within a hundredth of a minute of it tie and are given as \
        a range.</p>
        {{#curve}}{{>curve}}{{/curve}}
        {{#best}}<div class="table-box" tabindex="0" role="region" aria-label="Each bridge's share of the delay"><table class="shares"><caption>Each bridge's share of the delay at {{first}}\
        </caption><thead><tr><th scope="col">Bridge</th><th scope="col">Minutes</th><th scope="col">Share</th></tr>\
        </thead><tbody>
        {{#shares}}<tr><td>{{bridge}}</td><td class="number">{{minutes}}</td><td class="number">{{share}}</td></tr>
        {{/shares}}</tbody></table></div>{{/best}}{{/hasHistory}}
        {{/content}}{{/layout}}
        """

    static let quality = """
        {{<layout}}{{$content}}
        <p><a href="{{homeHref}}">← All bridges</a></p><h1>How far to trust a forecast</h1>
        {{#message}}<p class="empty">{{.}}</p>{{/message}}
        {{#tested}}<p>The forecasts were made from the openings before {{testFrom}} only, then checked against what \
        happened from then to {{testUntil}} ({{testOpenings}} openings): for every {{minutes}}-minute stretch, the \
        forecast chance of an opening against whether one came.</p>
        {{#reliability}}{{>reliability}}{{/reliability}}
        {{#verdict}}<p class="verdict">{{.}}</p>{{/verdict}}
        <h2>Skill per bridge</h2>
        <p><strong>Skill</strong> is how much closer a forecast comes to what happened than always saying the \
        bridge's average chance: 0 is no better than the average, 1 is perfect (in Brier score). Each range is its \
        95% interval over the test days; the forecast beats the average only where the whole range is above zero. \
        <strong>Off by</strong> is how far, in percentage points, the forecast chances after a neighbour's opening \
        were from how often an opening followed. The forecast is one model of the river: each bridge opens at its own \
        rate (the time of week and season, the rush-hour rule and the holidays that lift it, dated closures) plus \
        what every opening of a linked bridge brings (a vessel passes a waterway's bridges in order; the links, their \
        shares and lags are learnt from the history and kept only when they beat copies of it with the days moved, \
        at a false-link rate of 0.1%). The time of week alone is the same without those openings. On planted \
        histories whose true chance is known, the same model reaches 91&ndash;98% of the truth's skill \
        (Docs/FORECASTS.md, Scripts/bench forecast). It does not know weather, vessel schedules or radio calls.</p>
        <div class="table-box" tabindex="0" role="region" aria-label="Skill per bridge"><table class="skill"><thead><tr><th scope="col">Bridge</th><th scope="col">Stretches \
        tested</th><th scope="col">Skill</th><th scope="col">Time of week alone</th><th scope="col">Beats the \
        average</th><th scope="col">Skill after a neighbour's opening</th><th scope="col">Off by</th></tr></thead><tbody>
        {{#rows}}<tr><th scope="row">{{bridge}}</th><td class="number">{{points}}</td><td class="number">{{forecast}}</td>\
        <td class="number">{{timeOfWeek}}</td><td>{{beats}}</td><td class="number">{{afterNeighbour}}</td>\
        <td class="number">{{afterReliability}}</td></tr>
        {{/rows}}</tbody></table></div>{{/tested}}
        {{#provenance}}<h2>Where the openings come from</h2><p class="provenance">{{.}}</p>{{/provenance}}
        {{/content}}{{/layout}}
        """

    static let error = """
        {{<layout}}{{$content}}
        <h1>{{title}}</h1><p>{{detail}}</p><p><a href="{{homeHref}}">All bridges</a></p>
        {{/content}}{{/layout}}
        """
}
