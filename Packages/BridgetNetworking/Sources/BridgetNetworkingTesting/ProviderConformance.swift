import BridgetDTOs
import BridgetNetworking
import Foundation
import Testing

/// The provider boundary's conformance suite: what `NetworkProcessing` promises, checked with Swift Testing's
/// `#expect` against a provider you make, so a provider outside this package is held to what Bridget's own are.
///
/// Call it from your own `@Test`, one test case a promise or all in one:
///
/// ```swift
/// @Test(arguments: ProviderConformance.Promise.allCases)
/// func myProviderConforms(_ promise: ProviderConformance.Promise) async throws {
///     try await promise.check { MyProvider(...) }
/// }
/// ```
///
/// `makeProvider` is called once a check and must return a reachable provider whose data fill at least two pages (a
/// source that is one snapshot a read, such as NDW's feed, passes `minimumPages: 1`); a check may walk it more than
/// once. A broken promise is recorded as a failed expectation (or a thrown error) in the calling test.
public enum ProviderConformance {
    /// A promise of `NetworkProcessing` and its check.
    public enum Promise: String, CaseIterable, Sendable, CustomStringConvertible {
        /// Pages are numbered 0, 1, 2, …; two walks of the same data give the same records in the same order, none on
        /// two pages; every observation carries its record as received.
        case stableOrder
        /// The catalog is non-empty, its ids unique, and the records name its bridges.
        case catalog
        /// A walk from a watermark gives every record of a full walk that opened at or after it.
        case watermark
        /// A consumer cancelled mid-walk finishes promptly.
        case cancellation
        /// `checkConnection()` answers, reachable, with a detail.
        case connection

        /// What the promise says, for a test case's name.
        public var description: String {
            switch self {
            case .stableOrder: "pages in a stable total order, numbered from 0, no record twice, each with its source"
            case .catalog: "a non-empty catalog that the records refer to"
            case .watermark: "a walk from a watermark misses nothing at or after it"
            case .cancellation: "a cancelled consumer finishes promptly"
            case .connection: "checkConnection answers"
            }
        }

        /// Checks this promise against providers from `makeProvider`; `minimumPages` is how many pages a walk of its
        /// data must give (2 for a paged source, so that paging itself is checked; 1 for a snapshot source).
        public func check(minimumPages: Int = 2, makeProvider: () async throws -> any NetworkProcessing) async throws {
            switch self {
            case .stableOrder: try await checkStableOrder(minimumPages: minimumPages, makeProvider: makeProvider)
            case .catalog: try await checkCatalog(makeProvider: makeProvider)
            case .watermark: try await checkWatermark(makeProvider: makeProvider)
            case .cancellation: try await checkCancellation(makeProvider: makeProvider)
            case .connection: try await checkConnection(makeProvider: makeProvider)
            }
        }
    }

    /// Checks every promise, one after another.
    public static func checkAll(minimumPages: Int = 2, makeProvider: () async throws -> any NetworkProcessing)
        async throws
    {
        for promise in Promise.allCases { try await promise.check(minimumPages: minimumPages, makeProvider: makeProvider) }
    }

    /// Checks the order of a walk: pages numbered 0, 1, 2, … with at least `minimumPages` of them; each observation with a
    /// non-empty record as received; no record on two pages (a source that holds one record twice must keep both on
    /// one page, as `SampleProvider` keeps a day); and a second walk of the same provider gives the same records in
    /// the same order, so none is skipped by one walk and not the other.
    public static func checkStableOrder(minimumPages: Int = 2,
                                        makeProvider: () async throws -> any NetworkProcessing) async throws {
        let provider = try await makeProvider()
        let first = try await walk(provider, since: nil)
        #expect(first.map(\.index) == Array(0..<first.count), "page indices must be 0, 1, 2, … in order")
        #expect(first.count >= max(minimumPages, 1),
                "the suite needs data of at least \(max(minimumPages, 1)) pages; got \(first.count)")
        let empty = first.flatMap(\.observations).filter { $0.source.fields.isEmpty }.count
        #expect(empty == 0, "\(empty) observations have no record as received (`source`)")

        var pageOf: [SourceRecord: Int] = [:]
        var onTwoPages = 0
        for page in first {
            for observation in page.observations {
                if let earlier = pageOf.updateValue(page.index, forKey: observation.source), earlier != page.index {
                    onTwoPages += 1
                }
            }
        }
        #expect(onTwoPages == 0, "\(onTwoPages) records came on more than one page of one walk")

        let second = try await walk(provider, since: nil) // a provider can be walked again
        let firstRecords = first.flatMap { $0.observations.map(\.source) }
        let secondRecords = second.flatMap { $0.observations.map(\.source) }
        #expect(firstRecords.count == secondRecords.count,
                "two walks of the same data gave \(firstRecords.count) and \(secondRecords.count) records")
        let firstDifference = zip(firstRecords, secondRecords).enumerated().first { $0.element.0 != $0.element.1 }?.offset
        #expect(firstDifference == nil, "two walks of the same data differ from record \(firstDifference ?? 0) on")
    }

    /// Checks the catalog: non-empty, ids unique, and at least `minimumKnownShare` of the observations name one of
    /// its bridges. (A source's bad records may name unknown bridges, counted as rejections by validation; a catalog
    /// that lacks the bridges the records name would reject them all.)
    public static func checkCatalog(minimumKnownShare: Double = 0.9,
                                    makeProvider: () async throws -> any NetworkProcessing) async throws {
        let provider = try await makeProvider()
        let catalog = try await provider.fetchBridgeCatalog()
        #expect(!catalog.isEmpty, "fetchBridgeCatalog() returned no bridges")
        let ids = Set(catalog.map(\.id))
        #expect(ids.count == catalog.count, "the catalog names a bridge id twice")
        let observations = try await walk(provider, since: nil).flatMap(\.observations)
        let known = observations.filter { $0.bridgeID.map(ids.contains) ?? false }.count
        let share = observations.isEmpty ? 0 : Double(known) / Double(observations.count)
        #expect(share >= minimumKnownShare,
                "only \(known) of \(observations.count) observations name a bridge of the catalog \(ids.sorted())")
    }

    /// Checks `eventPages(since:)`: from a watermark in the middle of the data (the opening of the middle record), a
    /// walk gives every record of a full walk that opened at or after it, as many times (earlier records may come too).
    public static func checkWatermark(makeProvider: () async throws -> any NetworkProcessing) async throws {
        let provider = try await makeProvider()
        let clock = provider.clock
        let full = try await walk(provider, since: nil).flatMap(\.observations)
        let openings = full.compactMap { opening($0, clock: clock) }.sorted()
        let watermark = try #require(openings.isEmpty ? nil : openings[openings.count / 2],
                                     "no observation of a full walk has a readable opening")
        var expected: [SourceRecord: Int] = [:]
        for observation in full where (opening(observation, clock: clock) ?? .distantPast) >= watermark {
            expected[observation.source, default: 0] += 1
        }
        var got: [SourceRecord: Int] = [:]
        for observation in try await walk(provider, since: watermark).flatMap(\.observations) {
            got[observation.source, default: 0] += 1
        }
        let missing = expected.reduce(0) { $0 + max($1.value - (got[$1.key] ?? 0), 0) }
        #expect(missing == 0, """
            a walk since \(watermark) missed \(missing) of the \(expected.values.reduce(0, +)) records a full walk has \
            at or after it
            """)
    }

    /// Checks cancellation: a consumer cancelled after its first page finishes within `seconds`.
    public static func checkCancellation(within seconds: Double = 5,
                                         makeProvider: () async throws -> any NetworkProcessing) async throws {
        let provider = try await makeProvider()
        let (firstPage, signal) = AsyncStream.makeStream(of: Void.self)
        let finished = Flag()
        let consumer = Task {
            defer {
                finished.set()
                signal.finish() // a walk of no pages must not leave the wait below hanging
            }
            for try await _ in provider.eventPages(since: nil) {
                signal.yield()
                try await Task.sleep(for: .milliseconds(1)) // a consumer at work; cancellation lands somewhere here
            }
        }
        for await _ in firstPage { break }
        consumer.cancel()
        let deadline = ContinuousClock.now + .seconds(seconds)
        while !finished.isSet && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(finished.isSet, "a consumer cancelled after its first page was still running after \(seconds) s")
    }

    /// Checks `checkConnection()`: it answers that the source is reachable, with a detail to show.
    public static func checkConnection(makeProvider: () async throws -> any NetworkProcessing) async throws {
        let status = try await makeProvider().checkConnection()
        #expect(status.isReachable, "checkConnection() says unreachable: \(status.detail)")
        #expect(!status.detail.isEmpty, "checkConnection() gave no detail")
    }

    /// Every page of one walk.
    static func walk(_ provider: any NetworkProcessing, since watermark: Date?) async throws -> [EventPage] {
        var pages: [EventPage] = []
        for try await page in provider.eventPages(since: watermark) { pages.append(page) }
        return pages
    }

    /// When an observation opened, read with the source's clock.
    static func opening(_ observation: OpeningObservation, clock: LocalClock) -> Date? {
        switch observation.opened {
        case .value(.instant(let instant)): instant
        case .value(.local(let reading)): clock.openingInstant(for: reading)
        case .absent, .unreadable: nil
        }
    }
}
