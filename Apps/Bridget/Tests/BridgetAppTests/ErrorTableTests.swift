import BridgetAnalysis
import BridgetCaching
import BridgetCore
import BridgetNetworking
import BridgetPersistence
import BridgetPostgres
import Foundation
import Testing

/// The one error table: every code of every package error has a row, so each front end knows what it means (exit
/// status, HTTP status, problem type), and a known condition is never a 500.
///
/// The samples below are one error per case of each package error type (and one per class of the cases whose code
/// depends on a value: SQLite result codes, SQLSTATEs, HTTP statuses). Each type's `sampleIndex` is an exhaustive
/// `switch` with no `default:`, so a case added to a package does not compile here until it has a sample, and the
/// test checks that the samples reach every index.
@Suite("the error table")
struct ErrorTableTests {
    static let caches: [CacheError] = [
        .cannotCreateFolder(path: "/c", reason: "denied"), .cannotWrite(folder: "/c", reason: "full"),
    ]

    static func sampleIndex(_ error: CacheError) -> Int {
        switch error {
        case .cannotCreateFolder: 0
        case .cannotWrite: 1
        }
    }

    static let feeds: [FeedError] = [
        .httpStatus(url: "u", status: 404, reason: "Not Found", serverMessage: nil, retryAfter: nil),
        .httpStatus(url: "u", status: 429, reason: "Too Many Requests", serverMessage: nil, retryAfter: 30),
        .httpStatus(url: "u", status: 503, reason: "Service Unavailable", serverMessage: nil, retryAfter: nil),
        .wrongContentType(url: "u", contentType: "text/html", serverMessage: nil), .emptyBody(url: "u"),
        .malformedBody(url: "u", problem: .notJSON(bytes: 3)), .tooLarge(url: "u", limit: 1, declaredLength: 2),
        .timeout(url: "u"), .connection(url: "u", reason: "reset", errorCode: -1005),
        .transport(url: "u", reason: "bad certificate", errorCode: -1202),
        .gaveUp(url: "u", attempts: 3, last: nil), .gaveUp(url: "u", attempts: 3, last: .timeout(url: "u")),
        .notCached(url: "u"), .nothingCached(folder: "/c", dataset: "gm8h-9449"), .pagingRepeated(url: "u"),
        .pagingIncomplete(resource: "r", reached: 1, expected: 2, emptyPage: "p", times: 3),
        .invalidDatasetID("x"), .invalidBaseURL("x"), .noHTTPClient(url: "u"), .feedFileMissing(path: "/f"),
        .feedFileTooLarge(path: "/f", size: 2, limit: 1), .feedFileUnreadable(path: "/f"),
        .notGzip(origin: "o", detail: "d"), .badFeed(origin: "o", detail: "d"),
        .redirectRefused(url: "u", refusal: HTTPRedirectRefused(
            from: URL(string: "https://a.example")!, to: URL(string: "http://169.254.169.254")!,
            reason: .specialPurpose(address: "169.254.169.254", block: "link-local"))),
    ]

    static func sampleIndex(_ error: FeedError) -> Int {
        switch error {
        case .httpStatus: 0
        case .wrongContentType: 1
        case .emptyBody: 2
        case .malformedBody: 3
        case .tooLarge: 4
        case .timeout: 5
        case .connection: 6
        case .transport: 7
        case .gaveUp: 8
        case .notCached: 9
        case .nothingCached: 10
        case .pagingRepeated: 11
        case .pagingIncomplete: 12
        case .invalidDatasetID: 13
        case .invalidBaseURL: 14
        case .noHTTPClient: 15
        case .feedFileMissing: 16
        case .feedFileTooLarge: 17
        case .feedFileUnreadable: 18
        case .notGzip: 19
        case .badFeed: 20
        case .redirectRefused: 21
        }
    }

    /// One SQLite failure of each class (corrupt, unwritable, I/O, busy, other), by extended result code.
    static let sqliteClasses: [Int32] = [26, 8, 13, 5, 1]

    static let stores: [StoreError] = [
        .missing(path: "/s", isEmptyFile: false), .isFolder(path: "/s"), .notRegularFile(path: "/s", kind: "device"),
        .notSQLite(path: "/s"), .foreign(path: "/s", applicationID: 1, userVersion: 0, tables: []),
        .foreignTables(path: "/s", tables: ["t"]), .unverifiableLog(path: "/s"), .unreadable(path: "/s", reason: "r"),
        .cannotCreateFolder(path: "/s", reason: "r"), .newer(path: "/s"), .outdated(path: "/s"),
        .logOnReadOnlyDisk(path: "/s"), .failed(path: "/s", action: "a", reason: "r"), .corruptEvent(detail: "d"),
        .corruptRoute(name: "r"), .corruptModel(bridgeID: "3", slots: 1), .orphan(.event, bridgeID: "9"),
        .noSyncRun(id: 1), .replaced(path: "/s", gone: true), .timedOut(store: "s", action: "a", seconds: 3),
        .invalidInstant(what: "the next attempt's time"), .notLiveFeedHolder(holder: "h:1"),
    ] + sqliteClasses.map { .sqlite(path: "/s", action: "a", resultCode: $0, message: "m") }

    static func sampleIndex(_ error: StoreError) -> Int {
        switch error {
        case .missing: 0
        case .isFolder: 1
        case .notRegularFile: 2
        case .notSQLite: 3
        case .foreign: 4
        case .foreignTables: 5
        case .unverifiableLog: 6
        case .unreadable: 7
        case .cannotCreateFolder: 8
        case .newer: 9
        case .outdated: 10
        case .logOnReadOnlyDisk: 11
        case .failed: 12
        case .corruptEvent: 13
        case .corruptRoute: 14
        case .corruptModel: 15
        case .orphan: 16
        case .noSyncRun: 17
        case .sqlite: 18
        case .replaced: 19
        case .timedOut: 20
        case .invalidInstant: 21
        case .notLiveFeedHolder: 22
        }
    }

    /// One SQLSTATE of each class the store tells apart: unavailable, busy, privileges, any other.
    static let sqlStates = ["57P01", "40001", "42501", "23505"]

    static let postgres: [PostgresStoreError] = [
        .invalidURL(reason: "r"), .invalidSetting(name: "pool size", reason: "r"),
        .unreachable(address: "db:5432", reason: "refused"), .authentication(user: "u", address: "db", message: "m"),
        .noDatabase(database: "d", address: "db"), .foreign(store: "s", tables: ["t"]),
        .newer(store: "s", version: 9, known: 2), .failed(store: "s", action: "a", reason: "r"),
    ] + sqlStates.map { .server(store: "s", action: "a", sqlState: $0, message: "m") }

    static func sampleIndex(_ error: PostgresStoreError) -> Int {
        switch error {
        case .invalidURL: 0
        case .invalidSetting: 1
        case .unreachable: 2
        case .authentication: 3
        case .noDatabase: 4
        case .foreign: 5
        case .newer: 6
        case .failed: 7
        case .server: 8
        }
    }

    static let analyses: [AnalysisError] = [
        .unknownBridge(id: "9"), .bridgeWithoutModel(route: "r", bridgeID: "9"), .emptyCrossing(route: "r", position: 1),
        .emptyTestPeriod(trainUntil: 2, testUntil: 1), .noTrainingData(trainUntil: 1), .unorderedHistory(bridgeID: "3"),
    ]

    static func sampleIndex(_ error: AnalysisError) -> Int {
        switch error {
        case .unknownBridge: 0
        case .bridgeWithoutModel: 1
        case .emptyCrossing: 2
        case .emptyTestPeriod: 3
        case .noTrainingData: 4
        case .unorderedHistory: 5
        }
    }

    /// Every sample, with the code its package gives it.
    static var samples: [(code: String, error: any Error)] {
        var samples: [(code: String, error: any Error)] = []
        samples += caches.map { ($0.code, $0 as any Error) }
        samples += feeds.map { ($0.code, $0 as any Error) }
        samples += stores.map { ($0.code, $0 as any Error) }
        samples += postgres.map { ($0.code, $0 as any Error) }
        samples += analyses.map { ($0.code, $0 as any Error) }
        samples.append((SyncInProgress(holder: "h").code, SyncInProgress(holder: "h")))
        samples.append(("cancelled", CancellationError()))
        return samples
    }

    @Test("the samples reach every case of every package error")
    func samplesCoverEveryCase() {
        #expect(Set(Self.caches.map(Self.sampleIndex)) == Set(0...1))
        #expect(Set(Self.feeds.map(Self.sampleIndex)) == Set(0...21))
        #expect(Set(Self.stores.map(Self.sampleIndex)) == Set(0...22))
        #expect(Set(Self.postgres.map(Self.sampleIndex)) == Set(0...8))
        #expect(Set(Self.analyses.map(Self.sampleIndex)) == Set(0...5))
    }

    @Test("every package error code has a row, and the error is presented by it")
    func everyCodeHasARow() throws {
        for (code, error) in Self.samples {
            let row = ErrorTable.disposition(code: code)
            #expect(row != nil, "no row for \(code)")
            let shown = try #require(ErrorPresentation(error), "\(code) is not presented")
            #expect(shown.code == code && shown.disposition == row, "\(code)")
        }
    }

    @Test("a known condition is never a 500: the store's faults are 503s with Retry-After, a missing bridge a 404")
    func knownConditions() throws {
        for (code, error) in Self.samples where code != "analysis.unordered-history" {
            let row = try #require(ErrorPresentation(error)).disposition
            #expect(row.httpStatus != 500, "\(code) answers 500")
            if row.httpStatus == 503 { #expect(row.retryAfter != nil, "\(code): 503 without Retry-After") }
            if row.httpStatus >= 500 {
                // The server's facts (paths, hosts) stay in its log.
                guard case .generic = row.detail else {
                    Issue.record("\(code): a \(row.httpStatus) echoes the error's message")
                    continue
                }
            }
        }
        let down = try #require(ErrorPresentation(PostgresStoreError.unreachable(address: "db:5432", reason: "refused")))
        #expect(down.disposition.httpStatus == 503 && down.exitCode == 69)
        let busy = try #require(ErrorPresentation(StoreError.sqlite(path: "/s", action: "a", resultCode: 5, message: "m")))
        #expect(busy.code == "store.busy" && busy.disposition.httpStatus == 503 && busy.exitCode == 75)
        let held = try #require(ErrorPresentation(SyncInProgress(holder: "api-2 pid 7")))
        #expect(held.disposition.problemType == "sync-running" && held.exitCode == 75)
        let unknownBridge = try #require(ErrorPresentation(AnalysisError.unknownBridge(id: "9")))
        #expect(unknownBridge.disposition.httpStatus == 404 && unknownBridge.disposition.problemType == "unknown-bridge")
        let noModel = try #require(ErrorPresentation(AnalysisError.bridgeWithoutModel(route: "r", bridgeID: "9")))
        #expect(noModel.disposition.httpStatus == 409 && noModel.disposition.problemType == "no-model")
    }

    @Test("every code has a row and every row a code: the app's codes, the packages' and cancellation")
    func codesAndRowsAgree() {
        let appCodes = Set(ErrorCode.allCases.map(\.rawValue))
        let packageCodes = Set(Self.samples.map(\.0))
        for code in ErrorCode.allCases {
            #expect(ErrorTable.rows[code.rawValue] != nil, "\(code.rawValue) has no row in ErrorTable.rows")
        }
        for code in ErrorTable.rows.keys.sorted() {
            #expect(appCodes.contains(code) || packageCodes.contains(code), "the row \(code) is no error's code")
        }
        // A code is one kind: the app's never shadow a package's.
        #expect(appCodes.isDisjoint(with: packageCodes))
        // Every exit status a row gives is one --help lists, and --help lists none that no row or command gives.
        let listed = Set(ErrorTable.exitStatuses.map(\.status))
        let given = Set(ErrorTable.rows.values.map(\.exitCode) + [ErrorTable.unknown.exitCode])
        #expect(given.isSubset(of: listed), "exit statuses without a line in --help: \(given.subtracting(listed).sorted())")
        #expect(listed.subtracting(given) == [ErrorTable.ok, ErrorTable.checkFailed])
        #expect(ErrorTable.exitStatusLines().joined(separator: " ").hasPrefix("0 ok, 1 doctor found a problem, 64 bad"))
    }

    @Test("the web's own problems and Hummingbird's statuses come from the table")
    func webRows() {
        #expect(ErrorTable.disposition(of: .webBadParameter).httpStatus == 400)
        #expect(ErrorTable.disposition(of: .webUnauthorized).httpStatus == 401)
        #expect(ErrorTable.disposition(of: .webStreamFull).retryAfter == 10)
        #expect(ErrorTable.disposition(httpStatus: 404, reason: "Not Found").problemType == "not-found")
        #expect(ErrorTable.disposition(httpStatus: 405, reason: "Method Not Allowed").problemType == "method-not-allowed")
        #expect(ErrorTable.disposition(httpStatus: 418, reason: "I'm a teapot").problemType == "http-418")
        #expect(ErrorTable.disposition(of: .inputUnknownRoute) == ErrorTable.disposition(code: "input.unknown-route"))
    }

    @Test("the app's own errors keep their exit status; input errors are 400s naming the parameter, unknown names 404s")
    func appErrors() throws {
        let bad = BridgetError(.inputBadTime, "at 'x' is not a time", parameter: "at")
        #expect(ErrorPresentation(bad)?.disposition.httpStatus == 400 && ErrorPresentation(bad)?.exitCode == 64)
        let unknownRoute = BridgetError(.inputUnknownRoute, "no route named 'x'")
        #expect(ErrorPresentation(unknownRoute)?.disposition.httpStatus == 404)
        let empty = BridgetError(.dataStoreEmpty, "no openings")
        #expect(ErrorPresentation(empty)?.disposition.problemType == "no-history" && ErrorPresentation(empty)?.exitCode == 66)
        let config = BridgetError(.configPostgresURL, "not set")
        #expect(ErrorPresentation(config)?.disposition.httpStatus == 503 && ErrorPresentation(config)?.exitCode == 78)
        struct Unknown: Error {}
        #expect(ErrorPresentation(Unknown()) == nil)
        #expect(ErrorTable.unknown.httpStatus == 500)
    }
}
