import Foundation

/// The JSON of every answer, the same on the command line (`--format json`) and over HTTP: sorted keys, ISO 8601
/// instants, pretty-printed, slashes as they are (Docs/OUTPUT.md).
package enum AnswerJSON {
    /// The answer's JSON text.
    package static func text(_ value: some Encodable) throws -> String {
        String(decoding: try data(value), as: UTF8.self)
    }

    /// The answer's JSON bytes.
    package static func data(_ value: some Encodable) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return try encoder.encode(value)
    }
}
