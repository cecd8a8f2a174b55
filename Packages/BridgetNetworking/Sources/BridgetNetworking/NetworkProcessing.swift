import BridgetDTOs
import Foundation

/// One page of a provider's records, in the provider's stable order, read into source-neutral observations.
public struct EventPage: Sendable, Equatable {
    /// 0-based position of the page in this fetch.
    public let index: Int
    /// The page's records as observations, unvalidated, each with its record as received (`source`).
    public let observations: [OpeningObservation]
    /// Road traffic observations for the same period, when the source has them.
    public let trafficFlows: [TrafficFlowDTO]
    /// Where the records came from, for a report of rejected records (a page's URL).
    public let origin: String?

    /// Creates a page.
    public init(index: Int, observations: [OpeningObservation], trafficFlows: [TrafficFlowDTO] = [],
                origin: String? = nil) {
        self.index = index
        self.observations = observations
        self.trafficFlows = trafficFlows
        self.origin = origin
    }
}

/// The boundary to a source of drawbridge openings (synthetic, cached or live).
///
/// An implementation must guarantee: pages come in a stable total order, so that no record is skipped or repeated
/// across the pages of one fetch; records are read into source-neutral `OpeningObservation`s and left unvalidated,
/// because validation is shared by every provider (it judges them against `fetchBridgeCatalog()`, reading local
/// times with `clock`); and a fetch stops promptly when its consuming task is cancelled.
public protocol NetworkProcessing: Sendable {
    /// The provider's configuration name, e.g. "sample".
    var name: String { get }

    /// The bridges the source covers.
    func fetchBridgeCatalog() async throws -> [BridgeInfoDTO]

    /// The source's clock: the time zone its local readings are in (Seattle's for the Socrata dataset).
    var clock: LocalClock { get }

    /// Pages of rows whose opening is at or after `watermark` (all rows when `nil`). A provider may include
    /// somewhat earlier rows; the store's idempotent upsert absorbs them.
    func eventPages(since watermark: Date?) -> AsyncThrowingStream<EventPage, any Error>

    /// Whether the source can be reached now.
    func checkConnection() async -> ConnectionStatusDTO

    /// A cheap summary of the whole source (e.g. its row count and latest opening), or `nil` when the source has
    /// no cheap change check. Equal fingerprints mean nothing changed, so a sync after a successful one can skip
    /// paging. (A row edited in place without changing the summary goes unseen; `sync --full` walks everything.)
    func changeFingerprint() async throws -> String?

    /// Whether a whole fetch lists every announced (planned) opening the source has now, as a snapshot does: an
    /// announcement stored from an earlier fetch and missing from a whole one was withdrawn. `false` for a source
    /// whose fetches are partial (from a watermark) or that announces nothing.
    var listsEveryAnnouncement: Bool { get }
}

extension NetworkProcessing {
    /// Sources without a cheap change check always page.
    public func changeFingerprint() async throws -> String? { nil }

    /// Most sources page a history: a fetch is not a list of every announcement.
    public var listsEveryAnnouncement: Bool { false }
}
