import BridgetDTOs
import BridgetPersistence
import Foundation

/// The store implementations every conformance test runs against.
enum StoreKind: String, CaseIterable, CustomStringConvertible, Sendable {
    case sqlite, memory

    var description: String { rawValue }

    /// A fresh, empty store (SQLite in its own temporary folder, so parallel tests share nothing).
    func make() throws -> any BridgeStore {
        switch self {
        case .sqlite: try SQLiteBridgeStore(path: TemporaryFolder().path + "/bridget.sqlite")
        case .memory: InMemoryBridgeStore()
        }
    }
}

/// A unique folder under the system's temporary directory.
struct TemporaryFolder {
    let path: String

    init() {
        path = NSTemporaryDirectory() + "bridget-tests-" + UUID().uuidString
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
}

/// Hand-made events with readable times.
enum Fixture {
    static let fremont = BridgeCatalog.seattle.bridge(id: "3")!
    static let ballard = BridgeCatalog.seattle.bridge(id: "2")!

    /// An event opening at `minute` minutes after 2026-06-01T12:00:00Z.
    static func event(_ bridge: BridgeInfoDTO = fremont, minute: Int, minutes: Int? = 5, milliseconds: Int = 0)
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
}
