import BridgetCaching
import Foundation
import Testing

@Suite("Body checksum")
struct BodyChecksumTests {
    @Test("any one changed byte, at any place of bodies up to 70 bytes, changes the sum; so does the length")
    func singleByteChanges() {
        var seen: Set<String> = []
        for count in 0...70 {
            let body = Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) })
            let sum = DiskCache.checksum(body)
            #expect(sum.hasPrefix("w4x64-") && sum.count == 22)
            #expect(seen.insert(sum).inserted, "bodies of different lengths share the sum \(sum)")
            for index in 0..<count {
                var changed = body
                changed[index] &+= 1
                #expect(DiskCache.checksum(changed) != sum, "a change at byte \(index) of \(count) went unseen")
            }
        }
        // Zero bytes at the end are not lost: a body and the same body with a zero byte more differ.
        #expect(DiskCache.checksum(Data([1, 2, 3])) != DiskCache.checksum(Data([1, 2, 3, 0])))
    }

    @Test("an entry written with the earlier FNV-1a sum is still served; a damaged one is not")
    func earlierSums() async throws {
        let path = NSTemporaryDirectory() + "bridget-cache-" + UUID().uuidString
        let cache = try DiskCache(directory: path, maximumBytes: 1_000_000)
        let body = Data(String(repeating: "[{\"entityid\":\"3\"}]", count: 40).utf8)
        try await cache.store(body, forKey: "k", etag: "\"e\"", lastModified: nil, contentType: nil)
        let files = try FileManager.default.contentsOfDirectory(atPath: path)
        let meta = URL(fileURLWithPath: path + "/" + files.first { $0.hasSuffix(".meta") }!)
        let written = try String(contentsOf: meta, encoding: .utf8)
        let legacy = FNV1a.hex(body.withUnsafeBytes(FNV1a.hash))
        try written.replacingOccurrences(of: DiskCache.checksum(body), with: legacy).write(to: meta, atomically: true, encoding: .utf8)
        #expect(try String(contentsOf: meta, encoding: .utf8).contains("\"\(legacy)\""))
        let again = try DiskCache(directory: path, maximumBytes: 1_000_000)
        #expect(await again.response(forKey: "k")?.body == body)

        let wrong = FNV1a.hex(FNV1a.hash("another body"))
        try written.replacingOccurrences(of: DiskCache.checksum(body), with: wrong).write(to: meta, atomically: true, encoding: .utf8)
        let damaged = try DiskCache(directory: path, maximumBytes: 1_000_000)
        #expect(await damaged.response(forKey: "k") == nil)
    }
}
