import BridgetDTOs
import Foundation

/// Events with readable times at two of Seattle's bridges, for the conformance suite and a store's own tests.
public enum StoreFixture {
    /// Fremont Bridge (id 3: the built-in Seattle catalog has it, so the lookup cannot fail).
    public static let fremont = BridgeCatalog.seattle.bridge(id: "3")!
    /// Ballard Bridge (id 2: the built-in Seattle catalog has it, so the lookup cannot fail).
    public static let ballard = BridgeCatalog.seattle.bridge(id: "2")!

    /// An event opening at `minute` minutes after 2026-06-01T12:00:00Z, open `minutes` minutes (nil: still open).
    public static func event(_ bridge: BridgeInfoDTO = fremont, minute: Int, minutes: Int? = 5, milliseconds: Int = 0)
        -> BridgeEventDTO
    {
        let opened = Date(timeIntervalSince1970: 1_780_315_200 + Double(minute * 60) + Double(milliseconds) / 1000)
        let time = LocalClock.seattle
        let closed = minutes.map { opened.addingTimeInterval(Double($0 * 60)) }
        return BridgeEventDTO(
            bridgeID: bridge.id, bridgeName: bridge.name, openedAt: opened,
            openLocal: time.reading(for: opened).description, closedAt: closed,
            closeLocal: closed.map { time.reading(for: $0).description }, minutesOpen: minutes,
            latitude: bridge.latitude, longitude: bridge.longitude)
    }

    /// Version `version` of a source's record `id`: a Fremont opening at `minute` (see `event`) with `status`.
    public static func record(_ id: String, version: Int?, minute: Int, status: OpeningStatus = .planned,
                              minutes: Int? = 5) -> BridgeEventDTO
    {
        let base = event(minute: minute, minutes: minutes)
        return BridgeEventDTO(
            bridgeID: base.bridgeID, bridgeName: base.bridgeName, openedAt: base.openedAt, openLocal: base.openLocal,
            closedAt: base.closedAt, closeLocal: base.closeLocal, minutesOpen: base.minutesOpen,
            latitude: base.latitude, longitude: base.longitude, status: status, recordID: id, recordVersion: version)
    }

    /// A Fremont opening seen live at `minute` and `seconds` past it (see `event`), open `minutes` (nil: still open),
    /// opened after the poll `pollSeconds` before.
    public static func live(_ bridge: BridgeInfoDTO = fremont, minute: Int, seconds: Int = 12, minutes: Int? = 4,
                            pollSeconds: Double = 20) -> BridgeEventDTO
    {
        let base = event(bridge, minute: minute, minutes: minutes)
        let opened = base.openedAt.addingTimeInterval(Double(seconds))
        let closed = base.closedAt?.addingTimeInterval(Double(seconds))
        let time = LocalClock.seattle
        return BridgeEventDTO(
            bridgeID: base.bridgeID, bridgeName: base.bridgeName, openedAt: opened,
            openLocal: time.reading(for: opened).description, closedAt: closed,
            closeLocal: closed.map { time.reading(for: $0).description }, minutesOpen: minutes,
            latitude: base.latitude, longitude: base.longitude, status: .live,
            live: LiveWindow(openedAfter: opened.addingTimeInterval(-pollSeconds),
                             closedAfter: closed?.addingTimeInterval(-pollSeconds)))
    }
}
