import BridgetNetworking
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// Reads NDW's bridge-openings feed (`https://opendata.ndw.nu/brugopeningen.xml.gz`, once gunzipped): a DATEX II
/// 2.0 `SituationPublication`, bare or inside a SOAP envelope, one `situation` per opening.
///
/// A streaming `XMLParser` pass that matches elements by local name, so any namespace prefix reads the same. A
/// document that is not a situation publication is an error; a record that breaks a rule is set aside as a
/// `DatexRejectedRecord` and the rest is read.
public struct DatexFeedParser: Sendable {
    /// Creates a parser.
    public init() {}

    /// Parses one document.
    /// - Throws: `DatexFeedError` when the data is empty, gzip-compressed, not well-formed XML, not DATEX II, a
    ///   publication of another type, or without a readable `publicationTime`.
    public func parse(_ data: Data) throws -> DatexSituationFeed {
        guard !data.isEmpty else { throw DatexFeedError(.emptyDocument) }
        guard !data.starts(with: [0x1F, 0x8B]) else { throw DatexFeedError(.gzipCompressed) }
        let parser = XMLParser(data: data)
        parser.shouldProcessNamespaces = false
        parser.shouldResolveExternalEntities = false
        let collector = DatexSituationCollector()
        parser.delegate = collector
        let finished = withExtendedLifetime(collector) { parser.parse() }
        if let failure = collector.failure { throw failure }
        // swift-corelibs-foundation's parse() returns true for some broken documents (one cut off inside an
        // element, text after the root element) and only sets parserError.
        if !finished || parser.parserError != nil || collector.firstXMLError != nil {
            let (code, line, column) = collector.firstXMLError
                ?? ((parser.parserError as NSError?)?.code, parser.lineNumber, parser.columnNumber)
            throw DatexFeedError(.notXML(Self.message(code: code)), line: line, column: column)
        }
        return try collector.feed()
    }

    /// A sentence for `XMLParser`'s error code, whose text is only "The operation could not be completed" on Linux.
    /// The codes are libxml2's `xmlParserErrors`, which Apple's `NSXMLParserError` numbers the same way.
    private static func message(code: Int?) -> String {
        guard let code else { return "the XML parser stopped without an error code" }
        let sentence: String? = switch code {
        case 4: "no element where the document starts (empty, or not XML)"
        case 5: "the document does not end where XML allows (cut off, or something after or inside the root element)"
        case 9: "a character XML does not allow"
        case 23, 26, 68: "a bare '&' or '<', an entity reference without ';', or an undeclared entity"
        case 38: "a '<' inside an attribute's value"
        case 39, 40, 41, 43, 44: "an attribute without a properly quoted value"
        case 42: "an attribute given twice in one element"
        case 73: "'>' expected to end a tag"
        case 76: "an end tag does not match its start tag"
        case 77: "an element is not finished"
        case 85: "elements are not balanced"
        case 86: "content after the root element"
        default: nil
        }
        return sentence.map { "\($0) (XMLParser error \(code))" } ?? "XMLParser error \(code)"
    }
}
