import Foundation

/// The lean form of a stored event that analysis reads: a million of these cost little to fetch and hold.
public struct OpeningRecordDTO: Sendable, Equatable {
    /// The bridge's id in its catalog (Socrata's `entityid`, NDW's location code).
    public let bridgeID: String
    /// Opening instant, seconds since 1970 (UTC).
    public let openedAt: Int64
    /// Closing instant, when known.
    public let closedAt: Int64?
    /// The raw wall-clock opening reading (the source's clock) as seconds since 1970 read as UTC (see
    /// `FloatingTimestamp.wallClockSeconds`).
    public let openWall: Int64

    /// Creates a record.
    public init(bridgeID: String, openedAt: Int64, closedAt: Int64?, openWall: Int64) {
        self.bridgeID = bridgeID
        self.openedAt = openedAt
        self.closedAt = closedAt
        self.openWall = openWall
    }

    /// The record of an event; `nil` when its raw opening reading does not parse.
    public init?(_ event: BridgeEventDTO) {
        guard let reading = FloatingTimestamp(event.openLocal) else { return nil }
        self.init(bridgeID: event.bridgeID, openedAt: Int64(event.openedAt.timeIntervalSince1970.rounded(.down)),
                  closedAt: event.closedAt.map { Int64($0.timeIntervalSince1970.rounded(.down)) },
                  openWall: reading.wallClockSeconds)
    }
}
