import Foundation
import Synchronization

/// The wake-ups of one change log's readers in this process (`ChangeLogStore.changeWakeups()`): a store rings its bell
/// after each write it commits, and every reader's stream gets one wake-up. A stream holds at most one that was not
/// yet taken, so a burst of commits wakes a busy reader once.
package final class ChangeBell: Sendable {
    private struct Readers {
        var next = 0
        var byID: [Int: AsyncStream<Void>.Continuation] = [:]
    }

    private let readers = Mutex(Readers())
    private static let bells = Mutex<[String: ChangeBell]>([:])

    package init() {}

    /// The one bell of the store named `key` in this process (its file's full path, say): every instance that opens the
    /// same store rings and hears the same bell.
    package static func named(_ key: String) -> ChangeBell {
        bells.withLock { bells in
            if let bell = bells[key] { return bell }
            let bell = ChangeBell()
            bells[key] = bell
            return bell
        }
    }

    /// Wakes every reader.
    package func ring() {
        for reader in readers.withLock({ Array($0.byID.values) }) { reader.yield() }
    }

    /// A new reader's wake-ups, until the stream ends (its consumer cancelled, or `finish` called on it): the first at
    /// once, since the reader listens from now on (`ChangeLogStore.changeWakeups()`).
    package func wakeups() -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let id = readers.withLock { readers in
            readers.next += 1
            readers.byID[readers.next] = continuation
            return readers.next
        }
        continuation.yield()
        continuation.onTermination = { [weak self] _ in
            _ = self?.readers.withLock { $0.byID.removeValue(forKey: id) }
        }
        return stream
    }
}
