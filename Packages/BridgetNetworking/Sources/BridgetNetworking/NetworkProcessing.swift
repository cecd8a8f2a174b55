import BridgetDTOs
import Foundation

/// One page of raw rows from a provider, in the provider's stable order.
public struct EventPage: Sendable, Equatable {
    /// 0-based position of the page in this fetch.
    public let index: Int
    /// The rows, exactly as the source sent them.
    public let rows: [SocrataRow]
    /// Road traffic observations for the same period, when the source has them.
    public let trafficFlows: [TrafficFlowDTO]
    /// Where the rows came from, for a report of rejected rows (a page's URL).
    public let source: String?

    /// Creates a page.
    public init(index: Int, rows: [SocrataRow], trafficFlows: [TrafficFlowDTO] = [], source: String? = nil) {
        self.index = index
        self.rows = rows
        self.trafficFlows = trafficFlows
        self.source = source
    }
}

/// The boundary to a source of drawbridge openings (synthetic, cached or live).
///
/// An implementation must guarantee: pages come in a stable total order, so that no row is skipped or repeated
/// across the pages of one fetch; rows are Socrata-shaped (`SocrataRow`) and unvalidated, because validation is
/// shared by every provider; and a fetch stops promptly when its consuming task is cancelled.
public protocol NetworkProcessing: Sendable {
    /// The provider's configuration name, e.g. "sample".
    var name: String { get }

    /// The bridges the source covers.
    func fetchBridgeCatalog() async throws -> [BridgeInfoDTO]

    /// Pages of rows whose opening is at or after `watermark` (all rows when `nil`). A provider may include
    /// somewhat earlier rows; the store's idempotent upsert absorbs them.
    func eventPages(since watermark: Date?) -> AsyncThrowingStream<EventPage, any Error>

    /// Whether the source can be reached now.
    func checkConnection() async -> ConnectionStatusDTO

    /// A cheap summary of the whole source (e.g. its row count and latest opening), or `nil` when the source has
    /// no cheap change check. Equal fingerprints mean nothing changed, so a sync after a successful one can skip
    /// paging. (A row edited in place without changing the summary goes unseen; `sync --full` walks everything.)
    func changeFingerprint() async throws -> String?
}

extension NetworkProcessing {
    /// Sources without a cheap change check always page.
    public func changeFingerprint() async throws -> String? { nil }
}
