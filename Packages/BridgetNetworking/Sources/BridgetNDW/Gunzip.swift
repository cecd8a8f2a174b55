import BridgetNetworking
import CBridgetZlib
import Foundation

/// Decompresses a gzip file's bytes (one or more concatenated members), or returns `data` unchanged when it does
/// not start with the gzip magic bytes 1f 8b.
///
/// For files that are gzip files (such as NDW's `brugopeningen.xml.gz`), not for HTTP `Content-Encoding`, which
/// the transport undoes. Output is produced in 64 KB steps and never grows past `maximumBytes`: a bomb stops with
/// `GzipError.Kind.outputLimitExceeded` once it would, so memory stays bounded by the limit. The limit is on
/// decompressed output only: data passed through is returned as given. A negative limit is taken as zero.
/// - Throws: `GzipError` for output past the limit, a truncated or corrupt stream, or bytes after it.
public func gunzip(_ data: Data, maximumBytes: Int) throws -> Data {
    guard data.starts(with: [0x1F, 0x8B]) else { return data }
    let limit = max(0, maximumBytes)
    return try data.withUnsafeBytes { (input: UnsafeRawBufferPointer) throws -> Data in
        var inflater = GzipInflater(input: input, limit: limit)
        return try inflater.run()
    }
}

/// One gunzip: zlib's stream over borrowed input, the output so far, and the limit.
private struct GzipInflater: ~Copyable {
    private static let step = 64 * 1024

    private let input: UnsafeRawBufferPointer
    private let limit: Int
    /// On the heap: zlib's state points back at its stream and refuses a stream that has moved.
    private let stream: UnsafeMutablePointer<z_stream>
    /// Input bytes handed to zlib so far (zlib's `avail_in` is 32-bit, so very large input goes in pieces).
    private var handed = 0
    private var output = Data()

    init(input: UnsafeRawBufferPointer, limit: Int) {
        self.input = input
        self.limit = limit
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
    }

    deinit {
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// Input bytes zlib has consumed.
    private var consumed: Int { handed - Int(stream.pointee.avail_in) }

    private func failure(_ kind: GzipError.Kind) -> GzipError {
        GzipError(kind, inputOffset: consumed, inputBytes: input.count, outputBytes: output.count)
    }

    mutating func run() throws -> Data {
        let status = bridget_inflate_init_gzip(stream)
        guard status == Z_OK else { throw failure(.zlibFailure(status: status)) }
        defer { inflateEnd(stream) }
        let buffer = UnsafeMutablePointer<Bytef>.allocate(capacity: Self.step)
        defer { buffer.deallocate() }
        // The caller checked the magic bytes, so the input is not empty.
        guard let base = input.baseAddress?.assumingMemoryBound(to: Bytef.self) else { return output }
        while true {
            if stream.pointee.avail_in == 0, handed < input.count {
                let piece = min(input.count - handed, Int(UInt32.max))
                stream.pointee.next_in = UnsafeMutablePointer(mutating: base + handed)
                stream.pointee.avail_in = uInt(piece)
                handed += piece
            }
            // One byte more room than the limit allows, so a stream that would pass the limit is caught there.
            let room = min(Self.step, limit - output.count + 1)
            stream.pointee.next_out = buffer
            stream.pointee.avail_out = uInt(room)
            let status = inflate(stream, Z_NO_FLUSH)
            let produced = room - Int(stream.pointee.avail_out)
            // Kept up to the limit, so the error reports the output cut at the limit.
            let kept = min(produced, limit - output.count)
            output.append(buffer, count: kept)
            guard kept == produced else { throw failure(.outputLimitExceeded(limit: limit)) }
            switch status {
            case Z_OK:
                continue
            case Z_STREAM_END:
                if consumed == input.count { return output }
                // Another member follows (gzip files may be concatenated), or the file is damaged.
                guard input.count - consumed >= 2, base[consumed] == 0x1F, base[consumed + 1] == 0x8B else {
                    throw failure(.trailingData)
                }
                inflateReset(stream)
            case Z_BUF_ERROR where stream.pointee.avail_in == 0 && handed == input.count:
                throw failure(.truncated)
            case Z_DATA_ERROR, Z_NEED_DICT, Z_STREAM_ERROR, Z_BUF_ERROR:
                let message = stream.pointee.msg.map { String(cString: $0) } ?? "invalid deflate data"
                throw failure(.corrupt(message))
            default:
                throw failure(.zlibFailure(status: status))
            }
        }
    }
}
