import BridgetCore
import BridgetDTOs
import BridgetPersistence
import Foundation

/// Reads a store's change log as it grows, like `tail -f`: what `events --follow` prints and the server's stream
/// hub fans out. The log is read, never pushed, so it sees every writer of the store, in every process and on every
/// host that shares it; the store's wake-ups (`ChangeLogStore.changeWakeups()`) end the wait between reads at a
/// commit, and `pollInterval` bounds it when none comes.
package struct ChangeFollower: Sendable {
    package let store: any ChangeLogStore
    /// How long to wait before reading again after the log had nothing new.
    package let pollInterval: Duration
    /// Changes read at once; a fuller log is read again at once.
    package let pageSize: Int

    /// Asked at most once a second while the log has nothing new: throws when the store is no longer the one opened
    /// (its file deleted or replaced), which ends the pages with that error instead of reading a file nobody writes.
    package let check: @Sendable () async throws -> Void

    package init(store: any ChangeLogStore, pollInterval: Duration, pageSize: Int = 1_000,
                 check: @escaping @Sendable () async throws -> Void = {}) {
        self.store = store
        self.pollInterval = pollInterval
        self.pageSize = pageSize
        self.check = check
    }

    /// Pages of the changes after `sequence` (of `bridgeIDs` only, when given), oldest first, each page once, as
    /// they are stored; never ends by itself (cancel the consuming task). A store error ends it with that error.
    package func pages(after sequence: Int64, bridgeIDs: [String]? = nil) -> AsyncThrowingStream<[ChangeLogEntryDTO], any Error> {
        let (stream, continuation) = AsyncThrowingStream<[ChangeLogEntryDTO], any Error>.makeStream(bufferingPolicy: .unbounded)
        let task = Task {
            let doorbell = Doorbell()
            let listening = doorbell.listen(to: store.changeWakeups())
            defer { listening.cancel() }
            var cursor = sequence
            var checked = ContinuousClock.now
            do {
                while !Task.isCancelled {
                    let page = try await store.changes(after: cursor, bridgeIDs: bridgeIDs, limit: pageSize)
                    if let last = page.last {
                        cursor = last.sequence
                        continuation.yield(page)
                        if page.count == pageSize { continue }
                    } else if ContinuousClock.now - checked >= .seconds(1) {
                        checked = .now
                        try await check()
                    }
                    await doorbell.wait(upTo: pollInterval)
                }
                continuation.finish()
            } catch is CancellationError {
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }
}
