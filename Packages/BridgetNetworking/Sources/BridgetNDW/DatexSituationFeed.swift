import BridgetNetworking
import Foundation

/// One parsed DATEX II bridge-openings snapshot: its publication time, the openings read, the records refused.
public struct DatexSituationFeed: Sendable, Hashable {
    /// The `payloadPublication`'s `publicationTime`.
    public let publicationTime: Date
    /// The records read, in document order.
    public let openings: [DatexBridgeOpening]
    /// The records refused, in document order, each with its reason.
    public let rejected: [DatexRejectedRecord]

    /// Creates a feed.
    public init(publicationTime: Date, openings: [DatexBridgeOpening], rejected: [DatexRejectedRecord]) {
        self.publicationTime = publicationTime
        self.openings = openings
        self.rejected = rejected
    }
}
