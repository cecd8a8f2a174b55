/// Why a document could not be read as a DATEX II situation publication at all. A bad record inside a good
/// document is not an error: it is a `DatexRejectedRecord`.
public struct DatexFeedError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong with the document.
    public enum Kind: Sendable, Equatable {
        /// The data is empty.
        case emptyDocument
        /// The data is still gzip-compressed (it starts with 1f 8b).
        case gzipCompressed
        /// The data is not well-formed XML; the XML parser's message.
        case notXML(String)
        /// Well-formed XML without a DATEX II `payloadPublication`; the document's first element.
        case notDatex(rootElement: String)
        /// A DATEX II publication of another type (its `xsi:type`, when it has one).
        case notSituationPublication(found: String?)
        /// The `payloadPublication` has no `publicationTime`.
        case missingPublicationTime
        /// The `publicationTime` is not a DATEX II time with a zone; its text.
        case invalidPublicationTime(String)
    }

    /// What is wrong.
    public let kind: Kind
    /// The line of the fault (1-based), when the XML parser says.
    public let line: Int?
    /// The column of the fault (1-based), when the XML parser says.
    public let column: Int?

    /// Creates an error.
    public init(_ kind: Kind, line: Int? = nil, column: Int? = nil) {
        self.kind = kind
        self.line = line
        self.column = column
    }

    public var description: String {
        let place = line.map { line in " at line \(line)" + (column.map { ", column \($0)" } ?? "") } ?? ""
        switch kind {
        case .emptyDocument:
            return "the feed is empty: expected a DATEX II SituationPublication"
        case .gzipCompressed:
            return "the feed is gzip-compressed: gunzip it first (gunzip(_:maximumBytes:))"
        case let .notXML(message):
            return "the feed is not well-formed XML\(place): \(message)"
        case let .notDatex(root):
            return "the feed is XML but not DATEX II: no payloadPublication (its first element is <\(root)>)"
        case let .notSituationPublication(found):
            return "the feed is a DATEX II \(found ?? "publication without xsi:type")\(place), not a SituationPublication"
        case .missingPublicationTime:
            return "the SituationPublication has no publicationTime"
        case let .invalidPublicationTime(text):
            return "the publicationTime '\(text)'\(place) is not a time YYYY-MM-DDThh:mm:ss[.fff] with Z or an offset ±hh:mm"
        }
    }
}
