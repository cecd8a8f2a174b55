import BridgetDTOs
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Seattle's live bridge state (SDOT's traveler map): `GET …/Travelers/api/Map/GetBridgeData`, answered with a JSON
/// string whose content is the JSON array of bridges (`BridgeID`, `DisplayName`, `Name`, `Latitude`, `Longitude`,
/// `Status` "Open" or "Closed"; "Open" means raised). No timestamps: the poller notes changes with its own clock.
///
/// One GET a reading, under `timeout` for the whole exchange and `maximumBytes` of body, following redirects on the
/// feed's own origin only (`HTTPRequest.RedirectRule.sameOriginOnly`); what a city endpoint does on a bad day is
/// named (`BridgeStateError`, `BridgeStateNote`), never read as a position.
public struct SDOTStateFeed: BridgeStateSource {
    /// The city's feed (a well-formed URL literal, so `URL(string:)` cannot fail).
    public static let defaultURL = URL(string: "https://web.seattle.gov/Travelers/api/Map/GetBridgeData")!

    public let url: URL
    public let knownBridgeIDs: Set<String>
    public let timeout: TimeInterval
    public let maximumBytes: Int
    private let transport: any HTTPTransport
    /// The clock a `Retry-After` date is read against.
    private let now: @Sendable () -> Date

    public var origin: String { url.absoluteString }

    /// The longest `Retry-After` taken from the feed: a day (the poller caps its own wait lower).
    static let retryAfterLimit: TimeInterval = 86_400

    /// A feed at `url` whose bridges are `knownBridgeIDs` (the catalog's: 1, 2, 3, 4, 6, 21, 29 for Seattle).
    public init(url: URL = Self.defaultURL, knownBridgeIDs: Set<String>, transport: any HTTPTransport,
                timeout: TimeInterval = 10, maximumBytes: Int = 256 * 1024,
                now: @escaping @Sendable () -> Date = Date.init) {
        self.url = url
        self.knownBridgeIDs = knownBridgeIDs
        self.transport = transport
        self.timeout = timeout
        self.maximumBytes = maximumBytes
        self.now = now
    }

    public func currentStates() async throws -> BridgeStateReading {
        let request = HTTPRequest(
            url: url, headers: ["Accept": "application/json", "Cache-Control": "no-cache",
                                "User-Agent": "Bridget (drawbridge openings; polls every 20 s or slower)"],
            timeout: timeout, maximumBodyBytes: maximumBytes, redirectRule: .sameOriginOnly)
        let response: HTTPResponse
        do {
            response = try await transport.send(request)
        } catch let error as URLError where error.code == .timedOut {
            throw BridgeStateError(.timeout)
        } catch let error as URLError where error.code == .cancelled {
            throw CancellationError()
        } catch let error as URLError {
            throw BridgeStateError(.unreachable(error.localizedDescription))
        } catch is HTTPBodyTooLarge {
            throw BridgeStateError(.tooLarge(maximumBytes))
        } catch let refusal as HTTPRedirectRefused {
            throw BridgeStateError(.redirectRefused(refusal))
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw BridgeStateError(.unreachable("\(error)"))
        }
        guard response.status == 200 else {
            let retryAfter = RetryAfter.seconds(response.header("Retry-After"), now: now(), limit: Self.retryAfterLimit)
            throw BridgeStateError(.httpStatus(response.status, retryAfter: retryAfter))
        }
        return try Self.read(response.body, knownBridgeIDs: knownBridgeIDs)
    }

    /// A body as the feed sends it (or as it might on a bad day).
    public static func read(_ body: Data, knownBridgeIDs: Set<String>) throws -> BridgeStateReading {
        let first = body.first { !(($0 == 0x20) || ($0 == 0x0A) || ($0 == 0x0D) || ($0 == 0x09)) }
        guard let first else { throw BridgeStateError(.emptyBody) }
        if first == UInt8(ascii: "<") { throw BridgeStateError(.htmlPage) }
        var notes: [BridgeStateNote] = []
        guard Self.nesting(body) <= Self.deepestNesting else {
            throw BridgeStateError(.malformed("nested deeper than \(Self.deepestNesting) levels"))
        }
        let outer: Any
        do {
            outer = try JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed])
        } catch {
            throw BridgeStateError(.malformed("not JSON"))
        }
        let items: [Any]
        if let text = outer as? String {
            let inner = text.trimmingCharacters(in: .whitespacesAndNewlines)
            if inner.isEmpty { throw BridgeStateError(.emptyBody) }
            if inner.hasPrefix("<") { throw BridgeStateError(.htmlPage) }
            guard Self.nesting(Data(inner.utf8)) <= Self.deepestNesting else {
                throw BridgeStateError(.malformed("nested deeper than \(Self.deepestNesting) levels"))
            }
            guard let array = (try? JSONSerialization.jsonObject(with: Data(inner.utf8), options: [])) as? [Any] else {
                throw BridgeStateError(.malformed("the JSON string does not hold a JSON array"))
            }
            items = array
        } else if let array = outer as? [Any] {
            notes.append(.singleEncoded)
            items = array
        } else {
            throw BridgeStateError(.malformed("neither a JSON string nor an array"))
        }
        var positions: [String: LiveFeedState.Position] = [:]
        var contradicted: Set<String> = []
        for (index, item) in items.enumerated() {
            guard let fields = item as? [String: Any], let id = bridgeID(fields["BridgeID"]),
                  let status = fields["Status"] as? String
            else {
                notes.append(.badItem(index: index))
                continue
            }
            guard knownBridgeIDs.contains(id) else {
                notes.append(.unknownBridge(id: id))
                continue
            }
            let position: LiveFeedState.Position
            switch status.trimmingCharacters(in: .whitespaces).lowercased() {
            case "open": position = .raised
            case "closed": position = .lowered
            default:
                notes.append(.unknownStatus(bridgeID: id, status: status))
                contradicted.insert(id)
                continue
            }
            if let earlier = positions[id], earlier != position {
                notes.append(.contradiction(bridgeID: id))
                contradicted.insert(id)
            }
            positions[id] = position
        }
        for id in contradicted { positions[id] = nil }
        return BridgeStateReading(positions: positions, notes: notes)
    }

    /// The feed's JSON is two levels deep (an array of objects); a parser is not asked to recurse through more.
    static let deepestNesting = 16

    /// The deepest nesting of arrays and objects in `body`, outside its strings (stopping early past the limit).
    static func nesting(_ body: Data) -> Int {
        var depth = 0
        var deepest = 0
        var inString = false
        var escaped = false
        for byte in body {
            if inString {
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true }
                else if byte == UInt8(ascii: "\"") { inString = false }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
                deepest = max(deepest, depth)
                if deepest > deepestNesting { return deepest }
            case UInt8(ascii: "]"), UInt8(ascii: "}"): depth -= 1
            default: break
            }
        }
        return deepest
    }

    /// A `BridgeID` as a catalog id: a whole number (or its text of ASCII digits), from 0 to 99,999. A JSON `true` or
    /// `false` is no id, though Foundation hands it over as an `NSNumber` of 1 or 0 (one whose type is `c`, on Linux
    /// and on Darwin alike; JSON numbers never are).
    private static func bridgeID(_ value: Any?) -> String? {
        if let number = value as? NSNumber {
            guard number.objCType.pointee != CChar(UInt8(ascii: "c")) else { return nil }
            let double = number.doubleValue
            guard double.isFinite, double >= 0, double < 100_000, double == double.rounded() else { return nil }
            return String(Int(double))
        }
        if let text = value as? String, (1...5).contains(text.count), text.allSatisfy({ $0.isASCII && $0.isNumber }),
           let number = Int(text) {
            return String(number)
        }
        return nil
    }
}
