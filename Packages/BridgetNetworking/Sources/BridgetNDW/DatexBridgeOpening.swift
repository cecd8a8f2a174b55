import BridgetNetworking
import Foundation

/// One bridge opening from NDW's DATEX II bridge feed: one `situationRecord` with its `situation`'s identity.
///
/// The feed is a snapshot rewritten every minute, not a history: an opening appears as `riskOf` (planned), may turn
/// `certain` (under way) and disappears once over; `versions` grow when a record changes.
public struct DatexBridgeOpening: Sendable, Hashable {
    /// The situation's `id`, e.g. `PNH01_NLWMH002340560000502_72565910`.
    public let situationID: String
    /// The situation's `version` attribute, when present.
    public let situationVersion: String?
    /// The record's `id`, e.g. `PNH01_NLWMH002340560000502_72565910_01`.
    public let recordID: String
    /// The record's `version` attribute, when present.
    public let recordVersion: String?
    /// The bridge's stable id, found in `situationID` by `bridgeID(inSituationID:)` (its ISRS location code).
    public let bridgeID: String
    /// `source/sourceName`, e.g. `PNH01` or `NDW04`.
    public let sourceName: String?
    /// Under way (`certain`) or planned (`riskOf`).
    public let probability: DatexProbability
    /// `overallStartTime`: when road traffic is stopped (from the first warning lights).
    public let start: Date
    /// `overallEndTime`, absent when the end is not known.
    public let end: Date?
    /// `pointByCoordinates`, or `locationForDisplay` when the record has no `pointByCoordinates`.
    public let position: DatexCoordinate?
    /// `situationRecordVersionTime`: when this version of the record was made.
    public let versionTime: Date?
    /// The feed's `publicationTime`: when the snapshot holding this record was published.
    public let publicationTime: Date

    /// Creates a record.
    public init(situationID: String, situationVersion: String?, recordID: String, recordVersion: String?,
                bridgeID: String, sourceName: String?, probability: DatexProbability, start: Date, end: Date?,
                position: DatexCoordinate?, versionTime: Date?, publicationTime: Date) {
        self.situationID = situationID
        self.situationVersion = situationVersion
        self.recordID = recordID
        self.recordVersion = recordVersion
        self.bridgeID = bridgeID
        self.sourceName = sourceName
        self.probability = probability
        self.start = start
        self.end = end
        self.position = position
        self.versionTime = versionTime
        self.publicationTime = publicationTime
    }
}
