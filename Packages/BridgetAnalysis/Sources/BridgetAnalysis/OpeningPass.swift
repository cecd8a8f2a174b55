import BridgetDTOs
import Foundation

/// Merges one bridge's records, oldest first, into openings as they arrive (the rule of `MergedOpening.merge`):
/// only the opening being built is held.
struct OpeningMerger: Sendable {
    let gap: TimeInterval
    private var pending: (bridge: String, start: Int64, end: Int64?, wall: Int64, count: Int)?
    /// The last record's opening instant, to tell a history out of order.
    private(set) var lastOpenedAt = Int64.min

    init(gap: TimeInterval) { self.gap = gap }

    /// Adds the next record of the bridge; returns the opening it completed when it starts a new one.
    mutating func add(_ record: OpeningRecordDTO) -> MergedOpening? {
        lastOpenedAt = record.openedAt
        if var open = pending, let end = open.end, Double(record.openedAt - end) < gap {
            open.end = record.closedAt.map { max($0, end) }
            open.count += 1
            pending = open
            return nil
        }
        let done = finish()
        pending = (record.bridgeID, record.openedAt, record.closedAt, record.openWall, 1)
        return done
    }

    /// The opening being built, completed; `nil` when there is none.
    mutating func finish() -> MergedOpening? {
        guard let open = pending else { return nil }
        pending = nil
        return MergedOpening(
            bridgeID: open.bridge, start: Date(timeIntervalSince1970: Double(open.start)),
            end: open.end.map { Date(timeIntervalSince1970: Double($0)) },
            startLocal: FloatingTimestamp(wallClockSeconds: open.wall), fragments: open.count)
    }
}

/// What a pass over the history does with it: told when the records of another bridge begin, then given that
/// bridge's records and the openings merged from them, each bridge's in order.
protocol OpeningSink: Sendable {
    /// The records and openings that follow are `bridgeID`'s (a bridge may come back after another's).
    mutating func begin(bridgeID: String)
    /// A record of the scope.
    mutating func take(record: OpeningRecordDTO)
    /// A merged opening, once its last fragment is known.
    mutating func take(opening: MergedOpening)
}

/// One pass over a stream of records: keeps those of the scope's time range, merges each bridge's into openings and
/// hands both to a sink. It holds one merger per bridge, never the records.
struct OpeningPass<Sink: OpeningSink>: Sendable {
    private(set) var sink: Sink
    private let from: Double?
    private let before: Double?
    private let bridgeIDs: Set<String>?
    private let gap: TimeInterval
    private var parked: [String: OpeningMerger] = [:]
    private var currentID: String?
    private var current: OpeningMerger

    /// A pass over `scope` (its bridges and time range), merging rows closer than `mergeGap` seconds.
    init(_ sink: Sink, scope: HistoryScope, mergeGap: TimeInterval) {
        self.sink = sink
        from = scope.from?.timeIntervalSince1970
        before = scope.before?.timeIntervalSince1970
        bridgeIDs = scope.bridgeIDs.isEmpty ? nil : Set(scope.bridgeIDs)
        gap = mergeGap
        current = OpeningMerger(gap: mergeGap)
    }

    /// Takes the next page of the stream (ordered by opening within each bridge).
    mutating func add(_ page: [OpeningRecordDTO]) throws {
        for record in page { try add(record) }
    }

    /// Takes the next record of the stream.
    mutating func add(_ record: OpeningRecordDTO) throws {
        if let from, Double(record.openedAt) < from { return }
        if let before, Double(record.openedAt) >= before { return }
        if record.bridgeID != currentID {
            if let bridgeIDs, !bridgeIDs.contains(record.bridgeID) { return }
            switchTo(record.bridgeID)
        }
        guard record.openedAt >= current.lastOpenedAt else {
            throw AnalysisError.unorderedHistory(bridgeID: record.bridgeID)
        }
        sink.take(record: record)
        if let done = current.add(record) { sink.take(opening: done) }
    }

    /// Completes every bridge's last opening and returns the sink.
    mutating func finish() -> Sink {
        if let currentID { parked[currentID] = current }
        currentID = nil
        for id in parked.keys.sorted() {
            guard let done = parked[id]?.finish() else { continue }
            sink.begin(bridgeID: id)
            sink.take(opening: done)
        }
        parked = [:]
        return sink
    }

    private mutating func switchTo(_ id: String) {
        if let currentID { parked[currentID] = current }
        current = parked.removeValue(forKey: id) ?? OpeningMerger(gap: gap)
        currentID = id
        sink.begin(bridgeID: id)
    }
}

extension EventHistory {
    /// Streams the scope's records through `sink` and returns it: one read of the history, in pages.
    func pass<Sink: OpeningSink>(_ sink: Sink, scope: HistoryScope, mergeGap: TimeInterval) async throws -> Sink {
        let start = OpeningPass(sink, scope: scope, mergeGap: mergeGap)
        var pass = try await foldOpeningRecords(bridgeIDs: scope.bridgeIDs.isEmpty ? nil : scope.bridgeIDs,
                                                into: start) { pass, page in
            try Task.checkCancellation()
            try pass.add(page)
        }
        return pass.finish()
    }
}

extension OpeningSink {
    /// Runs records already in memory (any order) through the sink, as a store's stream would.
    func fed(_ records: [OpeningRecordDTO], scope: HistoryScope = .everything, mergeGap: TimeInterval) -> Self {
        var pass = OpeningPass(self, scope: scope, mergeGap: mergeGap)
        // Records in history order cannot be out of order.
        try? pass.add(OpeningRecordDTO.inHistoryOrder(records))
        return pass.finish()
    }
}

extension OpeningRecordDTO {
    /// `records` ordered by bridge, then opening, as a history streams them (as they are when already so).
    static func inHistoryOrder(_ records: [OpeningRecordDTO]) -> [OpeningRecordDTO] {
        zip(records, records.dropFirst()).allSatisfy { ($0.bridgeID, $0.openedAt) <= ($1.bridgeID, $1.openedAt) }
            ? records : records.sorted { ($0.bridgeID, $0.openedAt) < ($1.bridgeID, $1.openedAt) }
    }
}

/// The start (the source's wall clock, seconds) of every merged opening, per bridge, in order: what cascades and the
/// backtest's test period need (8 bytes an opening).
struct StartSink: OpeningSink {
    private var starts: [String: [Int64]] = [:]
    private(set) var openings = 0
    private var currentID: String?
    private var current: [Int64] = []

    mutating func begin(bridgeID: String) {
        park()
        currentID = bridgeID
        current = starts.removeValue(forKey: bridgeID) ?? []
    }

    mutating func take(record: OpeningRecordDTO) {}

    mutating func take(opening: MergedOpening) {
        openings += 1
        current.append(opening.startLocal.wallClockSeconds)
    }

    private mutating func park() {
        if let currentID { starts[currentID] = current }
        current = []
    }

    /// The starts, sorted per bridge (in place: no second copy of them).
    consuming func finished() -> [String: [Int64]] {
        park()
        for key in Array(starts.keys) { starts[key]?.sort() }
        return starts
    }
}
