import BridgetDTOs
import Foundation

/// The one rule book every provider and import shares: judges opening observations against a bridge catalog,
/// reading local times in the source's time zone, and turns each into an event or a counted rejection.
///
/// A record is judged by the first rule it breaks, in the order of `RejectionReason.allCases`; a batch never fails
/// because of a bad record: bad records are counted and returned beside the good ones.
///
/// A local reading near an offset change may denote two instants (the autumn repeated hour) or none (the spring
/// gap): see `LocalClock`. The validator takes the earliest opening whose closing (at or after it) agrees with the
/// reported duration; without a duration, the first occurrence and the earliest closing after it. When an earlier
/// record of the same batch already holds the first occurrence for that bridge, a record with the same reading
/// takes the second: two real openings a clock-hour apart. (Across batches that second record would overwrite the
/// first: floating times cannot tell them apart.)
public struct ObservationValidator: Sendable {
    /// The outcome of validating a batch.
    public struct Outcome: Sendable, Equatable {
        /// Accepted events, in input order.
        public var events: [BridgeEventDTO]
        /// Rejected records with their reasons and positions in the batch, in input order.
        public var rejected: [RejectedObservation]

        /// Creates an outcome.
        public init(events: [BridgeEventDTO] = [], rejected: [RejectedObservation] = []) {
            self.events = events
            self.rejected = rejected
        }

        /// Rejections counted by reason.
        public var rejectionCounts: RejectionCounts {
            var counts = RejectionCounts()
            for rejection in rejected { counts.record(rejection.reason) }
            return counts
        }
    }

    /// The bridges records may name.
    public let catalog: BridgeCatalog
    /// The source's clock: local readings are read in its zone, and events keep their local reading in it.
    public let clock: LocalClock
    /// Openings must fall in this range (instants).
    public let acceptedOpenings: ClosedRange<Date>
    /// How far a record's position may lie from its bridge's catalog position.
    public let maximumDistanceMeters: Double
    /// Tolerance between the reported minutes open and close − open.
    public let minutesOpenTolerance: Double

    /// Creates a validator. `now` bounds openings from above (with one day of slack for clock skew; planned
    /// openings may lie further ahead: up to `plannedHorizon`).
    public init(
        catalog: BridgeCatalog,
        clock: LocalClock,
        now: Date,
        earliestOpening: Date = Date(timeIntervalSince1970: 946_684_800), // 2000-01-01T00:00:00Z
        maximumDistanceMeters: Double = 1_000,
        minutesOpenTolerance: Double = 1
    ) {
        self.catalog = catalog
        self.clock = clock
        self.acceptedOpenings = earliestOpening...max(earliestOpening, now.addingTimeInterval(86_400))
        self.plannedOpenings = earliestOpening...max(earliestOpening, now.addingTimeInterval(Self.plannedHorizon))
        self.maximumDistanceMeters = maximumDistanceMeters
        self.minutesOpenTolerance = minutesOpenTolerance
    }

    /// How far ahead an announced (planned) opening may lie.
    public static let plannedHorizon: TimeInterval = 366 * 86_400
    private let plannedOpenings: ClosedRange<Date>

    /// Validates a batch; duplicates are judged within this batch only (the store's upsert handles the rest).
    ///
    /// Of two rows of one opening (bridge and opening instant), the later wins, as a later batch's row updates the
    /// stored one: the stored rows do not depend on where a sync's pages or an import's batches are cut. The earlier
    /// row is rejected as `duplicate-in-batch`. Rejections come in the rows' order.
    ///
    /// `firstPass`, when given, holds each record's result validated on its own (e.g. computed concurrently); it is
    /// used for every record whose outcome cannot depend on earlier ones, so the outcome equals a plain `validate`.
    public func validate(_ observations: [OpeningObservation],
                         firstPass: [Result<BridgeEventDTO, RejectionReason>]? = nil) -> Outcome {
        var outcome = Outcome()
        outcome.events.reserveCapacity(observations.count)
        var seen = Set<EventKey>()
        seen.reserveCapacity(observations.count)
        // The row each kept event came from, and the later rows of an opening already kept (rare: settled at the
        // end, so a batch without any costs one integer a row).
        var rows: [Int] = []
        rows.reserveCapacity(observations.count)
        var later: [(row: Int, event: BridgeEventDTO)] = []
        var positions = PositionMemo()
        // Each record is read where it lies, through a pointer: passed as a value, every record was copied first
        // (its strings and source retained, then released), a visible share of an import.
        observations.withUnsafeBufferPointer { records in
            for index in records.indices {
                // Within the buffer's indices it is not empty, so it has a base address.
                let record = records.baseAddress! + index
                let result = if let firstPass, index < firstPass.count, !mayDependOnBatch(record.pointee.opened) {
                    firstPass[index]
                } else {
                    validate(record, taken: seen, positions: &positions)
                }
                switch consume result {
                case .success(let event):
                    if seen.insert(event.key).inserted {
                        outcome.events.append(event)
                        rows.append(index)
                    } else {
                        later.append((index, event))
                    }
                case .failure(let reason):
                    outcome.rejected.append(RejectedObservation(reason: reason, index: index,
                                                                source: record.pointee.source))
                }
            }
        }
        if !later.isEmpty {
            var kept: [EventKey: Int] = [:]
            for (position, event) in outcome.events.enumerated() { kept[event.key] = position }
            for (row, event) in later {
                guard let position = kept[event.key] else { continue }
                let earlier = rows[position]
                outcome.rejected.append(RejectedObservation(reason: .duplicateInBatch, index: earlier,
                                                            source: observations[earlier].source))
                outcome.events[position] = event
                rows[position] = row
            }
            outcome.rejected.sort { $0.index < $1.index }
        }
        return outcome
    }

    /// Validates one record on its own (every rule except duplicates). `taken` holds keys already used in the
    /// batch, so an ambiguous reading can take its other occurrence.
    public func validate(_ observation: OpeningObservation, taken: Set<EventKey> = []) -> Result<BridgeEventDTO, RejectionReason> {
        var positions = PositionMemo(remembering: false)
        return withUnsafePointer(to: observation) { validate($0, taken: taken, positions: &positions) }
    }

    /// Each record validated on its own (every rule except duplicates, as `validate(_:taken:)` with nothing taken):
    /// a first pass for `validate(_:firstPass:)`, computed a chunk at a time by concurrent tasks.
    public func firstPass(_ observations: ArraySlice<OpeningObservation>) -> [Result<BridgeEventDTO, RejectionReason>] {
        var positions = PositionMemo()
        return observations.withUnsafeBufferPointer { records in
            // Called for an index of the buffer only, so it is not empty and has a base address.
            records.indices.map { validate(records.baseAddress! + $0, taken: [], positions: &positions) }
        }
    }

    /// Whether a record's instant can depend on the records before it: only a local opening reading near an offset
    /// change can take its second occurrence when the first is taken.
    public func mayDependOnBatch(_ observation: OpeningObservation) -> Bool {
        mayDependOnBatch(observation.opened)
    }

    private func mayDependOnBatch(_ opened: ObservedField<TimeReading>) -> Bool {
        guard case .value(.local(let reading)) = opened else { return false }
        return clock.nearOffsetChange(reading)
    }

    /// Validates the record at `record` (read in place; see `validate(_:firstPass:)`).
    private func validate(_ record: UnsafePointer<OpeningObservation>, taken: Set<EventKey>,
                          positions memo: inout PositionMemo) -> Result<BridgeEventDTO, RejectionReason>
    {
        if let defect = record.pointee.defect { return .failure(defect) }
        guard let id = record.pointee.bridgeID, let bridge = catalog.bridge(id: id) else {
            return .failure(.unknownBridgeID)
        }
        guard let name = record.pointee.bridgeName, !name.isEmpty else { return .failure(.emptyName) }
        guard case .value(let opening) = record.pointee.opened else { return .failure(.unparseableOpenTime) }
        var closing: TimeReading?
        switch record.pointee.closed {
        case .absent: break
        case .value(let reading): closing = reading
        case .unreadable: return .failure(.unparseableCloseTime)
        }
        // A local reading the clock skips (the spring-forward hour) names no instant: taken for the hour after, it
        // would stand on top of a genuine reading of that hour.
        if skipped(opening) || closing.map(skipped) == true { return .failure(.nonexistentLocalTime) }
        // Read early because it helps choose among ambiguous instants; judged later, in rule order.
        let minutes = record.pointee.durationMinutes.value.flatMap { $0.isFinite && abs($0) <= 1_000_000 ? $0 : nil }

        guard let (openedAt, closedAt) = instants(
            open: opening, close: closing, minutes: minutes, bridgeID: bridge.id, taken: taken)
        else { return .failure(.closeBeforeOpen) }
        let range = record.pointee.status == .planned ? plannedOpenings : acceptedOpenings
        guard range.contains(openedAt) else { return .failure(.openTimeOutOfRange) }
        var minutesOpen: Int?
        switch record.pointee.durationMinutes {
        case .absent: break
        case .unreadable: return .failure(.unparseableMinutesOpen)
        case .value:
            guard let minutes else { return .failure(.unparseableMinutesOpen) }
            guard minutes >= 0 else { return .failure(.negativeMinutesOpen) }
            if let closedAt, abs(closedAt.timeIntervalSince(openedAt) / 60 - minutes) > minutesOpenTolerance {
                return .failure(.inconsistentMinutesOpen)
            }
            minutesOpen = Int(minutes.rounded())
        }
        var latitude: Double?
        var longitude: Double?
        switch (record.pointee.latitude, record.pointee.longitude) {
        case (.absent, .absent):
            break
        case (.value(let lat), .value(let lon)):
            switch memo.verdict(bridgeID: bridge.id, latitude: lat, longitude: lon, judge: {
                guard (-90...90).contains(lat), (-180...180).contains(lon) else { return .failure(.coordinatesOutOfRange) }
                let distance = Geodesy.distanceMeters(
                    latitude1: lat, longitude1: lon, latitude2: bridge.latitude, longitude2: bridge.longitude)
                return distance <= maximumDistanceMeters ? .success(()) : .failure(.coordinatesFarFromBridge)
            }) {
            case .success:
                latitude = lat
                longitude = lon
            case .failure(let reason):
                return .failure(reason)
            }
        default:
            return .failure(.coordinatesOutOfRange) // one without the other, or unreadable
        }
        return .success(BridgeEventDTO(
            bridgeID: bridge.id, bridgeName: name, openedAt: openedAt,
            openLocal: record.pointee.openedText ?? localText(opening, at: openedAt), closedAt: closedAt,
            closeLocal: closing.map { record.pointee.closedText ?? localText($0, at: closedAt ?? openedAt) },
            minutesOpen: minutesOpen, latitude: latitude, longitude: longitude, status: record.pointee.status,
            recordID: record.pointee.recordID, recordVersion: record.pointee.recordVersion))
    }

    /// Whether a reading is a local time the clock skips (checked near an offset change only: a day either side).
    private func skipped(_ reading: TimeReading) -> Bool {
        guard case .local(let local) = reading, clock.nearOffsetChange(local) else { return false }
        return clock.instants(for: local).isEmpty
    }

    /// The local reading kept beside an instant: the source's own, or the instant read on the source's clock.
    private func localText(_ reading: TimeReading, at instant: Date) -> String {
        switch reading {
        case .local(let local): local.description
        case .instant: clock.reading(for: instant).description
        }
    }

    /// The opening and closing instants; `nil` when every closing falls before every opening.
    func instants(open: TimeReading, close: TimeReading?, minutes: Double?, bridgeID: String,
                  taken: Set<EventKey>) -> (Date, Date?)? {
        // Nearly every reading has one instant: then there is nothing to choose, and no arrays to build.
        let opens: [Date]
        switch open {
        case .instant(let opening):
            opens = [opening]
            guard let close else { return (opening, nil) }
            if case .instant(let closing) = close { return closing >= opening ? (opening, closing) : nil }
        case .local(let reading):
            if let opening = clock.unambiguousInstant(for: reading) {
                guard let close else { return (opening, nil) }
                switch close {
                case .instant(let closing): return closing >= opening ? (opening, closing) : nil
                case .local(let closeReading):
                    if let closing = clock.unambiguousInstant(for: closeReading) {
                        return closing >= opening ? (opening, closing) : nil
                    }
                }
            }
            opens = clock.candidateInstants(for: reading)
        }
        let free = opens.filter { !taken.contains(EventKey(bridgeID: bridgeID, openedAt: $0)) }
        let choices = free.isEmpty ? opens : free
        guard let close else { return choices.first.map { ($0, nil) } }
        let closes: [Date] = switch close {
        case .instant(let closing): [closing]
        case .local(let reading): clock.candidateInstants(for: reading)
        }
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

/// The position last judged for each bridge, with the verdict: a bridge's records repeat the same position, and a
/// great-circle distance for every record was a visible share of validation.
struct PositionMemo {
    /// False for a single record: nothing to remember for, so nothing is kept.
    let remembering: Bool
    private struct Entry {
        var bridgeID: String
        var latitude: Double
        var longitude: Double
        var verdict: Result<Void, RejectionReason>
    }

    private var entries: [Entry] = []

    init(remembering: Bool = true) {
        self.remembering = remembering
    }

    /// The verdict on this position for this bridge: remembered when the bridge's last position was the same,
    /// otherwise `judge`'s, which is remembered in its place.
    mutating func verdict(bridgeID: String, latitude: Double, longitude: Double,
                          judge: () -> Result<Void, RejectionReason>) -> Result<Void, RejectionReason> {
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
