import BridgetNDW
import BridgetNetworking
import Foundation
import Testing

/// The real snapshot of 2023-11-22, read by Bridget and, independently, by Python's gzip and ElementTree.
@Suite("NDW snapshot of 2023-11-22")
struct NDWSnapshotTests {
    /// What Python reads from the snapshot: its own counts, and every record's fields.
    struct PythonView: Decodable {
        struct Record: Decodable {
            let record: String
            let situation: String
            let bridge: String
            let version: String
            let source: String
            let probability: String
            let start: Int64
            let end: Int64?
            let latitude: String
            let longitude: String
        }

        let publicationTime: Int64
        let records: [Record]
        let situations: Int
        let bridges: Int
        let certain: Int
        let riskOf: Int
        let earliestStart: Int64
        let latestStart: Int64
        let withEnd: Int
    }

    /// Matches elements by local name; the bridge is the second `_` part of the situation id (the shape every id of
    /// this snapshot has), not Bridget's rule; times become epoch milliseconds through datetime.fromisoformat.
    static let script = #"""
    import gzip, json, sys, xml.etree.ElementTree as ET
    from datetime import datetime

    def local(e): return e.tag.rsplit('}', 1)[-1]
    def child(e, name): return next(c for c in e if local(c) == name)
    def maybe(e, name): return next((c for c in e if local(c) == name), None)
    def path(e, *names):
        for name in names: e = child(e, name)
        return e
    def ms(text): return round(datetime.fromisoformat(text.replace('Z', '+00:00')).timestamp() * 1000)

    xml = gzip.decompress(open(sys.argv[1], 'rb').read())
    root = ET.fromstring(xml)
    publication = next(e for e in root.iter() if local(e) == 'payloadPublication')
    situations = [e for e in root.iter() if local(e) == 'situation']
    records = []
    for situation in situations:
        for record in (c for c in situation if local(c) == 'situationRecord'):
            times = path(record, 'validity', 'validityTimeSpecification')
            end = maybe(times, 'overallEndTime')
            point = path(record, 'groupOfLocations', 'pointByCoordinates', 'pointCoordinates')
            records.append({
                'record': record.get('id'), 'situation': situation.get('id'), 'version': record.get('version'),
                'bridge': situation.get('id').split('_')[1],
                'source': path(record, 'source', 'sourceName', 'values', 'value').text,
                'probability': child(record, 'probabilityOfOccurrence').text,
                'start': ms(child(times, 'overallStartTime').text),
                'end': ms(end.text) if end is not None else None,
                'latitude': child(point, 'latitude').text, 'longitude': child(point, 'longitude').text,
            })
    starts = [r['start'] for r in records]
    print(json.dumps({
        'publicationTime': ms(child(publication, 'publicationTime').text),
        'records': records, 'situations': len(situations),
        'bridges': len({r['bridge'] for r in records}),
        'certain': sum(r['probability'] == 'certain' for r in records),
        'riskOf': sum(r['probability'] == 'riskOf' for r in records),
        'earliestStart': min(starts), 'latestStart': max(starts),
        'withEnd': sum(r['end'] is not None for r in records),
    }))
    """#

    /// Python's reading, made once for all the tests of the suite.
    static let python = Task<PythonView, any Error> {
        let output = try await Python.run(script, arguments: [NDWFixture.url().path])
        return try JSONDecoder().decode(PythonView.self, from: output)
    }

    static func pythonView() async throws -> PythonView { try await python.value }

    static func parsed() throws -> DatexSituationFeed {
        try DatexFeedParser().parse(gunzip(NDWFixture.data(), maximumBytes: 16 << 20))
    }

    static func milliseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }

    @Test("the snapshot's counts: 978 records at 50 bridges, 7 certain, 971 riskOf, the same as Python counts")
    func counts() async throws {
        let feed = try Self.parsed()
        let openings = feed.openings
        let starts = openings.map(\.start)
        // What the snapshot holds, as DOMAIN.md and a count by hand say.
        #expect(openings.count == 978)
        #expect(feed.rejected.isEmpty, "rejected: \(feed.rejected)")
        #expect(Set(openings.map(\.bridgeID)).count == 50)
        #expect(openings.filter { $0.probability == .certain }.count == 7)
        #expect(openings.filter { $0.probability == .riskOf }.count == 971)
        #expect(starts.min() == (try instant("2023-11-21T14:26:00Z")))
        #expect(starts.max() == (try instant("2023-11-23T05:42:00Z")))
        #expect(feed.publicationTime == (try instant("2023-11-22T05:42:03.283Z")))
        #expect(openings.filter { $0.end != nil }.count == 972)

        let python = try await Self.pythonView()
        #expect(python.situations == 978)
        #expect(openings.count == python.records.count)
        #expect(Set(openings.map(\.bridgeID)).count == python.bridges)
        #expect(openings.filter { $0.probability == .certain }.count == python.certain)
        #expect(openings.filter { $0.probability == .riskOf }.count == python.riskOf)
        #expect(starts.min().map(Self.milliseconds) == python.earliestStart)
        #expect(starts.max().map(Self.milliseconds) == python.latestStart)
        #expect(Self.milliseconds(feed.publicationTime) == python.publicationTime)
        #expect(openings.filter { $0.end != nil }.count == python.withEnd)
    }

    @Test("every record reads as Python reads it, in document order")
    func everyRecord() async throws {
        let openings = try Self.parsed().openings
        let python = try await Self.pythonView().records
        try #require(openings.count == python.count)
        for (opening, expected) in zip(openings, python) {
            #expect(opening.recordID == expected.record)
            #expect(opening.situationID == expected.situation)
            #expect(opening.bridgeID == expected.bridge)
            #expect(opening.recordVersion == expected.version)
            #expect(opening.sourceName == expected.source)
            #expect(opening.probability.rawValue == expected.probability)
            #expect(Self.milliseconds(opening.start) == expected.start)
            #expect(opening.end.map(Self.milliseconds) == expected.end)
            #expect(opening.position?.latitude == Double(expected.latitude))
            #expect(opening.position?.longitude == Double(expected.longitude))
        }
    }

    @Test("gunzip gives the bytes Python's gzip gives")
    func gunzipMatchesPython() async throws {
        let ours = try gunzip(NDWFixture.data(), maximumBytes: 16 << 20)
        let theirs = try await Python.run("import gzip, sys; sys.stdout.buffer.write(gzip.decompress(open(sys.argv[1], 'rb').read()))",
                                    arguments: [NDWFixture.url().path])
        #expect(ours.count == 1_709_316)
        #expect(ours == theirs)
    }

    @Test("the catalog: 50 bridges, each at its one position inside the Netherlands, with readable unique names")
    func catalog() async throws {
        let bridges = NDWBridge.catalog(from: try Self.parsed().openings)
        let python = try await Self.pythonView().records
        #expect(bridges.count == 50)
        #expect(bridges.map(\.id) == bridges.map(\.id).sorted())
        #expect(Set(bridges.map(\.name)).count == 50)
        #expect(bridges.map(\.openingCount).reduce(0, +) == 978)
        for bridge in bridges {
            let position = try #require(bridge.position, "\(bridge.id) has no position")
            // The Netherlands' bounding box, with a margin: 50.75–53.56° N, 3.36–7.23° E.
            #expect((50.7...53.7).contains(position.latitude), "\(bridge.id) at \(position)")
            #expect((3.3...7.3).contains(position.longitude), "\(bridge.id) at \(position)")
            let records = python.filter { $0.bridge == bridge.id }
            #expect(bridge.openingCount == records.count)
            let positions = Set(records.map { "\($0.latitude) \($0.longitude)" })
            #expect(positions.count == 1, "\(bridge.id) has \(positions.count) positions in the feed")
            #expect(records.first.flatMap { Double($0.latitude) } == position.latitude)
            #expect(records.first.flatMap { Double($0.longitude) } == position.longitude)
        }
        let wmh = try #require(bridges.first { $0.id == "NLWMH002340560000502" })
        #expect(wmh.name == "NL WMH bridge 05600 (52.708° N, 4.716° E)")
        #expect(wmh.openingCount == python.filter { $0.bridge == "NLWMH002340560000502" }.count)
    }
}
