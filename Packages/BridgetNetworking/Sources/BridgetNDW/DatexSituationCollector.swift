import BridgetDTOs
import BridgetNetworking
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// The `XMLParser` delegate behind `DatexFeedParser`: follows the element path by local name (prefixes and
/// namespaces differ between writers and SOAP wrappers) and keeps the texts of each `situationRecord`.
///
/// Used by one parse on one thread, then read; not shared.
final class DatexSituationCollector: NSObject, XMLParserDelegate {
    /// A fault that stopped the parse early (a publication of another type).
    private(set) var failure: DatexFeedError?
    /// The XML parser's first error and where it was met: after a parse, `XMLParser`'s own position is where it
    /// stopped, which can be lines later.
    private(set) var firstXMLError: (code: Int, line: Int, column: Int)?
    private var path: [String] = []
    private var text = ""
    private var firstElement: String?
    /// Depth of the SituationPublication being read, if inside one.
    private var publicationDepth: Int?
    private var sawPublication = false
    private var publicationTime: (text: String, line: Int, column: Int)?
    private var situation: (id: String?, version: String?)?
    private var record: DatexRecordDraft?
    private var drafts: [DatexRecordDraft] = []

    /// The feed read, once the parser has finished without error.
    func feed() throws -> DatexSituationFeed {
        if let failure { throw failure }
        guard sawPublication else { throw DatexFeedError(.notDatex(rootElement: firstElement ?? "")) }
        guard let publicationTime else { throw DatexFeedError(.missingPublicationTime) }
        guard let published = InstantText.date(from: publicationTime.text) else {
            throw DatexFeedError(.invalidPublicationTime(publicationTime.text), line: publicationTime.line,
                                 column: publicationTime.column)
        }
        var openings: [DatexBridgeOpening] = []
        var rejected: [DatexRejectedRecord] = []
        openings.reserveCapacity(drafts.count)
        for draft in drafts {
            switch draft.outcome(publicationTime: published) {
            case let .opening(opening):
                openings.append(opening)
            case let .rejected(reason):
                rejected.append(DatexRejectedRecord(situationID: draft.situationID, recordID: draft.recordID,
                                                    line: draft.line, column: draft.column, reason: reason))
            }
        }
        return DatexSituationFeed(publicationTime: published, openings: openings, rejected: rejected)
    }

    /// The name after its prefix: `SOAP:Envelope` → `Envelope`, `xsi:type` → `type`.
    private static func localName(_ name: String) -> String {
        guard let colon = name.lastIndex(of: ":") else { return name }
        return String(name[name.index(after: colon)...])
    }

    private static func attribute(_ local: String, in attributes: [String: String]) -> String? {
        if let value = attributes[local] { return value }
        return attributes.first { localName($0.key) == local }?.value
    }

    func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
                attributes: [String: String] = [:]) {
        let name = Self.localName(elementName)
        if firstElement == nil { firstElement = name }
        path.append(name)
        text = ""
        switch name {
        case "payloadPublication":
            sawPublication = true
            let type = Self.attribute("type", in: attributes)
            guard type.map(Self.localName) == "SituationPublication" else {
                failure = DatexFeedError(.notSituationPublication(found: type), line: parser.lineNumber,
                                         column: parser.columnNumber)
                parser.abortParsing()
                return
            }
            publicationDepth = path.count
        case "situation" where publicationDepth != nil:
            situation = (Self.attribute("id", in: attributes), Self.attribute("version", in: attributes))
        case "situationRecord" where publicationDepth != nil:
            record = DatexRecordDraft(
                situationID: situation?.id, situationVersion: situation?.version,
                recordID: Self.attribute("id", in: attributes), recordVersion: Self.attribute("version", in: attributes),
                line: parser.lineNumber, column: parser.columnNumber
            )
        default:
            break
        }
    }

    func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) {
        guard firstXMLError == nil else { return }
        firstXMLError = ((parseError as NSError).code, parser.lineNumber, parser.columnNumber)
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        text += string
    }

    func parser(_ parser: XMLParser, foundCDATA CDATABlock: Data) {
        text += String(decoding: CDATABlock, as: UTF8.self)
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
        defer {
            path.removeLast()
            text = ""
        }
        guard let depth = publicationDepth else { return }
        let name = path[path.count - 1]
        let parent = path.count >= 2 ? path[path.count - 2] : ""
        let value = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if path.count == depth {
            publicationDepth = nil
            return
        }
        if record != nil {
            readRecordElement(name, parent: parent, value: value)
            return
        }
        switch name {
        case "publicationTime" where path.count == depth + 1 && publicationTime == nil:
            publicationTime = (value, parser.lineNumber, parser.columnNumber)
        case "situation":
            situation = nil
        default:
            break
        }
    }

    /// Keeps what a record element says; the first of each wins.
    private func readRecordElement(_ name: String, parent: String, value: String) {
        guard var draft = record else { return }
        let grandparent = path.count >= 3 ? path[path.count - 3] : ""
        func keep(_ field: WritableKeyPath<DatexRecordDraft, String?>) {
            if draft[keyPath: field] == nil { draft[keyPath: field] = value }
        }
        /// Changes a location's texts unless that location's first element has already ended.
        func update(_ location: WritableKeyPath<DatexRecordDraft, DatexRecordDraft.PointTexts?>,
                    _ change: (inout DatexRecordDraft.PointTexts) -> Void) {
            var texts = draft[keyPath: location] ?? DatexRecordDraft.PointTexts()
            guard !texts.closed else { return }
            change(&texts)
            draft[keyPath: location] = texts
        }
        switch (name, parent) {
        case ("situationRecord", _):
            drafts.append(draft)
            record = nil
            return
        case ("probabilityOfOccurrence", "situationRecord"): keep(\.probability)
        case ("situationRecordVersionTime", "situationRecord"): keep(\.versionTime)
        case ("generalNetworkManagementType", "situationRecord"): keep(\.managementType)
        case ("value", "values") where grandparent == "sourceName": keep(\.sourceName)
        case ("overallStartTime", "validityTimeSpecification"): keep(\.start)
        case ("overallEndTime", "validityTimeSpecification"): keep(\.end)
        case ("latitude", "pointCoordinates") where grandparent == "pointByCoordinates":
            update(\.point) { $0.latitude = $0.latitude ?? value }
        case ("longitude", "pointCoordinates") where grandparent == "pointByCoordinates":
            update(\.point) { $0.longitude = $0.longitude ?? value }
        case ("pointByCoordinates", _): update(\.point) { $0.closed = true }
        case ("latitude", "locationForDisplay"): update(\.display) { $0.latitude = $0.latitude ?? value }
        case ("longitude", "locationForDisplay"): update(\.display) { $0.longitude = $0.longitude ?? value }
        case ("locationForDisplay", _): update(\.display) { $0.closed = true }
        default: return
        }
        record = draft
    }
}
