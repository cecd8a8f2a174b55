import BridgetCharts
import Foundation

/// The bridges at their stored positions on a basemap a person can orient by: each a dot coloured by its chance of an
/// opening and linking to its page, ringed when it is open now or opening soon, its name placed where no earlier label
/// or dot is. Under the dots, the configured map tiles (`pages.tiles`, placed in the SVG: no script), or, without
/// them, a schematic line per waterway through its bridges in order (the Ship Canal from Ballard to Montlake, the
/// Duwamish from Spokane Street to South Park).
///
/// Positions are Web Mercator, as tiles are, so the dots sit on the tiles; at a city's scale the shapes are true.
struct MapChart: Sendable {
    /// One bridge to place.
    struct Input: Sendable {
        let name: String
        let latitude: Double
        let longitude: Double
        let waterway: String
        let chance: Double
        let link: String
        /// `open`, `soon` or nil.
        let state: String?
        let stateText: String?
    }

    /// The basemap's tiles: an `{z}/{x}/{y}` URL template and the tile server's attribution.
    struct Tiles: Sendable {
        let template: String
        let attribution: String
    }

    struct Place: Sendable {
        let href: String
        let cx: String
        let cy: String
        let fill: String
        let tip: String
        let label: PlacedLabel
        let ring: Ring?
    }

    /// A ring around a bridge that is open or opening soon.
    struct Ring: Sendable {
        let kind: String
        let stroke: String
    }

    struct Tile: Sendable {
        let href: String
        let x: String
        let y: String
        let size: String
    }

    struct Waterway: Sendable {
        let path: String
        let name: String
        /// Its name beside the line, where a place is free.
        let label: PlacedLabel?
    }

    struct Break: Sendable {
        let path: String
        let label: PlacedLabel
        let box: Box
    }

    struct Attribution: Sendable {
        let text: String
        let x: String
        let y: String
    }

    let frame: ChartFrame
    let places: [Place]
    let tiles: [Tile]
    let hasTiles: Bool
    var waterways: [Waterway]
    let attribution: Attribution?
    /// Where an empty band across the middle is cut out: two dashed lines and how much is not shown.
    let breakLine: Break?
    /// What the dots' colours measure.
    let key: ColourKey
    /// How many minutes ahead an announced opening rings a bridge as opening soon.
    let soonMinutes: Int

    /// A box a label or a dot takes.
    typealias Box = (x: Double, y: Double, width: Double, height: Double)

    static let openStroke = "#b02a1c"
    static let soonStroke = "#e67e22"

    init(id: String, title: String, places given: [Input], tiles configured: Tiles? = nil, soonMinutes: Int = 0) {
        // A bridge without a finite position has no place on a map (its page still lists it).
        let values = given.filter { $0.latitude.isFinite && $0.longitude.isFinite }
        let width = 380.0
        let margin = 36.0
        key = ColourKey.chances(id: id + "-key", over: "in the next 30 minutes")
        self.soonMinutes = soonMinutes
        guard !values.isEmpty else {
            frame = ChartFrame(id: id, width: width, height: 240, title: title, emptyMessage: "no bridges")
            (places, tiles, hasTiles, waterways, attribution, breakLine) = ([], [], false, [], nil, nil)
            return
        }
        // Web Mercator world pixels at zoom 0 (256 wide), fitted into the frame with a margin; the frame as tall as
        // the bridges' extent needs (Seattle's run north to south), between 240 and 480.
        let world = values.map { Self.mercator(latitude: $0.latitude, longitude: $0.longitude) }
        let (minX, maxX) = (world.map(\.x).min() ?? 0, world.map(\.x).max() ?? 0)
        let (minY, maxY) = (world.map(\.y).min() ?? 0, world.map(\.y).max() ?? 0)
        let spanX = max(maxX - minX, 1e-7)
        // Without tiles, an empty band across the middle (Seattle's canal bridges lie 8 km north of the Duwamish's)
        // is cut out and drawn as a break, so the bridges fill the frame; each side keeps its true shape.
        let cut = configured == nil ? Self.emptyBand(world.map(\.y), span: maxY - minY) : nil
        let cutBand = 44.0 // the break's height on screen
        let spanY = max(maxY - minY - (cut.map { $0.upper - $0.lower } ?? 0), 1e-7)
        // At most a city block's worth of zoom for one bridge alone (a span of nothing).
        let widest = min((width - 2 * margin) / spanX, 256 * pow(2, 16) / 256)
        let band = cut == nil ? 0 : cutBand
        let height = min(max(spanY * widest + 2 * margin + band, 240), 480)
        let scale = min(widest, (height - 2 * margin - band) / spanY)
        let originX = minX - ((width - 2 * margin) / scale - spanX) / 2 - margin / scale
        let originY = minY - ((height - 2 * margin - band) / scale - spanY) / 2 - margin / scale
        func screen(_ point: (x: Double, y: Double)) -> (x: Double, y: Double) {
            // South of the cut, everything moves up by the band cut out, less the break drawn in its place.
            let shift = cut.map { point.y >= $0.upper ? ($0.upper - $0.lower) * scale - band : 0 } ?? 0
            return ((point.x - originX) * scale, (point.y - originY) * scale - shift)
        }
        let dots = world.map(screen)
        breakLine = cut.map { Self.breakLine($0, top: ($0.lower - originY) * scale, band: band, width: width) }

        let placedTiles = configured.map { Self.tiles($0, scale: scale, origin: (originX, originY), width: width,
                                                       height: height, screen: screen) } ?? []
        tiles = placedTiles
        hasTiles = !placedTiles.isEmpty
        attribution = hasTiles ? configured.map {
            Attribution(text: $0.attribution, x: ChartPaths.number(width - 4), y: ChartPaths.number(height - 4))
        } : nil

        // Without tiles, the waterways: one line per waterway through its bridges along its longer extent (their
        // names are placed after the bridges' labels, where none is).
        let lines = hasTiles ? [] : Self.waterwayLines(values, dots: dots)

        // Each label beside its dot, where no dot, ring or earlier label is (`places`).
        var taken: [Box] = dots.indices.map { index in
            let reach = values[index].state == nil ? 9.0 : 15.0
            return (dots[index].x - reach, dots[index].y - reach, 2 * reach, 2 * reach)
        } + (breakLine.map { [$0.box] } ?? [])
        places = Self.places(values, dots: dots, taken: &taken, frame: (width, height))
        waterways = Self.named(lines, taken: &taken, frame: (width, height))
        let open = values.filter { $0.state == "open" }.count, soon = values.filter { $0.state == "soon" }.count
        frame = ChartFrame(id: id, width: width, height: height, title: title,
                           summary: "\(values.count) bridges at their positions, coloured by the chance of an opening "
                            + "in the next 30 minutes" + (open > 0 ? "; \(open) open now" : "")
                            + (soon > 0 ? "; \(soon) opening soon" : "") + ".",
                           caption: "Each dot is a bridge at its place, coloured by the chance that it opens in the next "
                            + "30 minutes; tap one for its page." + (hasTiles ? "" : " The blue lines are the waterways "
                            + "the bridges cross, drawn through them in order.")
                            + (breakLine == nil ? "" : " Between the dashed lines, a stretch with no bridge is cut out "
                                + "so the bridges fill the map; north and south of it the shapes are true."),
                           hasTips: false, role: "group")
    }

    /// The dashed lines across the band cut out of the map, and what they say of it.
    private static func breakLine(_ cut: (lower: Double, upper: Double), top: Double, band: Double, width: Double)
        -> Break
    {
        let middle = top + band / 2
        // Metres a world pixel at zoom 0 covers at the band's latitude.
        let latitude = atan(sinh(.pi * (1 - 2 * (cut.lower + cut.upper) / 2 / 256))) * 180 / .pi
        let metres = (cut.upper - cut.lower) * 40_075_016.686 * cos(latitude * .pi / 180) / 256
        let text = String(format: "≈ %.0f km of the city not shown", (metres / 1000).rounded())
        return Break(path: "M0 \(ChartPaths.number(top + 6))H\(ChartPaths.number(width))M0 "
                        + "\(ChartPaths.number(top + band - 6))H\(ChartPaths.number(width))",
                     label: PlacedLabel(x: ChartPaths.number(width / 2), y: ChartPaths.number(middle + 4), text: text,
                                        anchor: "middle"),
                     box: (width / 2 - Double(text.count) * ChartText.characterWidth / 2, middle - 8,
                           Double(text.count) * ChartText.characterWidth, 16))
    }

    /// A waterway's line through its bridges, its name, and the way it runs.
    typealias WaterwayLine = (path: String, name: String, points: [(Double, Double)], alongX: Bool)

    /// The tiles the frame shows, at the zoom whose tiles are 256 to 512 px here; none past 64 of them.
    private static func tiles(_ configured: Tiles, scale: Double, origin: (x: Double, y: Double), width: Double,
                              height: Double, screen: ((x: Double, y: Double)) -> (x: Double, y: Double)) -> [Tile] {
        let (originX, originY) = origin
        var placedTiles: [Tile] = []
        let zoom = max(0, min(19, Int(floor(log2(scale)))))
        let size = 256 * scale / pow(2, Double(zoom))
        let count = Int(pow(2, Double(zoom)))
        let perTile = 256 / pow(2, Double(zoom)) // world pixels a tile covers
        let firstX = Int(floor(originX / perTile)), lastX = Int(floor((originX + width / scale) / perTile))
        let firstY = Int(floor(originY / perTile)), lastY = Int(floor((originY + height / scale) / perTile))
        guard (lastX - firstX + 1) * (lastY - firstY + 1) <= 64 else { return [] }
        for tileY in max(firstY, 0)...min(lastY, count - 1) {
            for tileX in firstX...lastX {
                let wrapped = ((tileX % count) + count) % count
                let href = configured.template.replacingOccurrences(of: "{z}", with: String(zoom))
                    .replacingOccurrences(of: "{x}", with: String(wrapped))
                    .replacingOccurrences(of: "{y}", with: String(tileY))
                let corner = screen((Double(tileX) * perTile, Double(tileY) * perTile))
                placedTiles.append(Tile(href: href, x: ChartPaths.number(corner.x), y: ChartPaths.number(corner.y),
                                        size: ChartPaths.number(size + 0.5))) // a hair over: no seams
            }
        }
        return placedTiles
    }

    /// Without tiles, the waterways: one line per waterway through its bridges along its longer extent.
    private static func waterwayLines(_ values: [Input], dots: [(x: Double, y: Double)]) -> [WaterwayLine] {
        var lines: [WaterwayLine] = []
        let groups = Dictionary(grouping: values.indices, by: { Self.waterwayGroup(values[$0].waterway) })
        for (name, members) in groups.sorted(by: { $0.key < $1.key }) where !name.isEmpty && members.count >= 2 {
            let xs = members.map { dots[$0].x }, ys = members.map { dots[$0].y }
            // `max()!`, `min()!`: a group has two members at least.
            let alongX = (xs.max()! - xs.min()!) >= (ys.max()! - ys.min()!)
            let ordered = members.sorted { alongX ? dots[$0].x < dots[$1].x : dots[$0].y < dots[$1].y }
            // The line runs a little past its end bridges, as the water does.
            let first = dots[ordered[0]], last = dots[ordered[ordered.count - 1]]
            let length = max(hypot(last.x - first.x, last.y - first.y), 1)
            let (ux, uy) = ((last.x - first.x) / length, (last.y - first.y) / length)
            var points = [(first.x - ux * 18, first.y - uy * 18)]
            points += ordered.map { (dots[$0].x, dots[$0].y) }
            points.append((last.x + ux * 18, last.y + uy * 18))
            let path = "M" + points.map { ChartPaths.number($0.0) + "," + ChartPaths.number($0.1) }.joined(separator: " L")
            lines.append((path, name, points, alongX))
        }
        return lines
    }

    /// Each bridge's dot, ring and label. Each label goes beside its dot: right, left, below, above, then the
    /// diagonals, then the same farther out; the first place inside the frame that no dot, ring or earlier label takes
    /// (bridges a few hundred metres apart, such as Fremont and University, would otherwise print over each other),
    /// else the place that overlaps least. The labels' boxes join `taken`.
    private static func places(_ values: [Input], dots: [(x: Double, y: Double)], taken: inout [Box],
                               frame: (width: Double, height: Double)) -> [Place] {
        var placed: [Place] = []
        for (index, place) in values.enumerated() {
            let (x, y) = dots[index]
            let reach = place.state == nil ? 11.0 : 17.0
            let label = placeLabel(place.name, at: (x, y), reach: reach, taken: taken, frame: frame)
            taken.append(label.box)
            let ring: Ring? = switch place.state {
            case "open": Ring(kind: "open", stroke: openStroke)
            case "soon": Ring(kind: "soon", stroke: soonStroke)
            default: nil
            }
            placed.append(Place(
                href: place.link, cx: ChartPaths.number(x), cy: ChartPaths.number(y),
                fill: ChartText.chanceFill(place.chance),
                tip: "\(place.name): " + (place.stateText.map { $0 + "; " } ?? "")
                    + "\(ChartText.percent(place.chance)) chance of an opening in the next 30 minutes",
                label: PlacedLabel(x: ChartPaths.number(label.x), y: ChartPaths.number(label.y), text: label.text,
                                   anchor: label.anchor),
                ring: ring))
        }
        return placed
    }

    /// Each waterway's name beside a stretch of its line, the first place no label or dot takes; none where every
    /// place is taken (its line keeps its name as a tooltip). The names' boxes join `taken`.
    private static func named(_ lines: [WaterwayLine], taken: inout [Box], frame: (width: Double, height: Double))
        -> [Waterway]
    {
        let (width, height) = frame
        var named: [Waterway] = []
        func overlaps(_ box: Box, _ taken: [Box]) -> Bool {
            taken.contains { box.x < $0.x + $0.width && $0.x < box.x + box.width && box.y < $0.y + $0.height
                && $0.y < box.y + box.height }
        }
        for line in lines {
            let textWidth = Double(line.name.count) * ChartText.characterWidth
            var choices: [(x: Double, y: Double, box: Box)] = []
            for (a, b) in zip(line.points, line.points.dropFirst()) {
                let (mx, my) = ((a.0 + b.0) / 2, (a.1 + b.1) / 2)
                if line.alongX {
                    choices += [(mx, my + 19, (mx - textWidth / 2, my + 8, textWidth, 14)),
                                (mx, my - 10, (mx - textWidth / 2, my - 22, textWidth, 14))]
                } else {
                    choices += [(mx - 10 - textWidth / 2, my + 4, (mx - 10 - textWidth, my - 8, textWidth, 14)),
                                (mx + 10 + textWidth / 2, my + 4, (mx + 10, my - 8, textWidth, 14))]
                }
            }
            let choice = choices.first(where: { !overlaps($0.box, taken) && $0.box.x >= 2
                && $0.box.x + $0.box.width <= width - 2 && $0.box.y >= 2 && $0.box.y + $0.box.height <= height - 2 })
            if let choice { taken.append(choice.box) }
            named.append(Waterway(path: line.path, name: line.name, label: choice.map {
                PlacedLabel(x: ChartPaths.number($0.x), y: ChartPaths.number($0.y), text: line.name, anchor: "middle")
            }))
        }
        return named
    }

    /// Where `name`'s label goes beside a dot at `point`, `reach` from its centre: its text, position, anchor and box.
    /// A name too long for any free place inside the frame (NDW's names carry coordinates) is shortened with an
    /// ellipsis until one is free; the dot's tooltip and link keep the whole name.
    static func placeLabel(_ name: String, at point: (x: Double, y: Double), reach: Double, taken: [Box],
                           frame: (width: Double, height: Double))
        -> (text: String, x: Double, y: Double, anchor: String, box: Box)
    {
        func overlap(_ box: Box) -> Double {
            taken.reduce(0) { total, other in
                let across = min(box.x + box.width, other.x + other.width) - max(box.x, other.x)
                let down = min(box.y + box.height, other.y + other.height) - max(box.y, other.y)
                return total + (across > 0 && down > 0 ? across * down : 0)
            }
        }
        let inside = { (box: Box) in
            box.x >= 2 && box.x + box.width <= frame.width - 2 && box.y >= 2 && box.y + box.height <= frame.height - 2
        }
        let characters = Array(name)
        var lengths = Array(stride(from: characters.count, to: 8, by: -3))
        if lengths.last != min(8, characters.count) { lengths.append(min(8, characters.count)) }
        var fallback: (text: String, x: Double, y: Double, anchor: String, box: Box)?
        for length in lengths {
            let text = length >= characters.count ? name
                : String(characters.prefix(length - 1)).trimmingCharacters(in: .whitespaces) + "…"
            let choices = labelChoices(Double(text.count), at: point, reach: reach)
            let candidates = choices.filter { inside($0.box) }
            if let free = candidates.first(where: { overlap($0.box) == 0 }) {
                return (text, free.x, free.y, free.anchor, free.box)
            }
            if fallback == nil, let least = candidates.min(by: { overlap($0.box) < overlap($1.box) }) {
                fallback = (text, least.x, least.y, least.anchor, least.box)
            }
            if length == lengths.last, fallback == nil, let first = choices.first {
                fallback = (text, first.x, first.y, first.anchor, first.box)
            }
        }
        return fallback ?? (name, point.x + reach, point.y + 4, "start", (point.x + reach, point.y - 8, 0, 14))
    }

    /// The places a label `characters` long can take beside a dot: right, left, below, above, then the diagonals,
    /// then the same farther out.
    static func labelChoices(_ characters: Double, at point: (x: Double, y: Double), reach: Double)
        -> [(x: Double, y: Double, anchor: String, box: Box)]
    {
        let (x, y) = point
        let textWidth = characters * ChartText.characterWidth
        let textHeight = 14.0
        var choices: [(x: Double, y: Double, anchor: String, box: Box)] = []
        for distance in [reach, reach + 14, reach + 30] {
            let diagonal = distance * 0.75
            choices += [
                (x + distance, y + 4, "start", (x + distance, y - 8, textWidth, textHeight)),
                (x - distance, y + 4, "end", (x - distance - textWidth, y - 8, textWidth, textHeight)),
                (x, y + distance + 10, "middle", (x - textWidth / 2, y + distance, textWidth, textHeight)),
                (x, y - distance - 3, "middle", (x - textWidth / 2, y - distance - textHeight, textWidth, textHeight)),
                (x + diagonal, y - diagonal - 3, "start", (x + diagonal, y - diagonal - textHeight, textWidth, textHeight)),
                (x + diagonal, y + diagonal + 10, "start", (x + diagonal, y + diagonal, textWidth, textHeight)),
                (x - diagonal, y - diagonal - 3, "end",
                 (x - diagonal - textWidth, y - diagonal - textHeight, textWidth, textHeight)),
                (x - diagonal, y + diagonal + 10, "end", (x - diagonal - textWidth, y + diagonal, textWidth, textHeight)),
            ]
        }
        return choices
    }

    /// The widest empty band between the bridges' y positions, when it is more than 40% of their extent and leaves
    /// two bridges or more on each side: its top and bottom (world y, a little inside the bridges on either side).
    static func emptyBand(_ ys: [Double], span: Double) -> (lower: Double, upper: Double)? {
        let sorted = ys.sorted()
        guard sorted.count >= 4, span > 0 else { return nil }
        var best: (lower: Double, upper: Double, index: Int)?
        for index in 1..<sorted.count where sorted[index] - sorted[index - 1] > (best.map { $0.upper - $0.lower } ?? 0) {
            best = (sorted[index - 1], sorted[index], index)
        }
        guard let best, best.upper - best.lower > 0.4 * span, best.index >= 2, sorted.count - best.index >= 2 else {
            return nil
        }
        // A tenth of the span kept on each side, so the labels beside the bridges nearest the break have room.
        let keep = 0.1 * span
        guard best.upper - best.lower > 2 * keep else { return nil }
        return (best.lower + keep, best.upper - keep)
    }

    /// Web Mercator at zoom 0: x and y from 0 to 256.
    static func mercator(latitude: Double, longitude: Double) -> (x: Double, y: Double) {
        let clamped = max(min(latitude, 85.0511), -85.0511) * .pi / 180
        return ((longitude + 180) / 360 * 256, (1 - log(tan(clamped) + 1 / cos(clamped)) / .pi) / 2 * 256)
    }

    /// The water a waterway belongs to: the reaches of the Ship Canal are one line, the Duwamish's are another; any
    /// other waterway is its own.
    static func waterwayGroup(_ name: String) -> String {
        for system in ["Ship Canal", "Duwamish"] where name.localizedCaseInsensitiveContains(system) { return system }
        return name
    }
}
