import BridgetDTOs
import BridgetNetworking
import Foundation
import Testing

/// The state feed boundary's conformance suite: what `BridgeStateSource` promises, checked against a source you make
/// and the bridges it must know.
///
/// ```swift
/// @Test func myFeedConforms() async throws {
///     try await BridgeStateConformance.check(knownBridgeIDs: ["1", "2"]) { MyFeed(...) }
/// }
/// ```
public enum BridgeStateConformance {
    /// Checks a reachable source: two readings in a row agree (one reading a call, no cache in between that could
    /// differ), positions are for known bridges only and are raised or lowered, never unknown. A call cancelled at
    /// once is awaited too: it must end (with a reading or an error); a source that hangs on it hangs the test, which
    /// is the only way this check fails.
    public static func check(knownBridgeIDs: Set<String>, makeSource: () async throws -> any BridgeStateSource)
        async throws
    {
        let source = try await makeSource()
        #expect(!source.origin.isEmpty)
        let first = try await source.currentStates()
        let second = try await source.currentStates()
        #expect(first == second, "two readings of an unchanged feed agree")
        #expect(Set(first.positions.keys).isSubset(of: knownBridgeIDs), "positions only for the catalog's bridges")
        #expect(!first.positions.values.contains(.unknown), "a reading says raised or lowered, never unknown")
        let task = Task { try await source.currentStates() }
        task.cancel()
        _ = try? await task.value
    }
}
