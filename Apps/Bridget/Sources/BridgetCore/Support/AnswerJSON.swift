import Foundation

/// The JSON of every answer, the same on the command line (`--format json`) and over HTTP: sorted keys, ISO 8601
/// instants, pretty-printed, slashes as they are (Docs/OUTPUT.md).
package enum AnswerJSON {
    /// The answer's JSON text.
    package static func text(_ value: some Encodable) throws -> String {
        String(decoding: try bytes(value), as: UTF8.self)
    }

    /// The answer's JSON bytes.
    package static func data(_ value: some Encodable) throws -> Data {
        Data(try bytes(value))
    }

    /// The answer's JSON bytes: written directly by an answer that can (the same bytes, several times faster), else
    /// by Foundation's encoder.
    package static func bytes(_ value: some Encodable) throws -> [UInt8] {
        if let writable = value as? any JSONTextWritable {
            var json = JSONText()
            writable.write(to: &json)
            if !json.invalid { return json.bytes }
        }
        return Array(try encoded(value))
    }

    /// The answer's JSON bytes as Foundation's encoder writes them.
    package static func encoded(_ value: some Encodable) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return try encoder.encode(value)
    }

    /// The JSON on one line (no newline in it): an NDJSON line, a Server-Sent Event's data. Sorted keys, ISO 8601.
    package static func line(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}
