import BridgetNDW
import BridgetNetworking
import Foundation
import Testing

/// gunzip against gzip data made by Python's gzip module, the real snapshot, and damaged copies of it.
@Suite("NDW gunzip")
struct NDWGunzipTests {
    /// Python's gzip of standard input.
    static func pythonGzip(_ data: Data) async throws -> Data {
        try await Python.run("import gzip, sys; sys.stdout.buffer.write(gzip.compress(sys.stdin.buffer.read(), mtime=0))", input: data)
    }

    /// Bytes that do not compress much, from a fixed seed.
    static func noise(count: Int, seed: UInt64) -> Data {
        var generator = SeededGenerator(seed: seed)
        return Data((0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }

    static func gzipError(_ body: () throws -> Data) -> GzipError? {
        do {
            _ = try body()
            return nil
        } catch {
            return error as? GzipError
        }
    }

    @Test("round trip: Python compresses, gunzip restores the bytes, concatenated members too")
    func roundTrip() async throws {
        let text = Data(String(repeating: "<situation id=\"PNH01_NLWMH002340560000502_72565910\"/>\n", count: 2_000).utf8)
        let noise = Self.noise(count: 300_000, seed: 13)
        let compressedText = try await Self.pythonGzip(text)
        let compressedNoise = try await Self.pythonGzip(noise)
        let compressedNothing = try await Self.pythonGzip(Data())
        #expect(compressedText.count < text.count / 10)
        #expect(try gunzip(compressedText, maximumBytes: 1 << 20) == text)
        #expect(try gunzip(compressedNoise, maximumBytes: 1 << 20) == noise)
        #expect(try gunzip(compressedText + compressedNoise, maximumBytes: 1 << 20) == text + noise)
        #expect(try gunzip(compressedNothing, maximumBytes: 0) == Data())
    }

    @Test("the limit is exact: output of the limit's size passes, one byte less stops with the output cut at the limit")
    func exactLimit() async throws {
        let noise = Self.noise(count: 100_000, seed: 7)
        let compressed = try await Self.pythonGzip(noise)
        #expect(try gunzip(compressed, maximumBytes: 100_000) == noise)
        let error = try #require(Self.gzipError { try gunzip(compressed, maximumBytes: 99_999) })
        #expect(error.kind == .outputLimitExceeded(limit: 99_999))
        #expect(error.outputBytes == 99_999)
        #expect(error.description.contains("limit of 99999 bytes"))
    }

    @Test("a bomb (64 MB of zeros in about 64 KB) stops at the limit, long before the end of its input")
    func bomb() async throws {
        let bomb = try await Python.run("""
        import gzip, sys
        with gzip.GzipFile(fileobj=sys.stdout.buffer, mode='wb', mtime=0) as out:
            for _ in range(64): out.write(bytes(1 << 20))
        """)
        #expect(bomb.count < 128 << 10)
        let error = try #require(Self.gzipError { try gunzip(bomb, maximumBytes: 10 << 20) })
        #expect(error.kind == .outputLimitExceeded(limit: 10 << 20))
        #expect(error.outputBytes == 10 << 20)
        #expect(error.inputBytes == bomb.count)
        #expect(error.inputOffset < bomb.count / 4, "read \(error.inputOffset) of \(bomb.count) bytes")
    }

    @Test("a truncated stream is refused as truncated, wherever it is cut")
    func truncated() throws {
        let snapshot = try NDWFixture.data()
        for cut in [10, snapshot.count / 2, snapshot.count - 4, snapshot.count - 1] {
            let error = try #require(Self.gzipError { try gunzip(snapshot.prefix(cut), maximumBytes: 16 << 20) }, "cut at \(cut)")
            #expect(error.kind == .truncated, "cut at \(cut)")
            #expect(error.inputBytes == cut)
            #expect(error.description.contains("truncated"))
        }
    }

    @Test("a damaged checksum, length or header is refused as corrupt with zlib's reason; bytes after the stream too")
    func corrupt() throws {
        let snapshot = try NDWFixture.data()
        func flipped(_ offset: Int) -> Data {
            var copy = snapshot
            copy[offset] ^= 0xFF
            return copy
        }
        #expect(Self.gzipError { try gunzip(flipped(snapshot.count - 8), maximumBytes: 16 << 20) }?.kind
            == .corrupt("incorrect data check"))
        #expect(Self.gzipError { try gunzip(flipped(snapshot.count - 1), maximumBytes: 16 << 20) }?.kind
            == .corrupt("incorrect length check"))
        #expect(Self.gzipError { try gunzip(flipped(2), maximumBytes: 16 << 20) }?.kind == .corrupt("unknown compression method"))
        let trailing = Self.gzipError { try gunzip(snapshot + Data("junk".utf8), maximumBytes: 16 << 20) }
        #expect(trailing?.kind == .trailingData)
        #expect(trailing?.inputOffset == snapshot.count)
    }

    @Test("data without the gzip magic passes through unchanged", arguments: [
        Data("<?xml version=\"1.0\"?><a/>".utf8), Data(), Data([0x1F]), Data([0x8B, 0x1F, 0x08]), Data([0x1F, 0x8C, 0x08]),
    ])
    func passthrough(data: Data) throws {
        #expect(try gunzip(data, maximumBytes: 0) == data)
    }
}
