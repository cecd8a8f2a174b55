import Foundation

/// Decodes and validates Socrata rows into events, the one rule book every provider and import shares.
///
/// A row is judged by the first rule it breaks, in the order of `RejectionReason.allCases`; a batch never fails
/// because of a bad row: bad rows are counted and returned beside the good ones.
///
/// Readings in the autumn repeated hour have two possible instants. The validator takes the earliest opening
/// whose closing (at or after it) agrees with `minutesopen`; without `minutesopen`, the first occurrence and the
/// earliest closing after it (`SeattleTime`'s rule). When an earlier row of the same batch already holds the first
/// occurrence for that bridge, a row with the same reading takes the second: two real openings a clock-hour apart.
/// (Across batches that second row would overwrite the first: the dataset's floating times cannot tell them apart.)
public struct EventValidator: Sendable {
    /// The outcome of validating a batch.
    public struct Outcome: Sendable, Equatable {
        /// Accepted events, in input order.
        public var events: [BridgeEventDTO]
        /// Rejected rows with their reasons and positions in the batch, in input order.
        public var rejected: [RejectedRow]

        /// Rejections counted by reason.
        public var rejectionCounts: RejectionCounts {
            var counts = RejectionCounts()
            for rejection in rejected { counts.record(rejection.reason) }
            return counts
        }
    }

    /// The bridges rows may name.
    public let catalog: BridgeCatalog
    /// Openings must fall in this range (instants).
    public let acceptedOpenings: ClosedRange<Date>
    /// How far a row's coordinates may lie from its bridge's catalog position.
    public let maximumDistanceMeters: Double
    /// Tolerance between `minutesopen` and close − open.
    public let minutesOpenTolerance: Double
    private let time = SeattleTime()

    /// Creates a validator. `now` bounds openings from above (with one day of slack for clock skew).
    public init(
        catalog: BridgeCatalog,
        now: Date,
        earliestOpening: Date = Date(timeIntervalSince1970: 946_684_800), // 2000-01-01T00:00:00Z
        maximumDistanceMeters: Double = 1_000,
        minutesOpenTolerance: Double = 1
    ) {
        self.catalog = catalog
        self.acceptedOpenings = earliestOpening...max(earliestOpening, now.addingTimeInterval(86_400))
        self.maximumDistanceMeters = maximumDistanceMeters
        self.minutesOpenTolerance = minutesOpenTolerance
    }

    /// Validates a batch; duplicates are judged within this batch only (the store's upsert handles the rest).
    ///
    /// `firstPass`, when given, holds each row's result validated on its own (e.g. computed concurrently); it is
    /// used for every row whose outcome cannot depend on earlier rows, so the outcome equals a plain `validate`.
    public func validate(_ rows: [SocrataRow], firstPass: [Result<BridgeEventDTO, RejectedRow>]? = nil) -> Outcome {
        var outcome = Outcome(events: [], rejected: [])
        outcome.events.reserveCapacity(rows.count)
        var seen = Set<EventKey>()
        seen.reserveCapacity(rows.count)
        var coordinates = CoordinateMemo()
        for (index, row) in rows.enumerated() {
            let result = if let firstPass, index < firstPass.count, !Self.mayDependOnBatch(row) {
                firstPass[index]
            } else {
                validate(row, taken: seen, coordinates: &coordinates)
            }
            switch result {
            case .success(let event):
                if seen.insert(event.key).inserted {
                    outcome.events.append(event)
                } else {
                    outcome.rejected.append(RejectedRow(reason: .duplicateInBatch, row: row, index: index))
                }
            case .failure(var rejection):
                rejection.index = index
                outcome.rejected.append(rejection)
            }
        }
        return outcome
    }

    /// Validates one row on its own (every rule except duplicates). `taken` holds keys already used in the batch,
    /// so an ambiguous reading can take its other occurrence.
    public func validate(_ row: SocrataRow, taken: Set<EventKey> = []) -> Result<BridgeEventDTO, RejectedRow> {
        var coordinates = CoordinateMemo(remembering: false)
        return validate(row, taken: taken, coordinates: &coordinates)
    }

    /// Each row validated on its own (every rule except duplicates, as `validate(_:taken:)` with nothing taken): a
    /// first pass for `validate(_:firstPass:)`, computed a chunk at a time by concurrent tasks.
    public func firstPass(_ rows: ArraySlice<SocrataRow>) -> [Result<BridgeEventDTO, RejectedRow>] {
        var coordinates = CoordinateMemo()
        return rows.map { validate($0, taken: [], coordinates: &coordinates) }
    }

    private func validate(_ row: SocrataRow, taken: Set<EventKey>, coordinates memo: inout CoordinateMemo)
        -> Result<BridgeEventDTO, RejectedRow>
    {
        // A control character is the first rule, so a row holding one is rejected for it whatever else it breaks; it
        // is looked for on the way out of a rejection, and in the name of a row that passes, since every other field
        // a passing row has is parsed strictly (an id of the catalog, timestamps, plain numbers) and holds none.
        func reject(_ reason: RejectionReason) -> Result<BridgeEventDTO, RejectedRow> {
            .failure(RejectedRow(reason: Self.holdsControlCharacter(row) ? .controlCharacter : reason, row: row))
        }
        guard let id = row.entityid.map({ Self.trimmed($0, newlines: false) }), let bridge = catalog.bridge(id: id) else {
            return reject(.unknownBridgeID)
        }
        guard let name = row.entityname.map({ Self.trimmed($0, newlines: true) }), !name.isEmpty else {
            return reject(.emptyName)
        }
        if Self.hasControlCharacter(name) { return reject(.controlCharacter) }
        guard let openText = row.opendatetime, let openReading = FloatingTimestamp(openText) else {
            return reject(.unparseableOpenTime)
        }
        var closeReading: FloatingTimestamp?
        if let closeText = row.closedatetime {
            guard let reading = FloatingTimestamp(closeText) else { return reject(.unparseableCloseTime) }
            closeReading = reading
        }
        // Parsed early because it helps choose among ambiguous instants; judged later, in rule order.
        let minutesText = row.minutesopen.map { Self.trimmed($0, newlines: false) }
        let minutesValue = minutesText.flatMap(Self.number).flatMap { $0.isFinite && abs($0) <= 1_000_000 ? $0 : nil }

        guard let (openedAt, closedAt) = instants(
            open: openReading, close: closeReading, minutes: minutesValue, bridgeID: bridge.id, taken: taken)
        else { return reject(.closeBeforeOpen) }
        guard acceptedOpenings.contains(openedAt) else { return reject(.openTimeOutOfRange) }
        var minutesOpen: Int?
        if minutesText != nil {
            guard let minutes = minutesValue else { return reject(.unparseableMinutesOpen) }
            guard minutes >= 0 else { return reject(.negativeMinutesOpen) }
            if let closedAt, abs(closedAt.timeIntervalSince(openedAt) / 60 - minutes) > minutesOpenTolerance {
                return reject(.inconsistentMinutesOpen)
            }
            minutesOpen = Int(minutes.rounded())
        }
        var latitude: Double?
        var longitude: Double?
        if row.latitude != nil || row.longitude != nil {
            switch memo.verdict(bridgeID: bridge.id, latitude: row.latitude, longitude: row.longitude, judge: {
                guard let lat = row.latitude.flatMap(Self.number), let lon = row.longitude.flatMap(Self.number),
                      (-90...90).contains(lat), (-180...180).contains(lon)
                else { return .rejected(.coordinatesOutOfRange) }
                let distance = Geodesy.distanceMeters(
                    latitude1: lat, longitude1: lon, latitude2: bridge.latitude, longitude2: bridge.longitude)
                guard distance <= maximumDistanceMeters else { return .rejected(.coordinatesFarFromBridge) }
                return .accepted(latitude: lat, longitude: lon)
            }) {
            case .accepted(let lat, let lon):
                latitude = lat
                longitude = lon
            case .rejected(let reason):
                return reject(reason)
            }
        }
        return .success(BridgeEventDTO(
            bridgeID: bridge.id, bridgeName: name, openedAt: openedAt, openLocal: openText,
            closedAt: closedAt, closeLocal: row.closedatetime, minutesOpen: minutesOpen,
            latitude: latitude, longitude: longitude))
    }
}

extension EventValidator {
    /// Whether a row's instant can depend on the rows before it: only readings in Seattle's repeated autumn hour
    /// (always 01:xx local) can take their second occurrence when the first is taken.
    public static func mayDependOnBatch(_ row: SocrataRow) -> Bool {
        row.opendatetime?.contains("T01:") == true
    }

    /// The opening and closing instants of a row; `nil` when every closing falls before every opening.
    func instants(open: FloatingTimestamp, close: FloatingTimestamp?, minutes: Double?, bridgeID: String,
                  taken: Set<EventKey>) -> (Date, Date?)? {
        // Nearly every reading has one instant: then there is nothing to choose, and no arrays to build.
        if let opening = time.unambiguousInstant(for: open) {
            guard let close else { return (opening, nil) }
            if let closing = time.unambiguousInstant(for: close) { return closing >= opening ? (opening, closing) : nil }
        }
        let opens = time.candidateInstants(for: open)
        let free = opens.filter { !taken.contains(EventKey(bridgeID: bridgeID, openedAt: $0)) }
        let choices = free.isEmpty ? opens : free
        guard let close else { return choices.first.map { ($0, nil) } }
        let closes = time.candidateInstants(for: close)
        var fallback: (Date, Date?)?
        for opening in choices {
            let after = closes.filter { $0 >= opening }
            if let minutes, let agreeing = after.first(where: {
                abs($0.timeIntervalSince(opening) / 60 - minutes) <= minutesOpenTolerance
            }) {
                return (opening, agreeing)
            }
            if fallback == nil, let first = after.first { fallback = (opening, first) }
        }
        return fallback
    }
}

extension RejectedRow: Error {}

/// A row's coordinates as numbers, or the rule they break.
enum CoordinateVerdict {
    case accepted(latitude: Double, longitude: Double)
    case rejected(RejectionReason)
}

/// The coordinate texts last judged for each bridge, with the verdict. A bridge's rows repeat the same texts
/// (the scanner hands out one shared string for a repeated value, so most comparisons find the same storage), and
/// reading a 17-digit longitude (`strtod`) and a great-circle distance for every row was a tenth of validation.
struct CoordinateMemo {
    /// False for a single row: nothing to remember for, so nothing is kept.
    let remembering: Bool
    private struct Entry {
        var bridgeID: String
        var latitude: String?
        var longitude: String?
        var verdict: CoordinateVerdict
    }

    private var entries: [Entry] = []

    init(remembering: Bool = true) {
        self.remembering = remembering
    }

    /// The verdict on these texts for this bridge: remembered when the bridge's last texts were the same, otherwise
    /// `judge`'s, which is remembered in their place.
    mutating func verdict(bridgeID: String, latitude: String?, longitude: String?,
                          judge: () -> CoordinateVerdict) -> CoordinateVerdict {
        guard remembering else { return judge() }
        let index = entries.firstIndex { $0.bridgeID == bridgeID }
        if let index, entries[index].latitude == latitude, entries[index].longitude == longitude {
            return entries[index].verdict
        }
        let verdict = judge()
        let entry = Entry(bridgeID: bridgeID, latitude: latitude, longitude: longitude, verdict: verdict)
        if let index { entries[index] = entry } else { entries.append(entry) }
        return verdict
    }
}

extension EventValidator {
    /// Whether a field Bridget reads holds a control character inside its text (`entitytype` is neither read nor
    /// stored). A NUL would be stored whole and printed cut (C strings end at it), or cut a number short (`strtod`
    /// reads "4\0junk" as 4); a line break or an escape would break a table or CSV line or drive the terminal. The
    /// whitespace that validation trims from around a value (tabs and line breaks included) stays accepted.
    static func holdsControlCharacter(_ row: SocrataRow) -> Bool {
        inside(row.entityid, .whitespace) || inside(row.entityname, .whitespaceAndNewlines)
            || inside(row.opendatetime, .nothing) || inside(row.closedatetime, .nothing)
            || inside(row.minutesopen, .whitespace) || inside(row.latitude, .nothing) || inside(row.longitude, .nothing)
    }

    /// What validation trims from around a field before reading it.
    private enum Trimmed { case nothing, whitespace, whitespaceAndNewlines }

    /// Whether `text` holds a control character once trimmed as validation trims it.
    private static func inside(_ text: String?, _ trimming: Trimmed) -> Bool {
        guard let text, hasControlCharacter(text) else { return false }
        switch trimming {
        case .nothing: return true
        case .whitespace: return hasControlCharacter(trimmed(text, newlines: false))
        case .whitespaceAndNewlines: return hasControlCharacter(trimmed(text, newlines: true))
        }
    }

    /// Whether `text` holds a Unicode control character (category Cc): U+0000-U+001F, U+007F, or U+0080-U+009F
    /// (UTF-8 C2 80 to C2 9F).
    static func hasControlCharacter(_ text: String) -> Bool {
        func scan<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> Bool {
            var afterC2 = false
            for byte in bytes {
                if byte < 0x20 || byte == 0x7F || (afterC2 && byte < 0xA0) { return true }
                afterC2 = byte == 0xC2
            }
            return false
        }
        return text.utf8.withContiguousStorageIfAvailable(scan) ?? scan(text.utf8)
    }
}

extension EventValidator {
    /// `text` without leading and trailing characters of `set`. Nearly every value has nothing to trim, which shows
    /// in its first and last bytes: that case skips Foundation, whose trimming bridges through NSString.
    static func trimmed(_ text: String, newlines: Bool) -> String {
        guard let first = text.utf8.first, let last = text.utf8.last else { return text }
        func plain(_ byte: UInt8) -> Bool { byte > 0x20 && byte < 0x7F }
        if plain(first), plain(last) { return text }
        return text.trimmingCharacters(in: newlines ? .whitespacesAndNewlines : .whitespaces)
    }
}

extension EventValidator {
    /// `Double(text)`, with the dataset's plain decimals ("7", "47.65981674194336", "-122.3") read without `strtod`:
    /// three numbers a row made `strtod` a visible share of an import. A plain decimal whose digits fit 2^53 and
    /// whose fraction has at most 22 digits is `digits / 10^fraction`, one correctly rounded division of two exact
    /// doubles, so it equals what `Double(text)` gives. Anything else goes to `Double(text)`.
    static func number(_ text: String) -> Double? {
        var text = text
        if let value = text.withUTF8(plainDecimal) { return value }
        // `Double(_:)` hands the text to `strtod` as a C string, which ends at a NUL: "4\0junk" would read as 4.
        guard !text.utf8.contains(0) else { return nil }
        return Double(text)
    }

    private static let powersOfTen: [Double] = (0...22).map { pow(10, Double($0)) }

    private static func plainDecimal(_ bytes: UnsafeBufferPointer<UInt8>) -> Double? {
        var index = 0
        let negative = bytes.first == UInt8(ascii: "-")
        if negative { index = 1 }
        var mantissa: UInt64 = 0
        var digits = 0
        var fraction = -1 // digits after the point; -1 before any point
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "."), fraction < 0, digits > 0 {
                fraction = 0
            } else if byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
                guard digits < 19 else { return nil }
                mantissa = mantissa * 10 + UInt64(byte - UInt8(ascii: "0"))
                digits += 1
                if fraction >= 0 { fraction += 1 }
            } else {
                return nil
            }
            index += 1
        }
        guard digits > 0, fraction != 0, mantissa <= 1 << 53, fraction <= 22 else { return nil }
        let value = Double(mantissa) / powersOfTen[max(fraction, 0)]
        return negative ? -value : value
    }
}

/// Great-circle distances on a spherical Earth (good to well under 1% at bridge scale).
public enum Geodesy {
    /// Haversine distance in meters.
    public static func distanceMeters(latitude1: Double, longitude1: Double, latitude2: Double, longitude2: Double)
        -> Double
    {
        let radians = Double.pi / 180
        let deltaLatitude = (latitude2 - latitude1) * radians
        let deltaLongitude = (longitude2 - longitude1) * radians
        let haversine = sin(deltaLatitude / 2) * sin(deltaLatitude / 2)
            + cos(latitude1 * radians) * cos(latitude2 * radians) * sin(deltaLongitude / 2) * sin(deltaLongitude / 2)
        return 2 * 6_371_000 * asin(min(1, sqrt(haversine)))
    }
}
