import BridgetNDW
import BridgetNetworking
import Foundation
import Testing

/// DatexFeedParser on documents written for each rule (DatexDocument), shaped like NDW's feed.
@Suite("NDW DATEX II feed parser")
struct NDWFeedParserTests {
    let parser = DatexFeedParser()

    func feedError(_ data: Data) -> DatexFeedError? {
        do {
            _ = try parser.parse(data)
            return nil
        } catch {
            return error as? DatexFeedError
        }
    }

    func onlyRejection(_ situation: String) throws -> DatexRejectedRecord {
        let feed = try parser.parse(DatexDocument.feed([situation]))
        #expect(feed.openings.isEmpty)
        return try #require(feed.rejected.first)
    }

    @Test("a record's fields: ids and versions, bridge, source, probability, times, position, publication time")
    func recordFields() throws {
        let feed = try parser.parse(DatexDocument.feed([DatexDocument.situation(version: "2", recordVersion: "3")]))
        #expect(feed.rejected.isEmpty)
        let opening = try #require(feed.openings.first)
        #expect(feed.openings.count == 1)
        #expect(opening.situationID == "PNH01_NLWMH002340560000502_72565910")
        #expect(opening.situationVersion == "2")
        #expect(opening.recordID == "PNH01_NLWMH002340560000502_72565910_01")
        #expect(opening.recordVersion == "3")
        #expect(opening.bridgeID == "NLWMH002340560000502")
        #expect(opening.sourceName == "PNH01")
        #expect(opening.probability == .riskOf)
        #expect(opening.start == (try instant("2023-11-23T00:01:00Z")))
        #expect(opening.end == (try instant("2023-11-23T00:07:00Z")))
        #expect(opening.position == DatexCoordinate(latitude: 52.7076664316445, longitude: 4.71626244833748))
        #expect(opening.versionTime == (try instant("2023-11-20T09:59:31.860Z")))
        #expect(opening.publicationTime == (try instant("2023-11-22T05:42:03.283Z")))
        #expect(feed.publicationTime == opening.publicationTime)
    }

    @Test("elements are matched by local name: a d2: prefix, a bare model or a SOAP envelope read the same")
    func prefixes() throws {
        let plain = try parser.parse(DatexDocument.feed([DatexDocument.situation()]))
        let prefixed = try parser.parse(DatexDocument.feed([DatexDocument.situation(p: "d2:")], soap: false, p: "d2:"))
        let prefixedInSOAP = try parser.parse(DatexDocument.feed([DatexDocument.situation(p: "x:")], p: "x:"))
        #expect(plain.openings.count == 1)
        #expect(prefixed == plain)
        #expect(prefixedInSOAP == plain)
    }

    @Test("times: Z or an offset, with or without a fraction", arguments: [
        ("2023-11-23T00:01:00Z", "2023-11-23T00:01:00Z"),
        ("2023-11-23T01:01:00+01:00", "2023-11-23T00:01:00Z"),
        ("2023-11-22T18:31:00.5-05:30", "2023-11-23T00:01:00.500Z"),
        ("2023-11-23T00:01:00.123456789Z", "2023-11-23T00:01:00.123Z"),
        ("2023-11-23T00:00:59.999+00:00", "2023-11-23T00:00:59.999Z"),
        ("2024-02-29T23:30:00-01:00", "2024-03-01T00:30:00Z"),
        ("1999-12-31T23:59:59Z", "1999-12-31T23:59:59Z"),
    ])
    func times(text: String, expected: String) throws {
        let feed = try parser.parse(DatexDocument.feed([DatexDocument.situation(start: text, end: nil)]))
        let start = try #require(feed.openings.first?.start, "rejected: \(feed.rejected)")
        #expect(abs(start.timeIntervalSince(try instant(expected))) < 0.000_5)
    }

    @Test("a time without a zone, or not a calendar time, rejects its record with the element and the text", arguments: [
        "2023-11-23T00:01:00", "2023-11-23T00:01:00.000", "2023-02-29T00:00:00Z", "2023-11-23 00:01:00Z",
        "2023-11-23T24:00:00Z", "2023-11-23T00:01:00+1:00", "2023-11-23T00:01:00.Z", "23-11-2023T00:01:00Z", "",
    ])
    func invalidTimes(text: String) throws {
        let rejected = try onlyRejection(DatexDocument.situation(start: text))
        #expect(rejected.reason == .invalidTime(element: "overallStartTime", text: text))
        #expect(rejected.recordID == "PNH01_NLWMH002340560000502_72565910_01")
    }

    @Test("a record without a start time is rejected with its id and place; the rest of the feed is read")
    func missingStart() throws {
        let feed = try parser.parse(DatexDocument.feed([
            DatexDocument.situation(),
            DatexDocument.situation(id: "NDW04_NLHAA002020469100067_9", recordID: "NDW04_NLHAA002020469100067_9_01", start: nil),
            DatexDocument.situation(id: "NDW04_NLHAA002020469100067_10", recordID: "NDW04_NLHAA002020469100067_10_01"),
        ]))
        #expect(feed.openings.map(\.recordID) == ["PNH01_NLWMH002340560000502_72565910_01", "NDW04_NLHAA002020469100067_10_01"])
        let rejected = try #require(feed.rejected.first)
        #expect(feed.rejected.count == 1)
        #expect(rejected.reason == .missingStartTime)
        #expect(rejected.recordID == "NDW04_NLHAA002020469100067_9_01")
        #expect(rejected.situationID == "NDW04_NLHAA002020469100067_9")
        // Line 1 the declaration, 2 the envelope, 3 the publication; each situation takes two lines, its record the second.
        #expect(rejected.line == 7)
        #expect(rejected.column > 1)
        #expect(rejected.description.hasPrefix("record NDW04_NLHAA002020469100067_9_01 at line 7, column "))
        #expect(rejected.description.hasSuffix("the record has no validity/validityTimeSpecification/overallStartTime"))
    }

    @Test("records without ids, of another kind, or whose ids hold no bridge are rejected, each with its reason")
    func identityRules() throws {
        let noRecordID = try onlyRejection(DatexDocument.situation(recordID: nil))
        #expect(noRecordID.reason == .missingRecordID)
        #expect(noRecordID.situationID == DatexDocument.bridgeSituation)
        #expect(noRecordID.description.hasPrefix("a record of situation \(DatexDocument.bridgeSituation) at line 5"))
        #expect(try onlyRejection(DatexDocument.situation(recordID: "")).reason == .missingRecordID)
        #expect(try onlyRejection(DatexDocument.situation(id: nil)).reason == .missingSituationID)
        #expect(try onlyRejection(DatexDocument.situation(type: "roadClosed")).reason == .notBridgeOperation(found: "roadClosed"))
        #expect(try onlyRejection(DatexDocument.situation(type: nil)).reason == .notBridgeOperation(found: nil))
        #expect(try onlyRejection(DatexDocument.situation(id: "PNH01-72565910")).reason == .noBridgeID)
    }

    @Test("the end may be absent; an end before the start rejects the record")
    func endTimes() throws {
        let open = try parser.parse(DatexDocument.feed([DatexDocument.situation(end: nil)]))
        #expect(open.openings.count == 1)
        #expect(open.openings.first?.end == nil)
        let backwards = try onlyRejection(DatexDocument.situation(start: "2023-11-23T00:07:00Z", end: "2023-11-23T00:01:00Z"))
        #expect(backwards.reason == .endBeforeStart)
        let unreadable = try onlyRejection(DatexDocument.situation(end: "soon"))
        #expect(unreadable.reason == .invalidTime(element: "overallEndTime", text: "soon"))
    }

    static let probabilities: [(String?, DatexProbability)] = [
        ("certain", .certain), ("riskOf", .riskOf), ("probable", .unknown("probable")),
        ("CERTAIN", .unknown("CERTAIN")), (nil, .unknown("")),
    ]

    @Test("probability: certain, riskOf, and any other value kept as unknown", arguments: probabilities)
    func probability(text: String?, expected: DatexProbability) throws {
        let feed = try parser.parse(DatexDocument.feed([DatexDocument.situation(probability: text)]))
        #expect(feed.openings.first?.probability == expected)
        #expect(feed.openings.first?.probability.rawValue == (text ?? ""))
    }

    @Test("position: pointByCoordinates first, locationForDisplay when there is no point, none when neither")
    func positions() throws {
        func position(point: (String, String)?, display: (String, String)?) throws -> DatexCoordinate? {
            let feed = try parser.parse(DatexDocument.feed([DatexDocument.situation(point: point, display: display)]))
            return try #require(feed.openings.first, "rejected: \(feed.rejected)").position
        }
        #expect(try position(point: ("52.1", "4.1"), display: ("53.2", "5.2")) == DatexCoordinate(latitude: 52.1, longitude: 4.1))
        #expect(try position(point: nil, display: ("53.2", "5.2")) == DatexCoordinate(latitude: 53.2, longitude: 5.2))
        #expect(try position(point: nil, display: nil) == nil)
        // A point given twice (a location of several points): the first.
        let twoPoints = "<pointByCoordinates><pointCoordinates><latitude>51</latitude><longitude>3</longitude></pointCoordinates></pointByCoordinates>"
        let feed = try parser.parse(DatexDocument.feed([DatexDocument.situation(point: ("52.1", "4.1"), extra: twoPoints)]))
        #expect(feed.openings.first?.position == DatexCoordinate(latitude: 52.1, longitude: 4.1))
    }

    @Test("a position that is not a number, out of range or half given rejects the record", arguments: [
        ("abc", "4.1"), ("95", "4.1"), ("52.1", "-181"), ("nan", "4.1"), ("", "4.1"),
    ])
    func invalidPositions(latitude: String, longitude: String) throws {
        let rejected = try onlyRejection(DatexDocument.situation(point: (latitude, longitude)))
        #expect(rejected.reason == .invalidCoordinate(element: "pointByCoordinates", latitude: latitude, longitude: longitude))
        let fromDisplay = try onlyRejection(DatexDocument.situation(point: nil, display: (latitude, longitude)))
        #expect(fromDisplay.reason == .invalidCoordinate(element: "locationForDisplay", latitude: latitude, longitude: longitude))
    }

    @Test("malformed XML is an error with its line and column")
    func malformedXML() throws {
        let mismatch = try #require(feedError(Data("<?xml version=\"1.0\"?>\n<a>\n  <b></c>\n</a>".utf8)))
        guard case let .notXML(message) = mismatch.kind else { Issue.record("\(mismatch)"); return }
        #expect(message == "an end tag does not match its start tag (XMLParser error 76)")
        #expect(mismatch.line == 3)
        #expect(mismatch.column == 10)
        #expect(mismatch.description.hasPrefix("the feed is not well-formed XML at line 3, column 10: "))

        // The real feed cut off mid-way, as a broken download would leave it.
        let xml = try gunzip(NDWFixture.data(), maximumBytes: 16 << 20)
        let cut = try #require(feedError(xml.prefix(100_000)))
        guard case .notXML = cut.kind else { Issue.record("\(cut)"); return }
        #expect(cut.line == 1)
        #expect((cut.column ?? 0) > 90_000)

        let bareAmpersand = try #require(feedError(Data("<a>bridges & locks</a>".utf8)))
        #expect(bareAmpersand.kind == .notXML("a bare '&' or '<', an entity reference without ';', or an undeclared entity (XMLParser error 68)"))
    }

    static let notXMLAtAll = DatexFeedError.Kind.notXML("no element where the document starts (empty, or not XML) (XMLParser error 4)")
    static let documents: [(Data, DatexFeedError.Kind)] = [
        (Data("Service Unavailable".utf8), notXMLAtAll),
        (Data(#"{"situations":[]}"#.utf8), notXMLAtAll),
        (Data(), .emptyDocument),
        (Data([0x1F, 0x8B, 0x08, 0x00]), .gzipCompressed),
        (Data("<html><body>503</body></html>".utf8), .notDatex(rootElement: "html")),
        (DatexDocument.feed([], publicationType: "MeasuredDataPublication"), .notSituationPublication(found: "MeasuredDataPublication")),
        (DatexDocument.feed([DatexDocument.situation()], publicationTime: nil), .missingPublicationTime),
        (DatexDocument.feed([DatexDocument.situation()], publicationTime: "22-11-2023"), .invalidPublicationTime("22-11-2023")),
    ]

    @Test("data that is not XML at all, or not DATEX II, is an error saying which", arguments: documents)
    func documentErrors(data: Data, expected: DatexFeedError.Kind) {
        #expect(feedError(data)?.kind == expected)
    }

    @Test("a publication of another type is reported where it starts")
    func otherPublication() throws {
        let error = try #require(feedError(DatexDocument.feed([], publicationType: "d2:MeasuredDataPublication")))
        #expect(error.kind == .notSituationPublication(found: "d2:MeasuredDataPublication"))
        #expect(error.line == 3)
        #expect(error.description.contains("MeasuredDataPublication at line 3"))
    }
}
