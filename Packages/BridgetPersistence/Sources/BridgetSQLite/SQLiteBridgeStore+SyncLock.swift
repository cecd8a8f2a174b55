import BridgetPersistence
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension SQLiteBridgeStore: SyncLocking {
    /// The lock file beside the store: `<store>.sync.lock`.
    public var syncLockPath: String { path + ".sync.lock" }

    /// Holds an exclusive `flock` on `<store>.sync.lock` while `body` runs, with `holder` written in the file for
    /// whoever is refused. The system drops the lock when its descriptor closes, however the process ends (`kill -9`
    /// included), so a crash never leaves it held. Each call opens its own descriptor, so two syncs in one process
    /// exclude each other as two processes do. Never waits: a held lock throws `SyncInProgress` at once.
    public func withSyncLock<T: Sendable>(holder: String, _ body: @Sendable () async throws -> T) async throws -> T {
        let lockPath = syncLockPath
        let descriptor = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw StoreError.failed(path: path, action: "take the sync lock",
                                    reason: "cannot open \(lockPath): \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let reason = errno
            guard reason == EWOULDBLOCK else {
                throw StoreError.failed(path: path, action: "take the sync lock",
                                        reason: "cannot lock \(lockPath): \(String(cString: strerror(reason)))")
            }
            throw SyncInProgress(holder: Self.holder(in: descriptor) ?? "another process")
        }
        // Who holds it, for the refusal another process gets; the lock, not this text, is what excludes.
        let text = Array(holder.utf8.prefix(200))
        if ftruncate(descriptor, 0) == 0 { _ = text.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) } }
        defer {
            _ = ftruncate(descriptor, 0)
            _ = flock(descriptor, LOCK_UN)
        }
        return try await body()
    }

    /// The holder written in an open lock file, if it reads as one line of text.
    private static func holder(in descriptor: Int32) -> String? {
        var buffer = [UInt8](repeating: 0, count: 256)
        let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
        guard count > 0, let text = String(validating: buffer[..<count], as: UTF8.self),
              !text.contains(where: { $0.isNewline || ($0.asciiValue.map { $0 < 0x20 } ?? false) })
        else { return nil }
        return text
    }
}
