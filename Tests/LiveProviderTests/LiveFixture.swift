import BridgetAnalysis
import BridgetCaching
import BridgetContext
import BridgetCore
import BridgetDTOs
import BridgetNetworking
import BridgetPersistence
import BridgetSQLite
import Foundation
import SocrataFixtureServer

/// A fixture server, a temporary folder with a cache and a SQLite store, and the live pipeline over them.
struct LiveFixture {
    let server: SocrataFixtureServer
    let baseURL: URL
    let folder: String
    let dataset: FixtureDataset

    static func start(rows: Int = 1_200, seed: UInt64 = 5, token: String? = nil) async throws -> LiveFixture {
        let dataset = FixtureDataset.generate(rows: rows, seed: seed)
        // A dataset id of its own (a four-by-four): no other test's client asks for it.
        let letters = Array("abcdefghijkmnpqrstuvwxyz23456789")
        let word = { String((0..<4).map { _ in letters[Int.random(in: 0..<letters.count)] }) }
        let id = word() + "-" + word()
        let server = try SocrataFixtureServer(dataset: dataset, datasetID: id, requiredToken: token)
        let url = try await server.start()
        let folder = NSTemporaryDirectory() + "bridget-live-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return LiveFixture(server: server, baseURL: url, folder: folder, dataset: dataset)
    }

    var query: SocrataQuery { get throws { try SocrataQuery(baseURL: baseURL, dataset: server.datasetID) } }

    func cache(_ name: String = "cache") throws -> DiskCache {
        try DiskCache(directory: folder + "/" + name, maximumBytes: 100_000_000)
    }

    func client(
        cache: DiskCache?, policy: CachePolicy = .networkFirst, token: String? = nil, timeout: TimeInterval = 120,
        attempts: Int = 4, maxBytes: Int = 5_000_000, sleeps: SleepRecorder? = nil
    ) -> FeedClient {
        let settings = FeedClient.Settings(
            timeout: timeout, maximumBodyBytes: maxBytes,
            retry: RetryPolicy(maxAttempts: attempts, baseDelay: 0.01, maxDelay: 1.5, jitter: 0.5),
            cachePolicy: policy, appToken: token)
        let sleep: @Sendable (TimeInterval) async throws -> Void = { seconds in
            sleeps?.record(seconds)
            try await Task.sleep(for: .seconds(seconds))
        }
        return FeedClient(transport: URLSessionTransport(timeout: timeout), cache: cache, settings: settings, sleep: sleep)
    }

    func store(_ name: String = "store") throws -> SQLiteBridgeStore {
        try SQLiteBridgeStore(path: folder + "/" + name + ".sqlite")
    }

    func pipeline(provider: any NetworkProcessing, store: any BridgeStore) -> SyncPipeline {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        return SyncPipeline(
            provider: provider, processor: SerialProcessor(history: StoreEventHistory(store: store), now: { now }),
            store: store, batchSize: 500, overlap: 48 * 3600, now: { now })
    }

    /// The events the served rows should become, by the shared validator.
    var expected: ObservationValidator.Outcome {
        var reader = SocrataObservationReader()
        return ObservationValidator(catalog: .seattle, clock: .seattle, now: Date(timeIntervalSince1970: 1_800_000_000))
            .validate(reader.observations(dataset.records.map(\.row)))
    }

    func stop() async {
        await server.stop()
    }
}

/// Records the waits a client asks for.
final class SleepRecorder: Sendable {
    private let seconds = Locked<[TimeInterval]>([])
    func record(_ value: TimeInterval) { seconds.withLock { $0.append(value) } }
    var all: [TimeInterval] { seconds.withLock { $0 } }
}

/// Every byte of every file under a folder, to search for secrets.
func allBytes(under folder: String) -> Data {
    var data = Data()
    let enumerator = FileManager.default.enumerator(atPath: folder)
    while let name = enumerator?.nextObject() as? String {
        if let contents = FileManager.default.contents(atPath: folder + "/" + name) { data.append(contents) }
    }
    return data
}
