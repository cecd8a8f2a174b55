import BridgetCore
import CompressNIO
import Hummingbird
import NIOCore

/// An answer as the cache keeps it: its bytes, and their gzip form once a client that accepts it asked (an answer is
/// compressed at most once however often it is sent).
package struct EncodedAnswer: Sendable {
    package let plain: ByteBuffer
    package let gzip: ByteBuffer?
    /// Headers the answer carries beside the cache's own (a page's `Link` to the next).
    package var fields: HTTPFields = [:]

    package init(plain: ByteBuffer, gzip: ByteBuffer?, fields: HTTPFields = [:]) {
        self.plain = plain
        self.gzip = gzip
        self.fields = fields
    }

    /// The bytes the cache's budget counts: what the buffers hold in memory, which can be more than they hold to send.
    package var size: Int { plain.capacity + (gzip?.capacity ?? 0) }
}

/// `Content-Encoding: gzip` for answers worth it: over `minimumBytes`, to a client whose `Accept-Encoding` takes gzip.
package enum AnswerEncoding {
    /// Below this an answer goes as it is: gzip's header and the work would save little or nothing.
    package static let minimumBytes = 1_024

    /// Whether an `Accept-Encoding` field value takes gzip (RFC 9110 12.5.3): `gzip` or `x-gzip` or `*`, with a
    /// weight above zero, and `gzip` not refused by name.
    package static func acceptsGzip(_ field: String?) -> Bool {
        guard let field else { return false }
        var named: Bool?
        var any = false
        for item in field.split(separator: ",") {
            let parts = item.split(separator: ";")
            guard let name = parts.first?.trimmingCharacters(in: .whitespaces).lowercased() else { continue }
            var weight = 1.0
            for parameter in parts.dropFirst() {
                let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                if pair.count == 2, pair[0].lowercased() == "q" { weight = Double(pair[1]) ?? 0 }
            }
            switch name {
            case "gzip", "x-gzip": named = (named ?? false) || weight > 0
            case "*": any = weight > 0
            default: continue
            }
        }
        return named ?? any
    }

    /// `body` in gzip at zlib's fastest level, or `nil` when it is too small to be worth it (or zlib fails, when it
    /// goes as it is). A 40 KB page of events: 3.2 KB for about 130 µs of CPU; level 6 made 2.3 KB for about 230 µs.
    package static func gzip(_ body: ByteBuffer) -> ByteBuffer? {
        guard body.readableBytes >= minimumBytes else { return nil }
        var input = body
        return try? input.compress(with: .gzip(configuration: .init(compressionLevel: .fastestCompression)))
    }
}

extension Response {
    /// `value` as the API's JSON (`AnswerJSON`), with `status`.
    static func json(_ value: some Encodable, status: HTTPResponse.Status) throws -> Response {
        Response(status: status, headers: [.contentType: "application/json"],
                 body: ResponseBody(byteBuffer: ByteBuffer(string: try AnswerJSON.text(value) + "\n")))
    }
}
