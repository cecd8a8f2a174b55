import BridgetContext
import BridgetDTOs
@testable import BridgetPages
import BridgetPersistence
import Foundation
import Testing

/// Every text a user or a feed controls reaches the pages through the templates' one escaping path: route names,
/// bridge names and display names, waterways and kinds from a feed, and what an error page echoes back.
@Suite("the pages against hostile names")
struct InjectionTests {
    /// Markup, quotes, template syntax, URL schemes and control characters, alone and together.
    static let hostile: [String] = [
        "<script>alert(1)</script>", "\"><img src=x onerror=alert(1)>", "'><svg onload=alert(1)>",
        "' onmouseover='alert(1)", "\" onfocus=\"alert(1)\" autofocus=\"", "</title><script>alert(1)</script>",
        "</textarea><script>x</script>", "</svg><script>x</script>", "<!--", "-->", "<![CDATA[x]]>",
        "]]><script>x</script>", "&lt;script&gt;", "&amp;&#60;", "{{frame}}", "{{{title}}}", "{{> layout}}",
        "{{#rows}}x{{/rows}}", "{{=<% %>=}}", "javascript:alert(1)", "data:text/html,<script>x</script>",
        "vbscript:msgbox(1)", "<a href=\"javascript:alert(1)\">x</a>", "<style>*{display:none}</style>",
        "<iframe src=//evil>", "<base href=//evil/>", "<meta http-equiv=refresh content=0;url=//evil>",
        "\u{202E}evil\u{202C}", "tab\tand\u{0B}vertical", "a\u{00A0}b<b>", "%3Cscript%3E", "\\\"><script>",
        "`${alert(1)}`", "<math><mi xlink:href=\"javascript:alert(1)\">x</mi></math>",
        "<object data=\"javascript:alert(1)\">", "Fremont/../../etc/passwd",
    ]

    @Test("36 hostile names as bridges from a feed and as saved routes: no markup of theirs reaches a page")
    func hostileNames() async throws {
        #expect(Self.hostile.count == 36)
        let folder = NSTemporaryDirectory() + "bridget-pages-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try """
            store:
              path: \(folder)/store.sqlite
            routes:
              path: \(folder)/routes.yaml
            """.write(toFile: folder + "/bridget.yaml", atomically: true, encoding: .utf8)
        let now = Date(timeIntervalSince1970: 1_782_850_000)
        let context = try AppContext.load(configPath: folder + "/bridget.yaml", environment: [:], now: { now },
                                          notes: { _ in })
        let store = try await context.assembly.makeStore()
        // A feed whose bridges carry the hostile texts, each with openings so every chart and table shows it.
        let bridges = Self.hostile.enumerated().map { index, text in
            BridgeInfoDTO(id: "\(100 + index)", name: text, displayName: text + " Bridge", latitude: 47.6 + Double(index) / 1000,
                          longitude: -122.3 - Double(index) / 1000, waterway: text, kind: text)
        }
        try await store.upsertBridges(bridges)
        var events: [BridgeEventDTO] = []
        for bridge in bridges {
            for day in 0..<10 {
                let opened = now.addingTimeInterval(Double(-day * 86_400 - 3_600))
                let clock = context.clock
                events.append(BridgeEventDTO(
                    bridgeID: bridge.id, bridgeName: bridge.name, openedAt: opened,
                    openLocal: clock.reading(for: opened).localText + ".000",
                    closedAt: opened.addingTimeInterval(300),
                    closeLocal: clock.reading(for: opened.addingTimeInterval(300)).localText + ".000", minutesOpen: 5,
                    latitude: bridge.latitude, longitude: bridge.longitude))
            }
        }
        _ = try await store.upsertEvents(events)
        let routes = try await context.routeFile(migratingFrom: store)
        for (index, text) in Self.hostile.enumerated() {
            try await routes.saveRoute(RouteDTO(id: text, crossings: [
                RouteCrossingDTO(bridgeIDs: [bridges[index].id], minutesFromStart: 5),
            ]))
        }

        var rendered: [(String, String)] = []
        for links in [Site.Links.files, .server] {
            let site = Site(context: context, store: store, now: now, links: links)
            rendered += try await site.pages().map { ("\(links) \($0.path)", $0.html) }
            for text in Self.hostile {
                rendered.append(("error page", site.errorPage(title: text, detail: "no bridge named '\(text)'")))
            }
        }
        #expect(rendered.count > 2 * 36 * 2, "every bridge and route has its page")
        for (page, html) in rendered {
            for text in Self.hostile where text.contains(where: { "<>\"'".contains($0) }) {
                #expect(!html.contains(text), "\(page) shows \(text) unescaped")
            }
            // The pages' one script, the tap readout, is theirs; no other.
            let own = html.replacingOccurrences(of: PageTemplates.tapScript, with: "")
            #expect(own.count == html.count - PageTemplates.tapScript.count, "\(page) lacks its tap script")
            #expect(!own.lowercased().contains("<script") && !html.lowercased().contains("<img")
                    && !html.lowercased().contains("<iframe") && !html.lowercased().contains("<base "),
                    "\(page) holds markup it did not write")
            #expect(!html.contains("href=\"javascript:") && !html.contains("href=\"data:"), "\(page) links a script")
        }
        // They are shown, escaped: a route's name on the overview, a bridge's name on its own page.
        let overview = try #require(rendered.first { $0.0 == "files index.html" }?.1)
        #expect(overview.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        #expect(overview.contains("&amp;lt;script&amp;gt;")) // an entity in a name is shown as typed, not decoded
        #expect(overview.contains("{{frame}}")) // template syntax in data is text, not a template
    }

    @Test("the templates echo nothing unescaped: no triple mustache and no ampersand tag")
    func templatesEscapeEverything() {
        for (name, source) in PageTemplates.sources {
            #expect(!source.contains("{{{") && !source.contains("{{&"), "template \(name) echoes raw text")
        }
    }
}
