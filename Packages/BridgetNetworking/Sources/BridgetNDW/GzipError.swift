import BridgetNetworking
import Foundation

/// Why `gunzip(_:maximumBytes:)` stopped, with how far it got.
public struct GzipError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong.
    public enum Kind: Sendable, Equatable {
        /// The output would grow past the caller's limit (a decompression bomb, or a feed larger than expected).
        case outputLimitExceeded(limit: Int)
        /// The compressed data ends before the end of the gzip stream (a cut-off download).
        case truncated
        /// zlib found the data invalid (a bad header, a damaged block, a checksum or length mismatch); zlib's message.
        case corrupt(String)
        /// Bytes that are not another gzip member follow the end of the stream.
        case trailingData
        /// zlib itself failed (out of memory, a version mismatch); zlib's status code.
        case zlibFailure(status: Int32)
    }

    /// What went wrong.
    public let kind: Kind
    /// Compressed bytes read when it stopped.
    public let inputOffset: Int
    /// Size of the compressed data.
    public let inputBytes: Int
    /// Bytes of output produced when it stopped (never more than the limit).
    public let outputBytes: Int

    /// Creates an error.
    public init(_ kind: Kind, inputOffset: Int, inputBytes: Int, outputBytes: Int) {
        self.kind = kind
        self.inputOffset = inputOffset
        self.inputBytes = inputBytes
        self.outputBytes = outputBytes
    }

    public var description: String {
        let place = "after \(inputOffset) of \(inputBytes) compressed bytes, \(outputBytes) bytes out"
        switch kind {
        case let .outputLimitExceeded(limit):
            return "gzip data expands past the limit of \(limit) bytes (stopped \(place)): a decompression bomb or a "
                + "larger file than expected; raise the limit only if the source is trusted to have grown"
        case .truncated:
            return "gzip data is truncated: it ends before the end of its stream (\(place)); fetch it again"
        case let .corrupt(message):
            return "gzip data is corrupt: \(message) (\(place)); fetch it again"
        case .trailingData:
            return "gzip data is followed by bytes that are not gzip (\(place)); the file is damaged or not one gzip file"
        case let .zlibFailure(status):
            return "zlib failed with status \(status) (\(place))"
        }
    }
}
