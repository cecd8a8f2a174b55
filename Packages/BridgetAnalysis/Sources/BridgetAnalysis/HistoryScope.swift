import BridgetDTOs
import Foundation

/// The part of the history a question is about: some bridges (none named: every bridge) and a half-open range of
/// opening instants, `from` included and `before` excluded.
public struct HistoryScope: Sendable, Equatable {
    /// Bridge ids in the order given; empty for every bridge.
    public var bridgeIDs: [String]
    /// Openings at or after this instant.
    public var from: Date?
    /// Openings strictly before this instant.
    public var before: Date?

    /// The whole history.
    public static let everything = HistoryScope()

    /// Creates a scope.
    public init(bridgeIDs: [String] = [], from: Date? = nil, before: Date? = nil) {
        self.bridgeIDs = bridgeIDs
        self.from = from
        self.before = before
    }

    /// Whether an opening of `bridgeID` at `instant` is inside.
    public func contains(bridgeID: String, openedAt instant: Date) -> Bool {
        contains(bridgeID: bridgeID, openedAtSeconds: instant.timeIntervalSince1970)
    }

    /// Whether a bridge is inside.
    public func contains(bridge id: String) -> Bool { bridgeIDs.isEmpty || bridgeIDs.contains(id) }

    func contains(bridgeID: String, openedAtSeconds seconds: Double) -> Bool {
        contains(bridge: bridgeID) && from.map { seconds >= $0.timeIntervalSince1970 } ?? true
            && before.map { seconds < $0.timeIntervalSince1970 } ?? true
    }

    /// The records inside (all of them, unfiltered, for the whole history).
    func filter(_ records: [OpeningRecordDTO]) -> [OpeningRecordDTO] {
        guard self != .everything else { return records }
        return records.filter { contains(bridgeID: $0.bridgeID, openedAtSeconds: Double($0.openedAt)) }
    }

    /// The bridges inside.
    func filter(_ bridges: [BridgeInfoDTO]) -> [BridgeInfoDTO] {
        bridgeIDs.isEmpty ? bridges : bridges.filter { bridgeIDs.contains($0.id) }
    }
}
