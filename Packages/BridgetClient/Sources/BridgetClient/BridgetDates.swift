import Foundation
import OpenAPIRuntime

/// Bridget's instants: ISO 8601 in UTC, whole seconds (`2026-07-01T04:32:00Z`) or, for when the store recorded a
/// change, milliseconds (`2026-07-01T04:32:00.123Z`). Both are read; whole seconds are written.
struct BridgetDates: DateTranscoder {
    func encode(_ date: Date) throws -> String { date.formatted(.iso8601) }

    func decode(_ text: String) throws -> Date {
        if let date = Self.date(text) { return date }
        throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "'\(text)' is not an ISO 8601 instant"))
    }

    static func date(_ text: String) -> Date? {
        (try? Date.ISO8601FormatStyle().parse(text))
            ?? (try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text))
    }

    /// A decoder of Bridget's JSON, with either form of instant.
    static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = date(text) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "'\(text)' is not an ISO 8601 instant")
            }
            return date
        }
        return decoder
    }
}
