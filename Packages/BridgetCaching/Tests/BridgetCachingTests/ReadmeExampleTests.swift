import BridgetCaching
import BridgetReadmeCheck
import Foundation
import Testing

/// The example of the package's README, compiled and run: the function below is the README's first Swift block
/// (after its imports), and the test fails when the two differ.
@Suite("README")
struct ReadmeExampleTests {
    @Test("the README's example compiles, runs, and matches its copy in the README")
    func example() async throws {
        let folder = NSTemporaryDirectory() + "bridget-readme-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (evicted, kept, statistics, body) = try await cacheTour(folder: folder)
        #expect(evicted == nil)
        #expect(kept == 3)
        #expect(statistics == CacheStatistics(hits: 2, misses: 1, evictions: 1, expirations: 0, count: 2))
        #expect(body == "[]")

        #expect(ReadmeCheck.mismatch(testFile: #filePath, function: "cacheTour") == nil)
    }
}

// README.md's example, as it is there.
func cacheTour(folder: String) async throws -> (evicted: Int?, kept: Int?, statistics: CacheStatistics, body: String?) {
    // Two entries at most, each fresh for a minute, on the system's continuous clock (tests inject their own).
    let memory = MemoryCache<String, Int, ContinuousClock>(capacity: 2, defaultTimeToLive: .seconds(60))
    memory.insert(3, forKey: "Fremont", timeToLive: nil) // nil: the default time to live
    memory.insert(1, forKey: "Ballard", timeToLive: .seconds(30))
    _ = memory.value(forKey: "Fremont") // a read is a use: Ballard is now the least recently used
    memory.insert(4, forKey: "University", timeToLive: nil) // past capacity: Ballard goes
    let evicted = memory.value(forKey: "Ballard") // nil
    let kept = memory.value(forKey: "Fremont") // 3

    // A response body with its validators; read back only if its size and checksum still match.
    let disk = try DiskCache(directory: folder + "/http", maximumBytes: 1_000_000)
    try await disk.store(Data("[]".utf8), forKey: "https://example.org/rows?page=0", etag: "\"v1\"", lastModified: nil,
                         contentType: "application/json")
    let body = await disk.response(forKey: "https://example.org/rows?page=0").map { String(decoding: $0.body, as: UTF8.self) }
    return (evicted, kept, memory.statistics(), body)
}
