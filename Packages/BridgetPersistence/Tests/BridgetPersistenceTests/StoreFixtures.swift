import BridgetPersistence
import BridgetSQLite
import Foundation

/// The store implementations of this package, which the conformance suite runs against.
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
