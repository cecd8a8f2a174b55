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
        let labelX: String
        let labelY: String
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

    static let openStroke = "#c0392b"
    static let soonStroke = "#e67e22"

    init(id: String, title: String, places values: [Input], tiles configured: Tiles? = nil) {
        let (width, height, margin) = (360.0, 300.0, 30.0)
        guard !values.isEmpty else {
            frame = ChartFrame(id: id, width: width, height: height, title: title, emptyMessage: "no bridges")
            (places, tiles, hasTiles, waterways, attribution) = ([], [], false, [], nil)
            return
        }
        // Web Mercator world pixels at zoom 0 (256 wide), fitted into the frame with a margin.
        let world = values.map { Self.mercator(latitude: $0.latitude, longitude: $0.longitude) }
        let (minX, maxX) = (world.map(\.x).min() ?? 0, world.map(\.x).max() ?? 0)
        let (minY, maxY) = (world.map(\.y).min() ?? 0, world.map(\.y).max() ?? 0)
        let spanX = max(maxX - minX, 1e-7)
        let spanY = max(maxY - minY, 1e-7)
        // At most a city block's worth of zoom for one bridge alone (a span of nothing).
        let scale = min((width - 2 * margin) / spanX, (height - 2 * margin) / spanY, 256 * pow(2, 16) / 256)
        let originX = minX - ((width - 2 * margin) / scale - spanX) / 2 - margin / scale
        let originY = minY - ((height - 2 * margin) / scale - spanY) / 2 - margin / scale
        func screen(_ point: (x: Double, y: Double)) -> (x: Double, y: Double) {
            ((point.x - originX) * scale, (point.y - originY) * scale)
        }
        let dots = world.map(screen)

        // Tiles: the zoom whose tiles are 256 to 512 px here, every tile the frame shows.
        var placedTiles: [Tile] = []
        if let configured {
            let zoom = max(0, min(19, Int(floor(log2(scale)))))
            let size = 256 * scale / pow(2, Double(zoom))
            let count = Int(pow(2, Double(zoom)))
            let perTile = 256 / pow(2, Double(zoom)) // world pixels a tile covers
            let firstX = Int(floor(originX / perTile)), lastX = Int(floor((originX + width / scale) / perTile))
            let firstY = Int(floor(originY / perTile)), lastY = Int(floor((originY + height / scale) / perTile))
            if (lastX - firstX + 1) * (lastY - firstY + 1) <= 64 {
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
            }
        }
        tiles = placedTiles
        hasTiles = !placedTiles.isEmpty
        attribution = hasTiles ? configured.map {
            Attribution(text: $0.attribution, x: ChartPaths.number(width - 4), y: ChartPaths.number(height - 4))
        } : nil

        // Without tiles, the waterways: one line per waterway through its bridges along its longer extent (their
        // names are placed after the bridges' labels, where none is).
        var lines: [(path: String, name: String, points: [(Double, Double)], alongX: Bool)] = []
        if !hasTiles {
            let groups = Dictionary(grouping: values.indices, by: { Self.waterwayGroup(values[$0].waterway) })
            for (name, members) in groups.sorted(by: { $0.key < $1.key }) where !name.isEmpty && members.count >= 2 {
                let xs = members.map { dots[$0].x }, ys = members.map { dots[$0].y }
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
        }

        // Each label goes right of its dot, else left, below or above: the first place no earlier label or dot takes
        // (bridges a few hundred metres apart, such as Fremont and University, would otherwise print over each other).
        var taken: [(x: Double, y: Double, width: Double, height: Double)] = dots.map { ($0.x - 8, $0.y - 8, 16, 16) }
        func overlaps(_ box: (x: Double, y: Double, width: Double, height: Double)) -> Bool {
            taken.contains { box.x < $0.x + $0.width && $0.x < box.x + box.width && box.y < $0.y + $0.height
                && $0.y < box.y + box.height }
        }
        var placed: [Place] = []
        for (index, place) in values.enumerated() {
            let (x, y) = dots[index]
            let labelWidth = Double(place.name.count) * 6.2
            let choices: [(x: Double, y: Double, anchor: String, box: (x: Double, y: Double, width: Double, height: Double))] = [
                (x + 11, y + 4, "start", (x + 11, y - 7, labelWidth, 13)),
                (x - 11, y + 4, "end", (x - 11 - labelWidth, y - 7, labelWidth, 13)),
                (x, y + 21, "middle", (x - labelWidth / 2, y + 10, labelWidth, 13)),
                (x, y - 13, "middle", (x - labelWidth / 2, y - 24, labelWidth, 13)),
            ]
            // Inside the frame when a place there is free: a long name (NDW's) is not cut at the edge.
            let inside = { (box: (x: Double, y: Double, width: Double, height: Double)) in
                box.x >= 0 && box.x + box.width <= width && box.y >= 0 && box.y + box.height <= height
            }
            let label = choices.first { !overlaps($0.box) && inside($0.box) } ?? choices.first { !overlaps($0.box) }
                ?? choices[0]
            taken.append(label.box)
            let ring: Ring? = switch place.state {
            case "open": Ring(kind: "open", stroke: Self.openStroke)
            case "soon": Ring(kind: "soon", stroke: Self.soonStroke)
            default: nil
            }
            placed.append(Place(
                href: place.link, cx: ChartPaths.number(x), cy: ChartPaths.number(y),
                fill: ChartText.shade(min(place.chance * 2, 1)),
                tip: "\(place.name): " + (place.stateText.map { $0 + "; " } ?? "")
                    + "\(ChartText.percent(place.chance)) chance of an opening in the next 30 minutes",
                label: PlacedLabel(x: ChartPaths.number(label.x), y: ChartPaths.number(label.y), text: place.name,
                                   anchor: label.anchor),
                ring: ring))
        }
        places = placed
        // Each waterway's name beside a stretch of its line, the first place no label or dot takes.
        var named: [Waterway] = []
        for line in lines {
            let textWidth = Double(line.name.count) * 5.6
            var choices: [(x: Double, y: Double, box: (x: Double, y: Double, width: Double, height: Double))] = []
            for (a, b) in zip(line.points, line.points.dropFirst()) {
                let (mx, my) = ((a.0 + b.0) / 2, (a.1 + b.1) / 2)
                if line.alongX {
                    choices += [(mx, my + 18, (mx - textWidth / 2, my + 8, textWidth, 12)), (mx, my - 10, (mx - textWidth / 2, my - 20, textWidth, 12))]
                } else {
                    choices += [(mx - 10 - textWidth / 2, my + 4, (mx - 10 - textWidth, my - 6, textWidth, 12)),
                                (mx + 10 + textWidth / 2, my + 4, (mx + 10, my - 6, textWidth, 12))]
                }
            }
            guard let choice = choices.first(where: { !overlaps($0.box) && $0.box.x >= 0 && $0.box.x + $0.box.width <= width })
                ?? choices.first else { continue }
            taken.append(choice.box)
            named.append(Waterway(path: line.path, name: line.name, labelX: ChartPaths.number(choice.x),
                                  labelY: ChartPaths.number(choice.y)))
        }
        waterways = named
        let open = values.filter { $0.state == "open" }.count, soon = values.filter { $0.state == "soon" }.count
        frame = ChartFrame(id: id, width: width, height: height, title: title,
                           summary: "\(values.count) bridges at their positions, coloured by the chance of an opening "
                            + "in the next 30 minutes" + (open > 0 ? "; \(open) open now" : "")
                            + (soon > 0 ? "; \(soon) opening soon" : "") + ".")
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
