import BridgetCore
import BridgetDTOs
import Foundation

/// The JSON form of an event (documented in Docs/OUTPUT.md).
package struct EventOutput: Encodable, Sendable {
    package let bridgeID: String
    package let bridgeName: String
    package let openedAt: Date
    package let openLocal: String
    package let closedAt: Date?
    package let closeLocal: String?
    package let minutesOpen: Int?
    package let durationMinutes: Double?
    package let latitude: Double?
    package let longitude: Double?
    /// `observed`, or `planned` for an announced opening.
    package let status: String
    /// The source's record id and version, when it has them.
    package let recordID: String?
    package let recordVersion: Int?

    package init(_ event: BridgeEventDTO, clock: LocalClock) {
        bridgeID = event.bridgeID
        bridgeName = event.bridgeName
        openedAt = event.openedAt
        openLocal = clock.reading(for: event.openedAt).localText
        closedAt = event.closedAt
        closeLocal = event.closedAt.map { clock.reading(for: $0).localText }
        minutesOpen = event.minutesOpen
        durationMinutes = event.durationMinutes
        latitude = event.latitude
        longitude = event.longitude
        status = event.status.rawValue
        recordID = event.recordID
        recordVersion = event.recordVersion
    }
}

/// A page of events as the API sends it: the events, the next page's URL and its cursor (both absent on the last).
package struct EventPageOutput: Encodable, Sendable {
    package let events: [EventOutput]
    package let next: String?
    package let cursor: String?

    package init(events: [EventOutput], next: String?, cursor: String?) {
        self.events = events
        self.next = next
        self.cursor = cursor
    }
}

// MARK: Their JSON, written by hand (`JSONTextWritable`)

extension EventPageOutput: JSONTextWritable {
    /// The keys in `JSONEncoder`'s sorted order.
    package func write(to json: inout JSONText) {
        json.reserve(events.count * 512)
        json.object { json in
            json.member("cursor", cursor)
            json.member("events") { json in json.array(events) { json, event in event.write(to: &json) } }
            json.member("next", next)
        }
    }
}

extension EventOutput: JSONTextWritable {
    package func write(to json: inout JSONText) {
        json.object { json in
            json.member("bridgeID", bridgeID)
            json.member("bridgeName", bridgeName)
            json.member("closeLocal", closeLocal)
            json.member("closedAt", closedAt)
            json.member("durationMinutes", durationMinutes)
            json.member("latitude", latitude)
            json.member("longitude", longitude)
            json.member("minutesOpen", minutesOpen)
            json.member("openLocal", openLocal)
            json.member("openedAt", openedAt)
            json.member("recordID", recordID)
            json.member("recordVersion", recordVersion)
            json.member("status", status)
        }
    }
}
