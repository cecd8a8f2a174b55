import BridgetDTOs
import BridgetNetworking
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
        let records = matching(dataset)
        if let select {
            let latest = records.compactMap(\.row.opendatetime).max()
            var object: [String: String] = ["n": String(records.count)]
            switch select.lowercased().replacingOccurrences(of: " ", with: "") {
            case "count(*)asn,max(opendatetime)aslatest": if let latest { object["latest"] = latest }
            case "count(*)asn": break
            default: throw Failure(message: "Unsupported $select \(select)")
            }
            return try JSONSerialization.data(withJSONObject: [object], options: [.sortedKeys])
        }
        return Self.encode(rows(on: dataset))
    }

    /// The page of rows the query asks for.
    func rows(on dataset: FixtureDataset) -> [SocrataRow] {
        matching(dataset).dropFirst(offset).prefix(limit).map(\.row)
    }

    /// The records the `$where` clause keeps, in the query's order.
    private func matching(_ dataset: FixtureDataset) -> [FixtureDataset.Record] {
        var records = ordered ? dataset.ordered : dataset.records
        if let (op, value) = whereClause {
            records = records.filter { record in
                guard let open = record.row.opendatetime else { return false }
                return op == ">=" ? open >= value : open > value
            }
        }
        return records
    }

    /// Socrata's 2.1 body layout: `[{…}\n,{…}\n]\n`, keys in column order, null fields omitted.
    static func encode(_ rows: [SocrataRow]) -> Data {
        guard !rows.isEmpty else { return Data("[]\n".utf8) }
        var bytes: [UInt8] = [UInt8(ascii: "[")]
        bytes.reserveCapacity(rows.count * 240)
        for (index, row) in rows.enumerated() {
            if index > 0 { bytes += [0x0A, UInt8(ascii: ",")] }
            row.appendJSON(to: &bytes)
        }
        bytes += [UInt8(ascii: "]"), 0x0A]
        return Data(bytes)
    }
}
