import ArgumentParser
import BridgetCore
import BridgetPages
import Foundation

/// `bridget report --out DIR`: the pages as files, for a user with no server.
struct ReportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Write the overview, every bridge and every saved route as static HTML pages.",
        discussion: """
            The pages `bridget serve` will show, as files with relative links: index.html (every bridge's \
            chance of an opening in each quarter hour of the next 12 hours, the last openings, a map), \
            bridges/ID.html (the hour-of-week heatmap, openings per month, durations, the last 20 openings) \
            and routes/NAME.html (the expected delay of each departure of the next commute, the best marked). \
            Charts are inline SVG with titles, text summaries and captions; a tap shows a mark's tip (one small \
            script); nothing fetched. Made for a phone first. Times are in the store's zone.
              bridget report --out report && open report/index.html
            """)

    @OptionGroup var global: GlobalOptions

    @Option(name: .long, help: ArgumentHelp(
        "The folder to write (created when missing). The pages an earlier report wrote there are replaced, and removed "
            + "when they no longer exist; any other file is left alone, and one at a page's path stops the report.",
        valueName: "dir"))
    var out: String

    func validate() throws {
        guard !out.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw ValidationError("--out needs a folder (e.g. --out report); an empty one would mean this folder")
        }
    }

    func run() async throws {
        try await reportingErrors {
            let context = try global.context()
            let pages = try await Site.reading(context, now: context.assembly.now()).pages()
            let root = URL(fileURLWithPath: out).standardizedFileURL
            let (written, removed) = try ReportWriter(folder: root).write(pages)
            print("wrote \(written) pages to \(root.path) (open \(root.appendingPathComponent("index.html").path))"
                  + (removed > 0 ? "; removed \(removed) an earlier report wrote that no longer exist" : ""))
        }
    }
}
