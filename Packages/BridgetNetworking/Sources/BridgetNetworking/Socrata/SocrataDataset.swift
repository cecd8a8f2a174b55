import BridgetDTOs

/// What the two Socrata providers (`live` and `cached`) serve: a dataset's rows in pages of a size, the embedded
/// catalog of its bridges, and Seattle's clock.
public struct SocrataDataset: Sendable {
    public let query: SocrataQuery
    /// Rows per page (`$limit`), at least 1.
    public let pageSize: Int
    public let catalog: BridgeCatalog

    /// Creates a dataset description; a page size below 1 is 1.
    public init(query: SocrataQuery, pageSize: Int, catalog: BridgeCatalog = .seattle) {
        self.query = query
        self.pageSize = max(pageSize, 1)
        self.catalog = catalog
    }
}

/// A provider over a `SocrataDataset`: its query, page size, catalog and clock come from the dataset.
public protocol SocrataDatasetProvider: NetworkProcessing {
    var dataset: SocrataDataset { get }
}

extension SocrataDatasetProvider {
    public var query: SocrataQuery { dataset.query }
    public var pageSize: Int { dataset.pageSize }
    public var catalog: BridgeCatalog { dataset.catalog }
    /// The dataset's readings are Seattle wall-clock times.
    public var clock: LocalClock { .seattle }

    /// The dataset has no catalog endpoint: the catalog is the embedded one, with the dataset's own coordinates.
    public func fetchBridgeCatalog() async throws -> [BridgeInfoDTO] { catalog.bridges }
}
