import BridgetNetworking
import Foundation

/// One bridge of NDW's feed, derived from its openings: the feed carries no bridge list and no names.
public struct NDWBridge: Sendable, Hashable {
    /// The stable id, `DatexBridgeOpening.bridgeID` (an ISRS location code such as `NLWMH002340560000502`).
    public let id: String
    /// A name a person can read, made by `name(id:position:)`.
    public let name: String
    /// The position most of its openings give (the first seen of the most common); `nil` if none gives one.
    public let position: DatexCoordinate?
    /// How many openings in the records it was derived from.
    public let openingCount: Int

    /// Creates a bridge.
    public init(id: String, name: String, position: DatexCoordinate?, openingCount: Int) {
        self.id = id
        self.name = name
        self.position = position
        self.openingCount = openingCount
    }

    /// The catalog of the bridges `openings` name: one per bridge id, sorted by id.
    ///
    /// The position is the most common one among the bridge's openings (ties: the first met), so one record with a
    /// stray position does not move the bridge; in the 2023-11-22 snapshot every bridge has a single position.
    public static func catalog(from openings: [DatexBridgeOpening]) -> [NDWBridge] {
        var order: [String] = []
        var byID: [String: [DatexBridgeOpening]] = [:]
        for opening in openings {
            if byID[opening.bridgeID] == nil { order.append(opening.bridgeID) }
            byID[opening.bridgeID, default: []].append(opening)
        }
        return order.sorted().map { id in
            let records = byID[id] ?? []
            let position = mostCommon(records.compactMap(\.position))
            return NDWBridge(id: id, name: name(id: id, position: position), position: position, openingCount: records.count)
        }
    }

    /// A readable name for a bridge the feed does not name.
    ///
    /// For an ISRS code, its UN/LOCODE place and object reference (the parts a person can tell apart; the place codes
    /// read as places, such as AMS, HAA, ZAA) and the position to three decimals (about 100 m):
    /// `NLWMH002340560000502` at 52.70767, 4.71626 → `NL WMH bridge 05600 (52.708° N, 4.716° E)`. Another id is
    /// kept whole: `Bridge GEM_12 (…)`. Without a position, the name is the first part alone.
    public static func name(id: String, position: DatexCoordinate?) -> String {
        let label: String
        if let code = ISRSLocationCode(id) {
            label = "\(code.country) \(code.location) bridge \(code.objectReference)"
        } else {
            label = "Bridge \(id)"
        }
        guard let position else { return label }
        let latitude = String(format: "%.3f", abs(position.latitude)) + (position.latitude < 0 ? "° S" : "° N")
        let longitude = String(format: "%.3f", abs(position.longitude)) + (position.longitude < 0 ? "° W" : "° E")
        return "\(label) (\(latitude), \(longitude))"
    }

    private static func mostCommon(_ positions: [DatexCoordinate]) -> DatexCoordinate? {
        var counts: [DatexCoordinate: Int] = [:]
        for position in positions { counts[position, default: 0] += 1 }
        var best: (position: DatexCoordinate, count: Int)?
        for position in positions {
            let count = counts[position, default: 0]
            if count > best?.count ?? 0 { best = (position, count) }
        }
        return best?.position
    }
}
