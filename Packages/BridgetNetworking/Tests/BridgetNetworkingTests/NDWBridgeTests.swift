import BridgetNDW
import BridgetNetworking
import Foundation
import Testing

/// The bridge id rule, ISRS codes, derived names and the catalog, on ids and openings written for each case.
@Suite("NDW bridges")
struct NDWBridgeTests {
    static let situationIDs: [(String, String?)] = [
        ("PNH01_NLWMH002340560000502_72565910", "NLWMH002340560000502"),
        ("NDW04_NLTNZ130B20497800009_123", "NLTNZ130B20497800009"),
        // The ISRS code found wherever it stands.
        ("NLAMS002122253000074_9", "NLAMS002122253000074"),
        ("NDW_04_NLHAA002020469100067_5", "NLHAA002020469100067"),
        ("NDW04_NLHAA002020469100067", "NLHAA002020469100067"),
        // No ISRS code: what stands between the source and the sequence.
        ("GEM01_BRUG12_77", "BRUG12"),
        ("GEM01_BRUG_12_77", "BRUG_12"),
        ("PNH01_nlwmh002340560000502_1", "nlwmh002340560000502"),
        ("PNH01_NLWMH00234056000050_1", "NLWMH00234056000050"),
        // Nothing to go on.
        ("NLWMH00234056000050", nil), ("PNH01_BRUG12", nil), ("PNH01__1", nil), ("", nil),
    ]

    @Test("the bridge id: the ISRS code in the situation id, else its middle parts, else none", arguments: situationIDs)
    func bridgeIDRule(situationID: String, expected: String?) {
        #expect(DatexBridgeOpening.bridgeID(inSituationID: situationID) == expected)
    }

    @Test("an ISRS location code and its parts; other shapes are not one")
    func isrsCode() throws {
        let code = try #require(ISRSLocationCode("NLTNZ130B20497800009"))
        #expect(code.country == "NL")
        #expect(code.location == "TNZ")
        #expect(code.fairwaySection == "130B2")
        #expect(code.objectReference == "04978")
        #expect(code.hectometre == "00009")
        #expect(code.description == "NLTNZ130B20497800009")
        for text in ["NLTNZ130B2049780000", "NLTNZ130B204978000091", "nlTNZ130B20497800009", "1LTNZ130B20497800009",
                     "NLTNZ130B2-497800009", "NLTNZ130B20497800009 "] {
            #expect(ISRSLocationCode(text) == nil, "\(text)")
        }
    }

    @Test("names: place and object of an ISRS code with the position to three decimals; other ids whole")
    func names() {
        let north = DatexCoordinate(latitude: 52.70766643, longitude: 4.71626244)
        let south = DatexCoordinate(latitude: -33.8568, longitude: -151.2153)
        #expect(NDWBridge.name(id: "NLWMH002340560000502", position: north) == "NL WMH bridge 05600 (52.708° N, 4.716° E)")
        #expect(NDWBridge.name(id: "NLWMH002340560000502", position: nil) == "NL WMH bridge 05600")
        #expect(NDWBridge.name(id: "GEM_12", position: south) == "Bridge GEM_12 (33.857° S, 151.215° W)")
    }

    static func opening(_ bridgeID: String, _ sequence: Int, _ position: DatexCoordinate?) throws -> DatexBridgeOpening {
        let start = try instant("2023-11-23T00:01:00Z").addingTimeInterval(Double(sequence) * 600)
        return DatexBridgeOpening(
            situationID: "NDW04_\(bridgeID)_\(sequence)", situationVersion: "1", recordID: "NDW04_\(bridgeID)_\(sequence)_01",
            recordVersion: "1", bridgeID: bridgeID, sourceName: "NDW04", probability: .riskOf, start: start, end: nil,
            position: position, versionTime: nil, publicationTime: start
        )
    }

    @Test("the catalog: one bridge per id, sorted, at its most common position (ties: the first met)")
    func catalog() throws {
        let a = DatexCoordinate(latitude: 52.1, longitude: 4.1), b = DatexCoordinate(latitude: 52.2, longitude: 4.2)
        let bridges = NDWBridge.catalog(from: [
            try Self.opening("NLZAA002360561800012", 1, a),
            try Self.opening("NLHAA002020469100067", 2, b),
            try Self.opening("NLZAA002360561800012", 3, b),
            try Self.opening("NLZAA002360561800012", 4, b),
            try Self.opening("NLHAA002020469100067", 5, a),
            try Self.opening("NLHAA002020469100067", 6, nil),
            try Self.opening("BRUG12", 7, nil),
        ])
        #expect(bridges.map(\.id) == ["BRUG12", "NLHAA002020469100067", "NLZAA002360561800012"])
        #expect(bridges.map(\.openingCount) == [1, 3, 3])
        #expect(bridges.map(\.position) == [nil, b, b])
        #expect(bridges.map(\.name) == [
            "Bridge BRUG12", "NL HAA bridge 04691 (52.200° N, 4.200° E)", "NL ZAA bridge 05618 (52.200° N, 4.200° E)",
        ])
        #expect(NDWBridge.catalog(from: []).isEmpty)
    }
}
