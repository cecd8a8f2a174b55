import BridgetAnalysis
import BridgetCaching
import BridgetContext
import BridgetCore
import BridgetNetworking
import BridgetPersistence
import Foundation
import Testing

/// The one place that turns errors into what the CLI prints and its exit status: the packages' errors carry facts,
/// and the hints naming the CLI's keys, commands and documents are added here.
@Suite("error presentation")
struct ErrorPresentationTests {
    @Test("the CLI's own errors carry their category, code, exit status and hint")
    func bridgetError() throws {
        let error = BridgetError(.configInvalid, "bridget.yaml:3: unknown key", hint: "fix it")
        #expect(error.exitCode == 78)
        #expect(error.code == "config.invalid" && error.category == .configuration)
        #expect(error.description == "bridget.yaml:3: unknown key\nhint: fix it")
        #expect(BridgetError(.dataRoutesRead, "cannot read").exitCode == 74)
        #expect(BridgetError(.dataRoutesFile, "not a route").exitCode == 65)
        #expect(BridgetError(.dataRoutesWrite, "cannot write").exitCode == 73)
        #expect(BridgetError(.alertUndelivered, "refused").exitCode == 69)
        let shown = try #require(ErrorPresentation(error))
        #expect(shown.code == "config.invalid" && shown.message == "bridget.yaml:3: unknown key"
                    && shown.hint == "fix it" && shown.exitCode == 78)
        #expect(shown.description == error.description)
    }

    @Test("cancellation ends with 130; an error Bridget does not know is not presented")
    func cancellationAndUnknown() throws {
        let cancelled = try #require(ErrorPresentation(CancellationError()))
        #expect(cancelled.exitCode == 130)
        #expect(cancelled.message.hasPrefix("cancelled; every batch committed before the interruption is kept"))
        #expect(ErrorPresentation(CocoaError(.fileNoSuchFile)) == nil)
        #expect(ErrorPresentation.recorded(CancellationError()) == "CancellationError()")
    }

    /// Each package error with its exit status, and the words its hint must hold (`nil`: no hint).
    static let cases: [(any Error & Sendable, Int32, String?)] = [
        (CacheError.cannotCreateFolder(path: "/x", reason: "denied"), 74, "set cache.path to a writable folder"),
        (CacheError.cannotWrite(folder: "/x", reason: "full"), 74, "free disk space or set cache.path"),
        (FeedError.httpStatus(url: "u", status: 403, reason: "forbidden", serverMessage: nil, retryAfter: nil), 69,
         "see Docs/LIVE.md"),
        (FeedError.httpStatus(url: "u", status: 404, reason: "not found", serverMessage: nil, retryAfter: nil), 69,
         "check provider.live.dataset and provider.live.base_url"),
        (FeedError.httpStatus(url: "u", status: 503, reason: "unavailable", serverMessage: nil, retryAfter: 5), 69, nil),
        (FeedError.wrongContentType(url: "u", contentType: "text/html", serverMessage: nil), 69, "provider.live.base_url"),
        (FeedError.tooLarge(url: "u", limit: 10, declaredLength: nil), 69, "provider.live.max_page_bytes"),
        (FeedError.gaveUp(url: "u", attempts: 3, last: .timeout(url: "u")), 69, "set an app token (Docs/LIVE.md)"),
        (FeedError.notCached(url: "u"), 69, "cache.policy"),
        (FeedError.nothingCached(folder: "/c", dataset: "gm8h-9449"), 69, "provider.kind: live"),
        (FeedError.pagingRepeated(url: "u"), 69, "check provider.live.base_url"),
        (FeedError.invalidDatasetID("x"), 78, nil),
        (FeedError.feedFileMissing(path: "/f"), 66, nil),
        (FeedError.notGzip(origin: "/f", detail: "bad header"), 65, nil),
        (StoreError.missing(path: "/s", isEmptyFile: false), 66, "run `bridget sync` or `bridget import`"),
        (StoreError.isFolder(path: "/s"), 78, "to a file, e.g. /s/bridget.sqlite"),
        (StoreError.notRegularFile(path: "/dev/null", kind: "character device"), 78, "BRIDGET_STORE_PATH"),
        (StoreError.notSQLite(path: "/s"), 74, "point store.path (or BRIDGET_STORE_PATH) at a Bridget store"),
        (StoreError.foreign(path: "/s", applicationID: 7, userVersion: 0, tables: []), 78, "store.path"),
        (StoreError.foreignTables(path: "/s", tables: ["notes"]), 78, "PRAGMA application_id = 1112687687"),
        (StoreError.cannotCreateFolder(path: "/s", reason: "denied"), 74, "set BRIDGET_STORE_PATH"),
        (StoreError.newer(path: "/s"), 78, "upgrade bridget"),
        (StoreError.sqlite(path: "/s", action: "write events", resultCode: 5, message: "database is locked"), 75,
         "wait for the other bridget command"),
        (StoreError.sqlite(path: "/s", action: "open", resultCode: 14, message: "unable to open"), 74,
         "choose another store.path"),
        (StoreError.sqlite(path: "/s", action: "write events", resultCode: 13, message: "full"), 74, "free disk space"),
        (StoreError.sqlite(path: "/s", action: "read", resultCode: 11, message: "malformed"), 74, "move the file aside"),
        (StoreError.corruptModel(bridgeID: "3", slots: 5), 74, "run `bridget model rebuild`"),
        (StoreError.noSyncRun(id: 9), 65, nil),
        (AnalysisError.unknownBridge(id: "9"), 64, nil),
        (AnalysisError.bridgeWithoutModel(route: "r", bridgeID: "3"), 64, "run `bridget sync`, or edit the route"),
        (AnalysisError.noTrainingData(trainUntil: 5), 64, "choose a later --train-until"),
        (AnalysisError.unorderedHistory(bridgeID: "3"), 74, "the store broke its contract"),
    ]

    @Test("each package error gets its exit status and the hint naming the CLI's keys and commands")
    func packageErrors() throws {
        for (error, exitCode, hint) in Self.cases {
            let shown = try #require(ErrorPresentation(error), "\(error)")
            #expect(shown.exitCode == exitCode, "\(error)")
            #expect(shown.message == "\(error)", "\(error)")
            if let hint {
                #expect(shown.hint?.contains(hint) == true, "\(error): \(shown.hint ?? "no hint")")
                #expect(shown.description == "\(error)\nhint: \(shown.hint ?? "")")
            } else {
                #expect(shown.hint == nil, "\(error): \(shown.hint ?? "")")
            }
        }
    }

    @Test("a gave-up error carries its last failure's code; the feed file limit names its setting")
    func detailsTheCLIAdds() throws {
        let gaveUp = FeedError.gaveUp(url: "u", attempts: 3, last: .httpStatus(
            url: "u", status: 429, reason: "too many requests", serverMessage: nil, retryAfter: nil))
        #expect(ErrorPresentation(gaveUp)?.code == "network.http-429")
        #expect(ErrorPresentation(FeedError.gaveUp(url: "u", attempts: 3, last: nil))?.code == "network.gave-up")
        let tooLarge = try #require(ErrorPresentation(FeedError.feedFileTooLarge(path: "/f", size: 20, limit: 10)))
        #expect(tooLarge.message == "the NDW feed file /f has 20 bytes, over the limit of 10 (provider.ndw.max_bytes)")
        #expect(tooLarge.exitCode == 65)
        let recorded = ErrorPresentation.recorded(StoreError.corruptModel(bridgeID: "3", slots: 5))
        #expect(recorded == "the opening model of bridge 3 has 5 slots\nhint: run `bridget model rebuild`")
    }

    @Test("a host that does not resolve is said to be one, with what to check, never blamed on throttling")
    func unresolvedHost() throws {
        let url = "https://data.example.invalid/resource/gm8h-9449.json?$limit=5000"
        let failure = FeedError.transport(url: url, reason: "Could not resolve host: data.example.invalid",
                                          errorCode: -1003)
        for error in [failure, FeedError.gaveUp(url: url, attempts: 2, last: failure),
                      FeedError.transport(url: url, reason: "DNS lookup failed", errorCode: -1006)] {
            let shown = try #require(ErrorPresentation(error))
            #expect(shown.message.hasPrefix("could not resolve the host data.example.invalid: no address was found"),
                    "\(shown.message)")
            #expect(shown.message.contains(url) && shown.exitCode == 69 && shown.code == "network.transport")
            #expect(shown.hint?.hasPrefix("check this machine's network connection and DNS") == true, "\(shown)")
            #expect(shown.hint?.contains("provider.live.base_url") == true && shown.hint?.contains("app token") == false)
        }
        // Another transport failure keeps its own words.
        let refused = FeedError.transport(url: url, reason: "bad certificate", errorCode: -1202)
        #expect(ErrorPresentation(refused)?.message == "\(refused)" && ErrorPresentation(refused)?.hint == nil)
    }

    @Test("a PostgreSQL URL is shown without its password, even one a URL parser would take for a port",
          arguments: [
              ("postgres://bridget:hunter2@db:5432/b", "postgres://bridget:***@db:5432/b"),
              ("postgres://bridget:1234/x@db/b", "postgres://bridget:***@db/b"),
              ("postgres://bridget@db:5432/b", "postgres://bridget@db:5432/b"),
              ("postgres://db:5432/b", "postgres://db:5432/b"),
              ("bridget:secret@db", "bridget:***@db"),
          ])
    func urlWithoutPassword(_ url: String, _ shown: String) {
        #expect(BridgetAssembly.withoutPassword(url) == shown)
    }
}
