import Foundation
import Testing

/// The pages in a real browser (headless Chromium): from the static report and from the running server, each loads
/// with nothing on its console, holds what it should, draws a screenshot that is not blank, and passes the checks of
/// a person on a phone and at a desk (`Scripts/test.d/pages`: no sideways scrolling, chart text of 11 px or more, no
/// overlapping labels, no serious accessibility violation, a tap showing what a hover shows).
@Suite("pages in a browser")
struct PageBrowserTests {
    func count(_ needle: String, in text: String) -> Int { text.components(separatedBy: needle).count - 1 }

    /// Checks a loaded page set: the overview, Fremont's page and the route's, given their URLs.
    func check(overview: String, bridge: String, route: String, quality: String, browser: Browser, home: String,
               shots: String) async throws {
        let pages = [("overview", overview), ("bridge", bridge), ("route", route)]
        let checked = try await Browser.checkPages(pages + [("quality", quality)], shots: shots + "/sizes")
        #expect(checked.status == 0 && checked.checks == 8, "\(checked.output)")
        #expect(checked.failures.isEmpty, "\(checked.failures)")
        var loaded: [String: String] = [:]
        for (name, url) in pages {
            let page = try await browser.load(url, home: home)
            #expect(page.console.isEmpty, "\(name): the console said \(page.console)")
            #expect(page.dom.contains("</html>"), "\(name): no page at \(url)")
            loaded[name] = page.dom
            let png = shots + "/\(name).png"
            try await browser.screenshot(url, to: png, home: home)
            let colours = try await Browser.distinctColours(png)
            #expect(colours >= 12, "\(name): the screenshot holds \(colours) colours (blank?)")
        }
        let dom = loaded.mapValues { $0 }
        // One row a bridge on the overview, each with its 48 quarter hours.
        #expect(count("class=\"bridge-row\"", in: dom["overview"] ?? "") == 7)
        #expect(count("class=\"slot\"", in: dom["overview"] ?? "") == 7 * 48)
        // 168 heatmap cells, each with its tooltip.
        let heatmap = (dom["bridge"] ?? "").components(separatedBy: "id=\"months\"")[0]
        #expect(count("class=\"cell\"", in: heatmap) == 168)
        #expect(count("class=\"cell\"", in: heatmap) == count("</title></rect>", in: heatmap.components(separatedBy: "id=\"heatmap\"").last ?? ""))
        // The best departure marked.
        #expect(count("class=\"best\"", in: dom["route"] ?? "") == 1 && (dom["route"] ?? "").contains("Best departure"))
        // The route page names its bridges; the overview says each route's best departure of its next commute.
        #expect((dom["route"] ?? "").contains("Crosses Fremont or Ballard at 8 min."))
        #expect((dom["overview"] ?? "").contains("best departure "))
    }

    @Test("the static report in a browser: no console message, the heatmap, the rows and the best departure")
    func report() async throws {
        let browser = try Browser()
        let bridget = BridgetProcess()
        let config = try bridget.sampleConfig(days: 60)
        #expect(try await bridget.run(["sync", "--config", config]).status == 0)
        #expect(try await bridget.run(["route", "add", "commute", "--via", "Fremont/Ballard@8", "--config", config]).status == 0)
        let out = bridget.home + "/report"
        #expect(try await bridget.run(["report", "--out", out, "--config", config]).status == 0)
        try await check(overview: "file://\(out)/index.html", bridge: "file://\(out)/bridges/3.html",
                  route: "file://\(out)/routes/commute.html", quality: "file://\(out)/quality.html", browser: browser,
                  home: bridget.home, shots: bridget.home)
        // The report's links are relative: the overview's link to Fremont names the file beside it.
        let overview = try await browser.load("file://\(out)/index.html", home: bridget.home).dom
        #expect(overview.contains("href=\"bridges/3.html\"") && overview.contains("href=\"routes/commute.html\""))
    }

    @Test("the server's pages in a browser, and an unknown bridge's page is a readable 404")
    func served() async throws {
        let browser = try Browser()
        let bridget = BridgetProcess()
        let config = try bridget.sampleConfig(days: 60)
        #expect(try await bridget.run(["sync", "--config", config]).status == 0)
        #expect(try await bridget.run(["route", "add", "commute", "--via", "Fremont/Ballard@8", "--config", config]).status == 0)
        let server = try await ServeTests.Server(bridget, config: config, log: "pages")
        defer { server.terminate() }
        let base = server.base.absoluteString
        try await check(overview: base + "/", bridge: base + "/bridges/Fremont", route: base + "/routes/commute",
                  quality: base + "/quality", browser: browser, home: bridget.home, shots: bridget.home)
        let (status, headers, body) = try await server.get("/bridges/Aurora")
        #expect(status == 404 && headers["content-type"]?.hasPrefix("text/html") == true && body.contains("No such bridge"))
        // A mistyped page address, from a browser, is a page too; a program asking the same gets the problem's JSON.
        let mistyped = try await server.get("/brdges/Fremont", headers: ["Accept": "text/html,application/xhtml+xml"])
        #expect(mistyped.0 == 404 && mistyped.1["content-type"]?.hasPrefix("text/html") == true
                && mistyped.2.contains("There is no page at /brdges/Fremont"), "\(mistyped.2.prefix(500))")
        let program = try await server.get("/brdges/Fremont")
        #expect(program.0 == 404 && program.1["content-type"]?.hasPrefix("application/problem+json") == true)
        let api = try await server.get("/v1/nothing", headers: ["Accept": "text/html"])
        #expect(api.0 == 404 && api.1["content-type"]?.hasPrefix("application/problem+json") == true)
        let (ok, pageHeaders, _) = try await server.get("/")
        #expect(ok == 200 && pageHeaders["etag"] != nil && pageHeaders["cache-control"]?.hasPrefix("max-age=") == true)
    }
}
