import BridgetPersistence
import Foundation
import PostgresNIO
import Synchronization

// The change log's wake-ups (`ChangeLogStore.changeWakeups()`).
extension PostgresBridgeStore {
    /// The channel every commit that logs a change notifies, with the schema's name as the payload (a trigger on
    /// `change_log`, PostgresSchema's migration 8): one channel for every store of a database, each hearing its own.
    static let changeChannel = "bridget_changes"

    /// Wakes the readers at every commit that logs a change, from any process on any host: the store listens on a
    /// connection of its own (`LISTEN bridget_changes`), not one of the pool's. A lost connection is made again a
    /// second later, and a wake-up follows each (re)connection, since a commit may have come between.
    public func changeWakeups() -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let (settings, tls, logger) = (settings, tlsChoice, logger)
        let listening = Mutex<PostgresConnection?>(nil)
        let task = Task {
            while !Task.isCancelled {
                do {
                    let connection = try await Self.connect(settings, tls: tls, logger: logger)
                    listening.withLock { $0 = connection }
                    // Cancelled before the connection was there to close: the listen below would wait for good.
                    if Task.isCancelled {
                        try? await connection.close()
                        break
                    }
                    do {
                        try await connection.listen(on: Self.changeChannel) { notifications in
                            continuation.yield()
                            for try await notification in notifications where notification.payload == settings.schema {
                                continuation.yield()
                            }
                        }
                    } catch {}
                    listening.withLock { $0 = nil }
                    try? await connection.close()
                } catch {}
                try? await Task.sleep(for: .seconds(1))
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in
            task.cancel()
            // A listen waits on its connection, not on the task: closing the connection ends it.
            if let connection = listening.withLock({ $0 }) { Task { try? await connection.close() } }
        }
        return stream
    }
}
