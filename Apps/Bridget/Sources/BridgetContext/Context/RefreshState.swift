import BridgetCore
import Foundation

/// The refresh state the server reads: the next planned sync, and whether one runs now.
package final class RefreshState: Sendable {
    private let state = Locked<(next: Date?, running: Bool)>((nil, false))

    package init() {}

    package var next: Date? { state.withLock { $0.next } }
    package var isRunning: Bool { state.withLock { $0.running } }

    package func update(_ change: (inout (next: Date?, running: Bool)) -> Void) {
        state.withLock { change(&$0) }
    }
}
