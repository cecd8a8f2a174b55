#if Server
import Foundation
import Hummingbird
import Synchronization

/// Encoded answers, kept by everything they depend on: the store's history version, the request's path and query,
/// and what else the endpoint says (the minute, the routes file's sum). Such a key names one answer for good (a sync
/// that changes the history changes the version), so an entry is never stale, only unused: the least recently used go
/// when the cache holds more than `budget` bytes. A popular bridge's page or forecast is then encoded once per sync
/// (or minute), not once per request.
final class AnswerCache: Sendable {
    private struct Entry {
        let body: ByteBuffer
        var lastUse: UInt64
    }

    private let state = Mutex<(entries: [String: Entry], bytes: Int, clock: UInt64)>(([:], 0, 0))
    let budget: Int

    init(budget: Int) { self.budget = budget }

    /// The answer kept under `key`, if any.
    func answer(_ key: String) -> ByteBuffer? {
        state.withLock { state in
            state.clock += 1
            guard var entry = state.entries[key] else { return nil }
            entry.lastUse = state.clock
            state.entries[key] = entry
            return entry.body
        }
    }

    /// Keeps `body` under `key`; when over budget, the least recently used quarter of the entries goes.
    func keep(_ body: ByteBuffer, as key: String) {
        let size = body.readableBytes + key.utf8.count
        guard size <= budget / 4 else { return } // one huge answer does not empty the cache
        state.withLock { state in
            state.clock += 1
            if let old = state.entries.updateValue(Entry(body: body, lastUse: state.clock), forKey: key) {
                state.bytes -= old.body.readableBytes + key.utf8.count
            }
            state.bytes += size
            guard state.bytes > budget else { return }
            let oldest = state.entries.sorted { $0.value.lastUse < $1.value.lastUse }.prefix(max(1, state.entries.count / 4))
            for (key, entry) in oldest {
                state.entries[key] = nil
                state.bytes -= entry.body.readableBytes + key.utf8.count
            }
        }
    }

    /// Entries and bytes held (the tests look).
    var usage: (entries: Int, bytes: Int) { state.withLock { ($0.entries.count, $0.bytes) } }
}
/// The store's history version, asked of the store at most once a `lifetime`: every cached answer's key starts with
/// it, so asking for each request was most of a cached answer's cost. A sync's batches show in the answers within
/// `lifetime` (the refresher in this process also says at once, with `forget()`); `/readyz` still asks the store.
final class HistoryVersionMemo: Sendable {
    private let state = Mutex<(version: Int64, at: ContinuousClock.Instant)?>(nil)
    let lifetime: Duration

    init(lifetime: Duration) { self.lifetime = lifetime }

    func version(_ ask: () async throws -> Int64) async throws -> Int64 {
        let now = ContinuousClock.now
        if let kept = state.withLock({ $0 }), now - kept.at < lifetime { return kept.version }
        let version = try await ask()
        state.withLock { $0 = (version, now) }
        return version
    }

    /// The next request asks the store.
    func forget() { state.withLock { $0 = nil } }
}
#endif
