import BridgetDTOs
import Foundation

/// One answer of a live state feed: which bridges are raised now.
public struct BridgeStateReading: Sendable, Equatable {
    /// Each bridge of the catalog the answer named with a status it understood: raised or lowered.
    public var positions: [String: LiveFeedState.Position]
    /// What was odd about the answer, each a fact for the log and the metrics; none changes a position.
    public var notes: [BridgeStateNote]

    /// Creates a reading.
    public init(positions: [String: LiveFeedState.Position], notes: [BridgeStateNote] = []) {
        self.positions = positions
        self.notes = notes
    }
}

/// Something odd in an answer that was still read.
public enum BridgeStateNote: Sendable, Equatable, Hashable {
    /// The body was the array itself, not a JSON string holding it (the feed's usual double encoding).
    case singleEncoded
    /// An item named a bridge the catalog does not have: left out.
    case unknownBridge(id: String)
    /// An item's status was neither "Open" nor "Closed": the bridge is left out of this answer.
    case unknownStatus(bridgeID: String, status: String)
    /// An item without a usable id (a whole number from 0 to 99,999 or its ASCII digits; not `true`, `1.5`, `-3` or
    /// `" 3"`) or status (a string): left out.
    case badItem(index: Int)
    /// A bridge named twice with different statuses: left out of this answer.
    case contradiction(bridgeID: String)

    /// The note's name in log lines and metrics.
    public var name: String {
        switch self {
        case .singleEncoded: "single-encoded"
        case .unknownBridge: "unknown-bridge"
        case .unknownStatus: "unknown-status"
        case .badItem: "bad-item"
        case .contradiction: "contradiction"
        }
    }

    /// One line for the log.
    public var detail: String {
        switch self {
        case .singleEncoded: "the body was a JSON array, not the usual JSON string holding one; read as it is"
        case .unknownBridge(let id): "bridge id \(Self.cut(id)) is not in the catalog; left out"
        case .unknownStatus(let id, let status): "bridge \(id) has the unknown status \(Self.cut(status)); its last state is kept"
        case .badItem(let index): "item \(index) has no usable BridgeID or Status; left out"
        case .contradiction(let id): "bridge \(id) is named twice with different statuses; its last state is kept"
        }
    }

    /// A text from outside, quoted, cut to 40 characters and stripped of controls: it goes to a log line.
    static func cut(_ text: String) -> String {
        let clean = String(text.unicodeScalars.filter { !CharacterSet.controlCharacters.contains($0) }.map(Character.init))
        return "'" + (clean.count > 40 ? String(clean.prefix(40)) + "…" : clean) + "'"
    }
}

/// Why a poll of a state feed gave no reading. Nothing about the bridges is learned from it.
public struct BridgeStateError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, by name (log lines and metrics use `name`).
    public enum Kind: Sendable, Equatable {
        /// An HTTP status other than 200 (429 and 5xx included), with the `Retry-After` seconds when it gave a sane one.
        case httpStatus(Int, retryAfter: TimeInterval?)
        /// An HTML page where JSON was expected (a proxy's or the city's error page).
        case htmlPage
        /// No body, or only whitespace.
        case emptyBody
        /// A body that is not the feed's JSON.
        case malformed(String)
        /// No answer within the poll's timeout.
        case timeout
        /// No connection (refused, unknown host, reset).
        case unreachable(String)
        /// A body over the limit.
        case tooLarge(Int)
        /// A redirect the feed's request does not follow (off its origin), with the origins and the reason.
        case redirectRefused(HTTPRedirectRefused)
    }

    public let kind: Kind

    /// Creates an error.
    public init(_ kind: Kind) { self.kind = kind }

    /// The name in log lines and metrics: `http-503`, `rate-limited` (429), `html-page`, `empty-body`, `malformed`,
    /// `timeout`, `unreachable`, `too-large`, `redirect-refused`.
    public var name: String {
        switch kind {
        case .httpStatus(let status, _): status == 429 ? "rate-limited" : "http-\(status)"
        case .htmlPage: "html-page"
        case .emptyBody: "empty-body"
        case .malformed: "malformed"
        case .timeout: "timeout"
        case .unreachable: "unreachable"
        case .tooLarge: "too-large"
        case .redirectRefused: "redirect-refused"
        }
    }

    public var description: String {
        switch kind {
        case .httpStatus(let status, let retryAfter):
            "the feed answered HTTP \(status)" + (retryAfter.map { " (Retry-After \(Int($0)) s)" } ?? "")
        case .htmlPage: "the feed answered an HTML page, not its JSON"
        case .emptyBody: "the feed answered an empty body"
        case .malformed(let reason): "the feed's answer is not its JSON: \(reason)"
        case .timeout: "the feed did not answer in time"
        case .unreachable(let reason): "the feed could not be reached: \(reason)"
        case .tooLarge(let limit): "the feed's answer is larger than \(limit) bytes"
        case .redirectRefused(let refusal): "the feed's answer pointed elsewhere: \(refusal)"
        }
    }
}

/// A source that answers "which bridges are raised now", polled by Bridget to see openings as they happen.
///
/// An implementation must guarantee (`BridgeStateConformance` checks it):
/// - `currentStates()` makes one reading per call (no cache, no retries: the poller polls again), and gives positions
///   only for bridges of its catalog, each raised or lowered, never `unknown`;
/// - every failure is a `BridgeStateError`, named, and gives no positions at all (a partial answer is not read);
/// - what is odd in an answer that was read is a `BridgeStateNote`, and a bridge it concerns has no position;
/// - a cancelled caller is answered promptly.
public protocol BridgeStateSource: Sendable {
    /// Where it reads (a URL), for logs and `config show`.
    var origin: String { get }
    /// One reading now.
    func currentStates() async throws -> BridgeStateReading
}
