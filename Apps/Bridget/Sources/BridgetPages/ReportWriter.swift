import BridgetCore
import Foundation

/// Writes the pages as files (`bridget report`) so that a run can destroy nothing: every page is rendered and written
/// into a folder of its own beside the target first, and moved into place only when all were; a file already at a
/// page's path is replaced only if an earlier report wrote it (the folder's manifest, `.bridget-report`, lists what
/// the report wrote), so a folder of other files is never written over; pages the last report wrote that this one
/// does not (a route since removed) are removed.
package struct ReportWriter: Sendable {
    /// The manifest's name in the report's folder.
    package static let manifestName = ".bridget-report"

    package let folder: URL

    package init(folder: URL) { self.folder = folder }

    /// Writes `pages` (paths under the folder, and their HTML); returns the pages written and the stale ones removed.
    package func write(_ pages: [(path: String, html: String)]) throws -> (written: Int, removed: Int) {
        let files = FileManager.default
        let previous = manifest()
        // Refuse before anything is written: a file at a page's path that no report of ours wrote.
        for page in pages where !previous.contains(page.path) {
            let target = folder.appendingPathComponent(page.path)
            if files.fileExists(atPath: target.path) {
                throw BridgetError(.dataReportForeign, "\(target.path) exists and was not written by bridget report; nothing was written",
                    hint: "choose another --out, or move that file away")
            }
        }
        let parent = folder.deletingLastPathComponent()
        let staging = parent.appendingPathComponent(".\(folder.lastPathComponent).writing-\(UUID().uuidString)")
        defer { try? files.removeItem(at: staging) }
        do {
            for page in pages {
                let file = staging.appendingPathComponent(page.path)
                try files.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
                try OwnFile.replace(file.path, with: Data(page.html.utf8))
            }
            try files.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw BridgetError(.dataReportWrite, "cannot write the report beside \(folder.path): "
                                    + error.localizedDescription + "; nothing was written",
                                    hint: "choose a folder you can write with --out")
        }
        // Into place, file by file (a rename in one file system), then the pages of the last report not made again.
        let paths = Set(pages.map(\.path))
        do {
            for page in pages {
                let target = folder.appendingPathComponent(page.path)
                try files.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
                guard rename(staging.appendingPathComponent(page.path).path, target.path) == 0 else {
                    throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: target.path])
                }
            }
            var removed = 0
            for stale in previous.subtracting(paths) {
                if (try? files.removeItem(at: folder.appendingPathComponent(stale))) != nil { removed += 1 }
            }
            let list = paths.sorted().joined(separator: "\n") + "\n"
            try OwnFile.replace(folder.appendingPathComponent(Self.manifestName).path, with: Data(
                ("# the pages bridget report wrote here; it replaces and removes only these\n" + list).utf8))
            return (pages.count, removed)
        } catch {
            throw BridgetError(.dataReportWrite, "cannot move the report into \(folder.path): "
                                    + error.localizedDescription, hint: "choose a folder you can write with --out")
        }
    }

    /// The pages an earlier report wrote in the folder (none without a manifest).
    func manifest() -> Set<String> {
        guard let text = try? String(contentsOf: folder.appendingPathComponent(Self.manifestName), encoding: .utf8)
        else { return [] }
        return Set(text.split(separator: "\n").map(String.init).filter {
            !$0.hasPrefix("#") && !$0.isEmpty && !$0.hasPrefix("/") && !$0.split(separator: "/").contains("..")
        })
    }
}
