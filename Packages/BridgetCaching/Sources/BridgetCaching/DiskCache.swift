import Foundation

/// What the disk cache knows about one stored response.
public struct CachedResponseMetadata: Sendable, Codable, Equatable {
    /// The cache key: the request URL without credentials.
    public let key: String
    /// The response's `ETag`, for `If-None-Match`.
    public let etag: String?
    /// The response's `Last-Modified`, for `If-Modified-Since`.
    public let lastModified: String?
    /// The response's `Content-Type`.
    public let contentType: String?
    /// When the body was fetched (or last confirmed unchanged by a 304).
    public let fetchedAt: Date
    /// Body size in bytes.
    public let size: Int
    /// FNV-1a 64 digest of the body, hex: detects a corrupt or truncated file.
    public let checksum: String

    /// Creates metadata.
    public init(key: String, etag: String?, lastModified: String?, contentType: String?, fetchedAt: Date, size: Int,
                checksum: String) {
        self.key = key
        self.etag = etag
        self.lastModified = lastModified
        self.contentType = contentType
        self.fetchedAt = fetchedAt
        self.size = size
        self.checksum = checksum
    }

    /// The same entry, confirmed fresh at another time.
    public func refreshed(at date: Date) -> CachedResponseMetadata {
        CachedResponseMetadata(key: key, etag: etag, lastModified: lastModified, contentType: contentType,
                               fetchedAt: date, size: size, checksum: checksum)
    }
}

/// A body and its metadata.
public struct CachedResponse: Sendable, Equatable {
    public let metadata: CachedResponseMetadata
    public let body: Data

    /// Creates a cached response.
    public init(metadata: CachedResponseMetadata, body: Data) {
        self.metadata = metadata
        self.body = body
    }
}

/// Counts of a disk cache.
public struct DiskCacheStatistics: Sendable, Codable, Equatable {
    public var entries = 0
    public var bytes = 0
    public var maximumBytes = 0
    public var hits = 0
    public var misses = 0
    /// Entries found corrupt or truncated, discarded.
    public var discarded = 0
    /// Entries removed to stay within `maximumBytes`.
    public var evictions = 0
}

/// HTTP responses on disk: one body file and one metadata file per entry, each written to a temporary file and
/// renamed into place (the metadata last, so an entry exists only once its body is complete). A body whose size or
/// checksum does not match its metadata is discarded, never served. Total size stays within a budget by evicting
/// the entries fetched longest ago.
public actor DiskCache {
    /// The folder holding the entries.
    public nonisolated let directory: String
    /// The size budget in bytes.
    public nonisolated let maximumBytes: Int
    private let now: @Sendable () -> Date
    private var counts = DiskCacheStatistics()
    /// The bytes stored as of the last full count of the folder, plus what this instance stored since (an entry
    /// replaced or removed since only makes it larger than the truth). The full count reads every metadata file, so
    /// it runs only when this passes the budget: a sync storing N pages reads O(N) metadata files, not O(N²).
    /// Another process's entries are seen at the next full count (theirs see ours at theirs).
    private var knownBytes: Int?

    /// Creates (if needed) the folder.
    public init(directory: String, maximumBytes: Int, now: @escaping @Sendable () -> Date = { Date() }) throws {
        self.directory = directory
        self.maximumBytes = max(maximumBytes, 1)
        self.now = now
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw CacheError.cannotCreateFolder(path: directory, reason: error.localizedDescription)
        }
    }

    /// The stored response for a key, if present and intact.
    public func response(forKey key: String) -> CachedResponse? {
        let (bodyPath, metaPath) = paths(for: key)
        guard let metaData = FileManager.default.contents(atPath: metaPath) else {
            counts.misses += 1
            return nil
        }
        guard let metadata = try? JSONDecoder.cache.decode(CachedResponseMetadata.self, from: metaData),
              metadata.key == key,
              let body = FileManager.default.contents(atPath: bodyPath),
              body.count == metadata.size, BodyChecksum.matches(body, metadata.checksum)
        else {
            discard(bodyPath: bodyPath, metaPath: metaPath)
            counts.misses += 1
            return nil
        }
        counts.hits += 1
        return CachedResponse(metadata: metadata, body: body)
    }

    /// Stores a body under a key, replacing any earlier entry, then enforces the size budget.
    @discardableResult
    public func store(_ body: Data, forKey key: String, etag: String?, lastModified: String?, contentType: String?)
        throws -> CachedResponseMetadata
    {
        let metadata = CachedResponseMetadata(
            key: key, etag: etag, lastModified: lastModified, contentType: contentType, fetchedAt: now(),
            size: body.count, checksum: BodyChecksum.of(body))
        let (bodyPath, metaPath) = paths(for: key)
        try? FileManager.default.removeItem(atPath: metaPath) // the old entry stops existing before its body changes
        // A body larger than the whole budget is not kept: it would evict everything else and still not fit.
        guard body.count <= maximumBytes else {
            try? FileManager.default.removeItem(atPath: bodyPath)
            return metadata
        }
        try writeAtomically(body, to: bodyPath)
        try writeAtomically(try JSONEncoder.cache.encode(metadata), to: metaPath)
        enforceBudget(keeping: key, added: body.count)
        return metadata
    }

    /// Marks an entry as confirmed fresh now (after a 304).
    public func refresh(_ metadata: CachedResponseMetadata) throws {
        let (bodyPath, metaPath) = paths(for: metadata.key)
        guard FileManager.default.fileExists(atPath: bodyPath) else { return } // evicted meanwhile: nothing to refresh
        try writeAtomically(try JSONEncoder.cache.encode(metadata.refreshed(at: now())), to: metaPath)
    }

    /// Metadata of every intact-looking entry (bodies are checked when read).
    public func allMetadata() -> [CachedResponseMetadata] {
        metaFiles().compactMap { path in
            FileManager.default.contents(atPath: path).flatMap {
                try? JSONDecoder.cache.decode(CachedResponseMetadata.self, from: $0)
            }
        }
    }

    /// Removes every entry; returns how many there were.
    @discardableResult
    public func clear() -> Int {
        let entries = metaFiles()
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        for file in files where file.hasSuffix(".body") || file.hasSuffix(".meta") || file.hasPrefix(".tmp-") {
            try? FileManager.default.removeItem(atPath: directory + "/" + file)
        }
        knownBytes = nil
        return entries.count
    }

    /// Entries, bytes and this instance's counts.
    public func statistics() -> DiskCacheStatistics {
        var result = counts
        let metadata = allMetadata()
        result.entries = metadata.count
        result.bytes = metadata.reduce(0) { $0 + $1.size }
        result.maximumBytes = maximumBytes
        return result
    }

    /// The checksum a body is stored with (`BodyChecksum`).
    public static func checksum(_ data: Data) -> String { BodyChecksum.of(data) }

    /// An entry's files are named by the FNV-1a of its key (as always, so an existing cache keeps its entries).
    private func paths(for key: String) -> (body: String, meta: String) {
        let name = FNV1a.hex(FNV1a.hash(key)) + "-" + String(key.utf8.count)
        return (directory + "/" + name + ".body", directory + "/" + name + ".meta")
    }

    private func metaFiles() -> [String] {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return files.filter { $0.hasSuffix(".meta") }.sorted().map { directory + "/" + $0 }
    }

    private func discard(bodyPath: String, metaPath: String, corrupt: Bool = true) {
        let existed = FileManager.default.fileExists(atPath: metaPath) || FileManager.default.fileExists(atPath: bodyPath)
        try? FileManager.default.removeItem(atPath: metaPath)
        try? FileManager.default.removeItem(atPath: bodyPath)
        if corrupt && existed { counts.discarded += 1 }
    }

    private func writeAtomically(_ data: Data, to path: String) throws {
        let temporary = directory + "/.tmp-" + UUID().uuidString
        do {
            try data.write(to: URL(fileURLWithPath: temporary))
            if FileManager.default.fileExists(atPath: path) { try FileManager.default.removeItem(atPath: path) }
            try FileManager.default.moveItem(atPath: temporary, toPath: path)
        } catch {
            try? FileManager.default.removeItem(atPath: temporary)
            throw CacheError.cannotWrite(folder: directory, reason: error.localizedDescription)
        }
    }

    private func enforceBudget(keeping key: String, added: Int) {
        if let known = knownBytes, known + added <= maximumBytes {
            knownBytes = known + added
            return
        }
        var entries = allMetadata().sorted { $0.fetchedAt < $1.fetchedAt }
        var total = entries.reduce(0) { $0 + $1.size }
        while total > maximumBytes, let oldest = entries.first {
            entries.removeFirst()
            guard oldest.key != key else { continue } // the new entry fits the budget on its own (checked in store)
            let (bodyPath, metaPath) = paths(for: oldest.key)
            discard(bodyPath: bodyPath, metaPath: metaPath, corrupt: false)
            total -= oldest.size
            counts.evictions += 1
        }
        knownBytes = total
    }
}

extension JSONEncoder {
    static var cache: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }
}

extension JSONDecoder {
    static var cache: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return decoder
    }
}
