import BridgetDTOs
import Foundation

/// Where the live state feed's last sight is kept, and who polls it: so that a restart goes on where the last poll
/// left off, and several hosts sharing the store poll the feed once between them.
///
/// An implementation must guarantee:
/// - `claimLiveFeed` gives the lease to `holder` when no one holds it, `holder` already does, or the holder's lease
///   ran out before `now`, and then extends it to `until`; otherwise it leaves it and returns the holder's;
///   claims are atomic across every process that shares the store;
/// - `saveLiveFeed` writes the state and upserts the events (as `EventStore.upsertEvents`, the change log included)
///   in one transaction, only while the lease is still `holder`'s: no other process has claimed it since (a lease
///   that ran out during a slow poll, unclaimed, is still its holder's); otherwise it writes nothing and throws
///   `StoreError.notLiveFeedHolder`;
/// - `liveFeedState` reads the state last saved (`nil` before any), whatever holds the lease;
/// - `releaseLiveFeed` ends `holder`'s lease (a no-op when it holds none), so another can claim it at once.
public protocol LiveStateStore: Sendable {
    /// The state last saved, or `nil`.
    func liveFeedState() async throws -> LiveFeedState?
    /// The lease after the claim: `holder`'s when it got it, another's when that one still holds it.
    func claimLiveFeed(holder: String, now: Date, until: Date) async throws -> LiveFeedLease
    /// Saves the state and the openings it changed, atomically, while `holder` holds the lease.
    func saveLiveFeed(_ state: LiveFeedState, events: [BridgeEventDTO], holder: String, now: Date) async throws
        -> UpsertCounts
    /// Gives up `holder`'s lease.
    func releaseLiveFeed(holder: String) async throws
}
