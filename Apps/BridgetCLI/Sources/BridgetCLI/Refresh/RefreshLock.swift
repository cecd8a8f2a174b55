import Foundation

/// The one refresher of a store: a lock on `<store>.refresh.lock`, held while `bridget watch` or a refreshing
/// `bridget serve` runs, so a second one on the same store is refused instead of running interleaved syncs. The
/// system drops the lock when the process ends, however it ends (kill -9 included): no stale lock to clean up.
final class RefreshLock: Sendable {
    let path: String
    private let descriptor: Int32

    private init(path: String, descriptor: Int32) {
        self.path = path
        self.descriptor = descriptor
    }

    deinit { SystemCall.close(descriptor) }

    /// The lock file of the SQLite store at `storePath`.
    static func path(forStore storePath: String) -> String { storePath + ".refresh.lock" }

    /// Takes the lock of the store at `storePath`, or throws what to tell the user when another process has it.
    static func take(storePath: String) throws -> RefreshLock {
        let path = Self.path(forStore: storePath)
        let descriptor: Int32?
        do {
            descriptor = try SystemCall.tryExclusiveLock(on: path)
        } catch {
            throw BridgetError.data("refresh-lock", "cannot open the refresh lock \(path): \(error.localizedDescription)",
                                    hint: "the store's folder must be writable by this user", exitCode: 74)
        }
        guard let descriptor else {
            throw BridgetError(
                .processing, code: "refresh.running", "another bridget is already refreshing the store \(storePath) (it holds \(path))",
                hint: "run one `bridget watch` (or one refreshing `bridget serve`) per store; "
                    + "stop the other first, or serve with refresh.enabled: false",
                exitCode: 75) // EX_TEMPFAIL: try again once the other has stopped
        }
        return RefreshLock(path: path, descriptor: descriptor)
    }
}
