import BridgetDTOs
import BridgetNetworking
import Foundation

/// The texts of one `situationRecord` as the collector met them, before they are judged.
struct DatexRecordDraft {
    /// What a draft turns into.
    enum Outcome {
        case opening(DatexBridgeOpening)
        case rejected(DatexRejectedRecord.Reason)
    }

    /// A latitude/longitude pair's texts from one location element.
    struct PointTexts {
        var latitude: String?
        var longitude: String?
        /// The element's end was met: later elements of the same name (another point of the location) are not read.
        var closed = false
    }

    var situationID: String?
    var situationVersion: String?
    var recordID: String?
    var recordVersion: String?
    var line: Int
    var column: Int
    var probability: String?
    var sourceName: String?
    var start: String?
    var end: String?
    var versionTime: String?
    var managementType: String?
    var point: PointTexts?
    var display: PointTexts?

    /// Judges the texts against the rules in the order `DatexRejectedRecord.Reason` lists them; the first broken
    /// rule rejects the record.
    func outcome(publicationTime: Date) -> Outcome {
        guard let recordID, !recordID.isEmpty else { return .rejected(.missingRecordID) }
        guard let situationID, !situationID.isEmpty else { return .rejected(.missingSituationID) }
        guard managementType == "bridgeSwingInOperation" else { return .rejected(.notBridgeOperation(found: managementType)) }
        guard let bridgeID = DatexBridgeOpening.bridgeID(inSituationID: situationID) else { return .rejected(.noBridgeID) }
        guard let start else { return .rejected(.missingStartTime) }
        guard let startDate = InstantText.date(from: start) else {
            return .rejected(.invalidTime(element: "overallStartTime", text: start))
        }
        var endDate: Date?
        if let end {
            guard let date = InstantText.date(from: end) else { return .rejected(.invalidTime(element: "overallEndTime", text: end)) }
            guard date >= startDate else { return .rejected(.endBeforeStart) }
            endDate = date
        }
        var versionDate: Date?
        if let versionTime {
            guard let date = InstantText.date(from: versionTime) else {
                return .rejected(.invalidTime(element: "situationRecordVersionTime", text: versionTime))
            }
            versionDate = date
        }
        // pointByCoordinates is the location proper; locationForDisplay only where a record has no point.
        var position: DatexCoordinate?
        if let texts = point ?? display {
            let element = point == nil ? "locationForDisplay" : "pointByCoordinates"
            guard let latitude = texts.latitude.flatMap(Double.init), let longitude = texts.longitude.flatMap(Double.init),
                  let coordinate = DatexCoordinate(latitude: latitude, longitude: longitude)
            else { return .rejected(.invalidCoordinate(element: element, latitude: texts.latitude, longitude: texts.longitude)) }
            position = coordinate
        }
        return .opening(DatexBridgeOpening(
            situationID: situationID, situationVersion: situationVersion, recordID: recordID, recordVersion: recordVersion,
            bridgeID: bridgeID, sourceName: sourceName, probability: DatexProbability(rawValue: probability ?? ""),
            start: startDate, end: endDate, position: position, versionTime: versionDate, publicationTime: publicationTime
        ))
    }
}
