import BridgetCaching
import BridgetDTOs
import Foundation

/// The `live` provider: the Socrata SODA 2 API (by default Seattle's `gm8h-9449` on data.seattle.gov).
///
/// Pages are ordered by `opendatetime` then the hidden `:id` and walked with `$limit`/`$offset` until an empty
/// page, so no row is skipped or repeated within a walk. A short page does not end the walk (a server or proxy may
/// cap `$limit`, or cut one page short once); and the walk is checked against the server's count of the rows it
/// covers, so a walk that ended early goes on, or fails, and never passes for complete. The catalog is the embedded
/// one: the dataset has no catalog endpoint, and its coordinates are the dataset's own.
public struct LiveProvider: SocrataDatasetProvider {
    public let name = "live"
    public let client: FeedClient
    public let dataset: SocrataDataset

    /// Creates a provider; `pageSize` is the rows a page asks for (`$limit`).
    public init(client: FeedClient, query: SocrataQuery, pageSize: Int, catalog: BridgeCatalog = .seattle) {
        self.client = client
        dataset = SocrataDataset(query: query, pageSize: pageSize, catalog: catalog)
    }

    public func eventPages(since watermark: Date?) -> AsyncThrowingStream<EventPage, any Error> {
        let since = watermark.map { clock.reading(for: $0) }
        let cursor = LivePageCursor(client: client, query: query, since: since, pageSize: pageSize)
        return AsyncThrowingStream(unfolding: { try await cursor.nextPage() })
    }

    public func changeFingerprint() async throws -> String? {
        let body = try await client.get(query.changeCheckURL, freshness: .current)
        guard let rows = try? JSONSerialization.jsonObject(with: body) as? [[String: Any]], let row = rows.first else {
            throw FeedError.malformedBody(url: query.resourcePrefix, problem: .notChangeCheck)
        }
        let count = row["n"].map { "\($0)" } ?? "0"
        let latest = row["latest"].map { "\($0)" } ?? "-"
        return "n=\(count);latest=\(latest)"
    }

    public func checkConnection() async -> ConnectionStatusDTO {
        let url = query.changeCheckURL
        do {
            let response = try await client.probe(url)
            guard response.status == 200 else {
                let error = FeedClient.statusError(response, url: url.absoluteString)
                return ConnectionStatusDTO(isReachable: false, detail: error.description)
            }
            return ConnectionStatusDTO(isReachable: true, detail: "\(query.resourcePrefix) answered 200")
        } catch {
            return ConnectionStatusDTO(isReachable: false, detail: "\(query.resourcePrefix): \(error)")
        }
    }
}

/// Walks one fetch's pages, asking for each next page, and reading its rows, while the one before is consumed.
private actor LivePageCursor {
    /// A page's body and its rows read as observations, off the consumer's path.
    private struct Fetched: Sendable {
        let url: URL
        let body: Data
        let observations: [OpeningObservation]
    }

    /// Times a walk that met an empty page before the server's count goes on from where it stopped.
    static let resumptions = 3

    private let client: FeedClient
    private let query: SocrataQuery
    private let since: FloatingTimestamp?
    private let pageSize: Int
    private var offset = 0
    private var index = 0
    private var resumed = 0
    /// The page after a resumption is asked for unconditionally: the empty answer may be in the cache with the
    /// page's ETag, and a conditional request would get it back as a 304.
    private var reloadNext = false
    private var finished = false
    private var previousPage: Data?
    /// The next page, already asked for and read while the consumer validates and stores this one.
    private var prefetch: Task<Fetched, any Error>?

    init(client: FeedClient, query: SocrataQuery, since: FloatingTimestamp?, pageSize: Int) {
        self.client = client
        self.query = query
        self.since = since
        self.pageSize = pageSize
    }

    deinit { prefetch?.cancel() } // the consumer stopped early: the page asked for ahead is not wanted

    func nextPage() async throws -> EventPage? {
        while !finished {
            let page: Fetched
            if let pending = prefetch {
                prefetch = nil
                page = try await withTaskCancellationHandler { try await pending.value } onCancel: { pending.cancel() }
            } else {
                page = try await Self.fetch(query.pageURL(since: since, limit: pageSize, offset: offset), client,
                                            freshness: reloadNext ? .reloaded : .policy)
                reloadNext = false
            }
            // A page identical to the one before means the server ignores $offset: paging would never end.
            guard page.observations.isEmpty || page.body != previousPage else {
                throw FeedError.pagingRepeated(url: page.url.absoluteString)
            }
            previousPage = page.body
            guard !page.observations.isEmpty else {
                try await endOfPages(at: page.url)
                continue
            }
            offset += page.observations.count
            // Ask for the next page now, so the server's work, the network and reading the rows overlap the
            // consumer's. One page ahead is enough to hide the wait (two ahead measured no faster), and bounds
            // memory at two pages.
            let (client, next) = (client, query.pageURL(since: since, limit: pageSize, offset: offset))
            prefetch = Task { try await Self.fetch(next, client) }
            defer { index += 1 }
            return EventPage(index: index, observations: page.observations, origin: page.url.absoluteString)
        }
        return nil
    }

    /// An empty page: the walk is complete when it reached every row the server counts in its range (rows are only
    /// ever added, so a whole walk reaches at least the count). Otherwise the walk goes on from where it stopped, a
    /// few times, and then fails rather than pass for complete.
    private func endOfPages(at url: URL) async throws {
        let expected = try await Self.count(query.countURL(since: since), client)
        if offset >= expected {
            finished = true
            return
        }
        guard resumed < Self.resumptions else {
            throw FeedError.pagingIncomplete(resource: query.resourcePrefix, reached: offset, expected: expected,
                                             emptyPage: url.absoluteString, times: resumed + 1)
        }
        resumed += 1
        previousPage = nil
        reloadNext = true
    }

    /// A page and its rows; a body that is not an array of rows is a malformed page.
    private static func fetch(_ url: URL, _ client: FeedClient, freshness: FeedClient.Freshness = .policy)
        async throws -> Fetched
    {
        let body = try await client.get(url, freshness: freshness)
        do {
            var reader = SocrataObservationReader()
            return Fetched(url: url, body: body, observations: reader.observations(try SocrataJSONScanner.decodeArray(body)))
        } catch {
            throw FeedError.malformedBody(url: url.absoluteString, problem: .notRows(detail: "\(error)"))
        }
    }

    /// The server's count of rows (`[{"n":"…"}]`), asked of the server itself, never a stale copy.
    private static func count(_ url: URL, _ client: FeedClient) async throws -> Int {
        let body = try await client.get(url, freshness: .current)
        guard let rows = try? JSONSerialization.jsonObject(with: body) as? [[String: Any]],
              let text = rows.first?["n"].map({ "\($0)" }), let count = Int(text)
        else {
            throw FeedError.malformedBody(url: url.absoluteString, problem: .notRowCount)
        }
        return count
    }
}
