import BridgetCaching
import BridgetDTOs
import Foundation

/// The `cached` provider: serves the row pages earlier live syncs left in the disk cache, with no network at all.
///
/// Rows of every cached page of the dataset are merged, exact repeats dropped, ordered by `opendatetime`, filtered
/// from the watermark on, and handed out in pages; the store's upsert absorbs overlaps.
public struct CachedProvider: SocrataDatasetProvider {
    public let name = "cached"
    public let cache: DiskCache
    public let dataset: SocrataDataset

    /// Creates a provider over a cache filled by the live provider with the same base URL and dataset.
    public init(cache: DiskCache, query: SocrataQuery, pageSize: Int, catalog: BridgeCatalog = .seattle) {
        self.cache = cache
        dataset = SocrataDataset(query: query, pageSize: pageSize, catalog: catalog)
    }

    public func eventPages(since watermark: Date?) -> AsyncThrowingStream<EventPage, any Error> {
        let since = watermark.map { clock.reading(for: $0).description }
        let (cache, query, pageSize) = (self.cache, self.query, self.pageSize)
        let cursor = CachedPageCursor()
        return AsyncThrowingStream(unfolding: {
            if await !cursor.isLoaded {
                let rows = try await Self.cachedRows(cache: cache, query: query)
                await cursor.load(rows.filter { row in since.map { (row.opendatetime ?? "") >= $0 } ?? true }, pageSize: pageSize)
            }
            return await cursor.next()
        })
    }

    public func checkConnection() async -> ConnectionStatusDTO {
        let pages = await Self.pageKeys(cache: cache, query: query).count
        return ConnectionStatusDTO(
            isReachable: pages > 0,
            detail: pages > 0 ? "\(pages) cached pages of \(query.dataset) in \(cache.directory); no network is used"
                : "no cached pages of \(query.dataset) in \(cache.directory)")
    }

    /// Keys of the cached row pages of the dataset, newest fetch first.
    static func pageKeys(cache: DiskCache, query: SocrataQuery) async -> [String] {
        await cache.allMetadata()
            .filter { $0.key.hasPrefix(query.resourcePrefix + "?") && $0.key.contains("$order=") }
            .sorted { ($0.fetchedAt, $0.key) > ($1.fetchedAt, $1.key) }
            .map(\.key)
    }

    static func cachedRows(cache: DiskCache, query: SocrataQuery) async throws -> [SocrataRow] {
        let keys = await pageKeys(cache: cache, query: query)
        guard !keys.isEmpty else {
            throw FeedError.nothingCached(folder: cache.directory, dataset: query.dataset)
        }
        // A row fetched again later (say, once its closing time was known) is served in its newest version: pages
        // are read newest first, and a natural key (entityid, opendatetime) seen in a newer page is skipped. Rows
        // sharing a key within one page all stay: the validator tells them apart or counts the duplicate.
        var newestPage: [String: Int] = [:]
        var rows: [SocrataRow] = []
        for (pageIndex, key) in keys.enumerated() {
            guard let response = await cache.response(forKey: key),
                  let page = try? SocrataJSONScanner.decodeArray(response.body)
            else { continue } // a corrupt entry was discarded by the cache; the rest still serve
            for row in page {
                let naturalKey = (row.entityid ?? "") + "|" + (row.opendatetime ?? "")
                if let seenIn = newestPage[naturalKey], seenIn != pageIndex { continue }
                newestPage[naturalKey] = pageIndex
                rows.append(row)
            }
        }
        return rows.sorted { ($0.opendatetime ?? "", $0.entityid ?? "") < ($1.opendatetime ?? "", $1.entityid ?? "") }
    }
}

/// Hands out loaded rows page by page.
private actor CachedPageCursor {
    private var pages: [[SocrataRow]] = []
    private var index = 0
    private var reader = SocrataObservationReader()
    private(set) var isLoaded = false

    func load(_ rows: [SocrataRow], pageSize: Int) {
        pages = stride(from: 0, to: rows.count, by: pageSize).map { Array(rows[$0..<min($0 + pageSize, rows.count)]) }
        isLoaded = true
    }

    func next() -> EventPage? {
        guard index < pages.count else { return nil }
        defer { index += 1 }
        return EventPage(index: index, observations: reader.observations(pages[index]), origin: "cached page \(index)")
    }
}
