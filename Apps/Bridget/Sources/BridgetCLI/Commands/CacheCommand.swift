import ArgumentParser
import BridgetCaching
import BridgetCore
import Foundation

/// `bridget cache`: the HTTP cache the live provider fills and the cached provider serves.
struct CacheCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cache",
        abstract: "Inspect or empty the HTTP cache (cache.path).",
        subcommands: [Stats.self, Clear.self])

    /// `bridget cache stats`.
    struct Stats: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "stats", 
            abstract: "Entries, size and budget of the HTTP cache; every entry is checked and corrupt ones removed.")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: FormatOptions

        func run() async throws {
            try await reportingErrors {
                let context = try global.context()
                let cache = try context.assembly.makeDiskCache()
                for metadata in await cache.allMetadata() { _ = await cache.response(forKey: metadata.key) }
                let stats = await cache.statistics()
                let report = CacheReport(path: cache.directory, entries: stats.entries, bytes: stats.bytes,
                                         maximumBytes: stats.maximumBytes, corruptRemoved: stats.discarded)
                let rows = [
                    [Cell("path"), Cell(report.path)],
                    [Cell("entries"), Cell("\(report.entries)")],
                    [Cell("bytes"), Cell("\(report.bytes) of \(report.maximumBytes)")],
                    [Cell("corrupt entries removed"), Cell("\(report.corruptRemoved)")],
                ]
                try OutputWriter(format: output.format).write(report, tabular: Tabular(columns: ["cache", "value"], rows: rows))
            }
        }
    }

    /// `bridget cache clear`.
    struct Clear: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "clear", 
            abstract: "Remove every cached response (the store is not touched).")

        @OptionGroup var global: GlobalOptions

        func run() async throws {
            try await reportingErrors {
                let context = try global.context()
                let cache = try context.assembly.makeDiskCache()
                let removed = await cache.clear()
                print("removed \(removed) cached responses from \(cache.directory)")
            }
        }
    }
}

struct CacheReport: Encodable {
    let path: String
    let entries: Int
    let bytes: Int
    let maximumBytes: Int
    let corruptRemoved: Int
}
