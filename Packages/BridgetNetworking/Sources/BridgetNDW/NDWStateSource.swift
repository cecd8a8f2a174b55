import BridgetDTOs
import BridgetNetworking
import Foundation

/// NDW's DATEX II feed as a state source: a bridge is raised while a `certain` situation (an opening under way) holds
/// the moment of the reading, lowered otherwise. One download a reading.
public struct NDWStateSource: BridgeStateSource {
    public let source: NDWProvider.Source
    private let client: FeedClient?
    private let maximumBytes: Int
    private let now: @Sendable () -> Date

    public var origin: String {
        switch source {
        case .url(let url): url.absoluteString
        case .file(let path): path
        }
    }

    /// A source reading `source` through `client` (a file needs none).
    public init(source: NDWProvider.Source, client: FeedClient?, maximumBytes: Int = 64_000_000,
                now: @escaping @Sendable () -> Date = Date.init) {
        self.source = source
        self.client = client
        self.maximumBytes = maximumBytes
        self.now = now
    }

    public func currentStates() async throws -> BridgeStateReading {
        let snapshot: NDWFeedReader.Snapshot
        do {
            snapshot = try await NDWFeedReader(source: source, client: client, maximumBytes: maximumBytes).snapshot()
        } catch let error as FeedError {
            throw BridgeStateError(.unreachable("\(error)"))
        }
        let moment = now()
        var positions = Dictionary(uniqueKeysWithValues: snapshot.catalog.map { ($0.id, LiveFeedState.Position.lowered) })
        for observation in snapshot.observations where observation.status == .observed {
            guard let bridgeID = observation.bridgeID, case .instant(let start)? = observation.opened.value,
                  start <= moment
            else { continue }
            if case .instant(let end)? = observation.closed.value, end <= moment { continue }
            positions[bridgeID] = .raised
        }
        return BridgeStateReading(positions: positions)
    }
}
