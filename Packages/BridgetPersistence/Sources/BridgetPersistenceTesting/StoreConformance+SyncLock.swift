import BridgetPersistence
import Testing

extension StoreConformance {
    /// Checks `SyncLocking`: the body runs holding the lock and its value comes back; while it runs, another holder
    /// is refused with `SyncInProgress` naming the one that holds it, without its body running; the lock is free
    /// again once the body returns, and once it throws (the error passes through).
    public static func checkSyncLock(makeStore: () async throws -> any SyncLocking) async throws {
        let store = try await makeStore()
        let value = try await store.withSyncLock(holder: "first host pid 1") {
            let refused: SyncInProgress? = await {
                do {
                    _ = try await store.withSyncLock(holder: "second host pid 2") {
                        Issue.record("a second holder ran while the first held the sync lock")
                    }
                    return nil
                } catch let error as SyncInProgress {
                    return error
                } catch {
                    Issue.record("a second holder got \(error), not SyncInProgress")
                    return nil
                }
            }()
            #expect(refused?.holder == "first host pid 1", "the refusal names the holder: \(String(describing: refused))")
            return 42
        }
        #expect(value == 42)
        #expect(try await store.withSyncLock(holder: "second host pid 2") { "ran" } == "ran")

        struct Failure: Error, Equatable {}
        await #expect(throws: Failure()) {
            _ = try await store.withSyncLock(holder: "third host pid 3") { () async throws -> Int in throw Failure() }
        }
        #expect(try await store.withSyncLock(holder: "fourth host pid 4") { "free again" } == "free again")
    }
}
