import BridgetDTOs
import Foundation

/// The subset of SoQL the fixture server understands, evaluated over a `FixtureDataset`.
struct FixtureQuery {
    struct Failure: Error {
        let message: String
    }

    let select: String?
    let whereClause: (op: String, value: String)?
    let ordered: Bool
    let limit: Int
    let offset: Int

    init(parameters: [String: String]) throws {
        let known: Set = ["$select", "$where", "$order", "$limit", "$offset"]
        if let unknown = parameters.keys.first(where: { !known.contains($0) }) {
            throw Failure(message: "Unrecognized parameter \(unknown)")
        }
        select = parameters["$select"]
        if let text = parameters["$where"] {
            let pattern = #"^opendatetime (>=|>) '((?:[^']|'')*)'$"#
            guard let match = text.range(of: pattern, options: .regularExpression), match == text.startIndex..<text.endIndex
            else { throw Failure(message: "Could not parse $where: \(text)") }
            let op = text.contains(">=") ? ">=" : ">"
            let start = text.firstIndex(of: "'").map { text.index(after: $0) } ?? text.endIndex
            let literal = String(text[start..<text.index(before: text.endIndex)]).replacingOccurrences(of: "''", with: "'")
            whereClause = (op, literal)
        } else {
            whereClause = nil
        }
        switch parameters["$order"] {
        case nil: ordered = false
        case "opendatetime,:id"?, "opendatetime, :id"?: ordered = true
        case let other?: throw Failure(message: "Unsupported $order \(other)")
        }
        guard let limit = Int(parameters["$limit"] ?? "1000"), (0...50_000).contains(limit),
              let offset = Int(parameters["$offset"] ?? "0"), offset >= 0
        else { throw Failure(message: "Invalid $limit or $offset") }
        self.limit = limit
        self.offset = offset
    }

    func evaluate(on dataset: FixtureDataset) throws -> Data {
        var records = dataset.records
        if let (op, value) = whereClause {
            records = records.filter { record in
                guard let open = record.row.opendatetime else { return false }
                return op == ">=" ? open >= value : open > value
            }
        }
        if let select {
            guard select.lowercased().replacingOccurrences(of: " ", with: "") == "count(*)asn,max(opendatetime)aslatest"
            else { throw Failure(message: "Unsupported $select \(select)") }
            let latest = records.compactMap(\.row.opendatetime).max()
            var object: [String: String] = ["n": String(records.count)]
            if let latest { object["latest"] = latest }
            return try JSONSerialization.data(withJSONObject: [object], options: [.sortedKeys])
        }
        if ordered {
            records.sort { ($0.row.opendatetime ?? "", $0.id) < ($1.row.opendatetime ?? "", $1.id) }
        }
        let page = records.dropFirst(offset).prefix(limit)
        return Self.encode(page.map(\.row))
    }

    /// Socrata's 2.1 body layout: `[{…}\n,{…}\n]\n`, keys in column order, null fields omitted.
    static func encode(_ rows: [SocrataRow]) -> Data {
        let objects = rows.map { row in
            let fields = SocrataRow.columns.compactMap { column in
                row.value(forColumn: column).map { "\"\(column)\":\(jsonString($0))" }
            }
            return "{" + fields.joined(separator: ",") + "}"
        }
        guard !objects.isEmpty else { return Data("[]\n".utf8) }
        return Data(("[" + objects.joined(separator: "\n,") + "]\n").utf8)
    }

    static func jsonString(_ text: String) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: [text], options: [.fragmentsAllowed])) ?? Data("[\"\"]".utf8)
        return String(decoding: data.dropFirst().dropLast(), as: UTF8.self)
    }
}
