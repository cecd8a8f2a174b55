import BridgetDTOs
import BridgetNetworking
import Foundation

/// The `ndw` provider: the Dutch national road data office's bridge openings (DATEX II, `brugopeningen.xml.gz`),
/// from its URL through the polite HTTP client (retries, conditional GET, the cache) or from a file.
///
/// The feed is a snapshot of announced (`riskOf`) and under-way (`certain`) openings, rewritten every minute: not a
/// history. History comes from reading it again and again (a scheduled refresh); each record has an id and a version,
/// so a record seen again replaces its earlier version in the store, and an announced opening that later shows as
/// under way becomes one observed opening. Times are instants; the clock is Europe/Amsterdam's, for local readings
/// kept beside them. Bridges come from the feed itself (`NDWBridge.catalog`), named from their position.
public struct NDWProvider: NetworkProcessing {
    /// Where the feed is read from.
    public enum Source: Sendable, Equatable {
        /// An http(s) URL, fetched through a `FeedClient` (with `body: .any`).
        case url(URL)
        /// A file (`.xml` or `.xml.gz`).
        case file(String)
    }

    public let name = "ndw"
    /// Europe/Amsterdam.
    public let clock: LocalClock
    /// Where the feed comes from.
    public let source: Source
    private let feed: NDWFeedReader

    /// The public feed (a well-formed URL literal, so `URL(string:)` cannot fail).
    public static let defaultURL = URL(string: "https://opendata.ndw.nu/brugopeningen.xml.gz")!

    /// A provider over `source`; `client` fetches a URL source; a feed larger than `maximumBytes` once unzipped is
    /// refused (the snapshot of 2023-11-22 is 1.7 MB).
    public init(source: Source, client: FeedClient?, maximumBytes: Int = 64_000_000) {
        self.source = source
        clock = LocalClock(identifier: "Europe/Amsterdam") ?? LocalClock(zone: TimeZone(secondsFromGMT: 3600) ?? .current)
        feed = NDWFeedReader(source: source, client: client, maximumBytes: maximumBytes)
    }

    public func fetchBridgeCatalog() async throws -> [BridgeInfoDTO] { try await feed.snapshot().catalog }

    /// The feed is a snapshot: an announcement missing from it was withdrawn.
    public var listsEveryAnnouncement: Bool { true }

    /// The whole snapshot as one page: it is small (about 1,000 records) and has no order to resume from, so the
    /// watermark is not used; the store's upsert absorbs what is already stored.
    public func eventPages(since watermark: Date?) -> AsyncThrowingStream<EventPage, any Error> {
        let feed = self.feed
        let done = NDWPageFlag()
        return AsyncThrowingStream(unfolding: {
            guard await done.take() else { return nil }
            let snapshot = try await feed.snapshot()
            return EventPage(index: 0, observations: snapshot.observations, origin: snapshot.origin)
        })
    }

    public func checkConnection() async -> ConnectionStatusDTO {
        do {
            let snapshot = try await feed.snapshot()
            return ConnectionStatusDTO(isReachable: true, detail: "\(snapshot.origin): \(snapshot.observations.count) "
                + "records at \(snapshot.catalog.count) bridges, published \(snapshot.publicationTime)")
        } catch {
            return ConnectionStatusDTO(isReachable: false, detail: "\(error)")
        }
    }
}

/// The snapshot read once per provider: the catalog and the pages come from the same reading.
actor NDWFeedReader {
    struct Snapshot: Sendable {
        let origin: String
        let publicationTime: Date
        let catalog: [BridgeInfoDTO]
        let observations: [OpeningObservation]
    }

    private let source: NDWProvider.Source
    private let client: FeedClient?
    private let maximumBytes: Int
    private var reading: Task<Snapshot, any Error>?

    init(source: NDWProvider.Source, client: FeedClient?, maximumBytes: Int) {
        self.source = source
        self.client = client
        self.maximumBytes = maximumBytes
    }

    func snapshot() async throws -> Snapshot {
        if let reading { return try await reading.value }
        let (source, client, limit) = (self.source, self.client, maximumBytes)
        let task = Task { try await Self.read(source, client: client, maximumBytes: limit) }
        reading = task
        return try await task.value
    }

    private static func read(_ source: NDWProvider.Source, client: FeedClient?, maximumBytes: Int) async throws -> Snapshot {
        let data: Data
        let origin: String
        switch source {
        case .url(let url):
            guard let client else {
                throw FeedError.noHTTPClient(url: url.absoluteString)
            }
            data = try await client.get(url)
            origin = url.absoluteString
        case .file(let path):
            // The limit holds for a file too, before it is read: a wrong path may name something huge, or a device.
            let attributes = try? FileManager.default.attributesOfItem(atPath: path)
            guard let attributes, attributes[.type] as? FileAttributeType == .typeRegular else {
                throw FeedError.feedFileMissing(path: path)
            }
            let size = (attributes[.size] as? NSNumber)?.intValue ?? 0
            guard size <= maximumBytes else {
                throw FeedError.feedFileTooLarge(path: path, size: size, limit: maximumBytes)
            }
            guard let contents = FileManager.default.contents(atPath: path) else {
                throw FeedError.feedFileUnreadable(path: path)
            }
            data = contents
            origin = path
        }
        let feed: DatexSituationFeed
        do {
            feed = try DatexFeedParser().parse(try gunzip(data, maximumBytes: maximumBytes))
        } catch let error as GzipError {
            throw FeedError.notGzip(origin: origin, detail: "\(error)")
        } catch let error as DatexFeedError {
            throw FeedError.badFeed(origin: origin, detail: "\(error)")
        }
        let bridges = NDWBridge.catalog(from: feed.openings)
        let names = Dictionary(uniqueKeysWithValues: bridges.map { ($0.id, $0.name) })
        let catalog = bridges.map { bridge in
            BridgeInfoDTO(id: bridge.id, name: bridge.name, displayName: bridge.name,
                          latitude: bridge.position?.latitude ?? 0, longitude: bridge.position?.longitude ?? 0,
                          waterway: "", kind: "bridge")
        }
        var observations = feed.openings.map { Self.observation($0, name: names[$0.bridgeID]) }
        observations += feed.rejected.map(Self.observation)
        return Snapshot(origin: origin, publicationTime: feed.publicationTime, catalog: catalog, observations: observations)
    }

    /// An opening as an observation: instants, the position, under way (`certain`) as observed and anything else
    /// (`riskOf`, an unknown probability) as planned, with the record's id and version.
    static func observation(_ opening: DatexBridgeOpening, name: String?) -> OpeningObservation {
        OpeningObservation(
            bridgeID: opening.bridgeID, bridgeName: name, opened: .value(.instant(opening.start)),
            closed: opening.end.map { .value(.instant($0)) } ?? .absent,
            latitude: opening.position.map { .value($0.latitude) } ?? .absent,
            longitude: opening.position.map { .value($0.longitude) } ?? .absent,
            status: opening.probability == .certain ? .observed : .planned,
            recordID: opening.recordID, recordVersion: opening.recordVersion.flatMap { Int($0) },
            source: SourceRecord(fields: fields(opening)))
    }

    /// A record the parser refused, kept so a report of rejected records shows it: its opening reads as
    /// unreadable, with the parser's reason as its text.
    static func observation(_ rejected: DatexRejectedRecord) -> OpeningObservation {
        OpeningObservation(
            bridgeID: rejected.situationID.flatMap(DatexBridgeOpening.bridgeID(inSituationID:)), bridgeName: nil,
            opened: .unreadable(rejected.reason.description),
            recordID: rejected.recordID,
            source: SourceRecord(fields: [
                SourceRecord.Field(name: "situationID", value: rejected.situationID ?? ""),
                SourceRecord.Field(name: "recordID", value: rejected.recordID ?? ""),
                SourceRecord.Field(name: "line", value: String(rejected.line)),
                SourceRecord.Field(name: "reason", value: rejected.reason.description),
            ]))
    }

    private static func fields(_ opening: DatexBridgeOpening) -> [SourceRecord.Field] {
        let time = ISO8601DateFormatter()
        var fields = [
            SourceRecord.Field(name: "situationID", value: opening.situationID),
            SourceRecord.Field(name: "recordID", value: opening.recordID),
            SourceRecord.Field(name: "probability", value: opening.probability.rawValue),
            SourceRecord.Field(name: "overallStartTime", value: time.string(from: opening.start)),
        ]
        if let version = opening.recordVersion { fields.append(SourceRecord.Field(name: "recordVersion", value: version)) }
        if let end = opening.end { fields.append(SourceRecord.Field(name: "overallEndTime", value: time.string(from: end))) }
        if let position = opening.position {
            fields.append(SourceRecord.Field(name: "latitude", value: String(position.latitude)))
            fields.append(SourceRecord.Field(name: "longitude", value: String(position.longitude)))
        }
        return fields
    }
}

/// Hands out the one page once.
private actor NDWPageFlag {
    private var given = false

    /// True the first time only.
    func take() -> Bool {
        defer { given = true }
        return !given
    }
}
